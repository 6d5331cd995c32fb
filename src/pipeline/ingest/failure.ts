// What a run's unexpected error means for the job: a coded pipeline failure, always.
import { PipelineError, corruptDocument, isPipelineError, resourceLimit } from './errors.js';
import { PDFIUM_MEMORY_LIMIT, discardPdfium, pdfiumMemoryBytes } from './pdf/pdfium.js';

/** A trap with PDFium's memory this close to its limit is taken for running out of it. */
const NEAR_LIMIT = 0.9;

/**
 * A WebAssembly trap inside PDFium means the file drove the parser somewhere it should not go.
 * With its memory grown to the limit (a 4 KB PDF of nested form XObjects reaches 2 GB), it ran
 * out: the document needs more than a worker allows. Otherwise it is a broken file, not a bug of
 * ours. Anything else unexpected is internal.
 */
export function asPipelineError(err: unknown, memoryBytes = pdfiumMemoryBytes()): PipelineError {
  if (isPipelineError(err)) return err;
  if (err instanceof WebAssembly.RuntimeError) {
    discardPdfium();
    if (memoryBytes >= PDFIUM_MEMORY_LIMIT * NEAR_LIMIT) {
      return resourceLimit(`the PDF parser ran out of its ${Math.round(PDFIUM_MEMORY_LIMIT / 2 ** 30)} GB of memory drawing the pages, as deeply nested forms make it do`);
    }
    return corruptDocument(`the PDF parser stopped: ${err.message}`);
  }
  const failure = new PipelineError('internal_error', 'Quire failed while reading this document. Retry it; if it fails again, report the job id.');
  (failure as Error).cause = err;
  return failure;
}
