// What a run's unexpected error means for the job: a coded pipeline failure, always.
import { PipelineError, corruptDocument, isPipelineError, resourceLimit } from './errors.js';
import { discardPdfium, pdfiumMemoryLimitBytes, pdfiumRanOutOfMemory } from './pdf/pdfium.js';

/**
 * A WebAssembly trap inside PDFium means the file drove the parser somewhere it should not go.
 * When PDFium had been refused memory it asked for (past QUIRE_PDFIUM_MEMORY_MB: a 4 KB PDF of
 * nested form XObjects asks for 2 GB), the document needs more than a worker allows. Otherwise
 * it is a broken file, not a bug of ours. Anything else unexpected is internal.
 */
export function asPipelineError(err: unknown, ranOutOfMemory = pdfiumRanOutOfMemory()): PipelineError {
  if (isPipelineError(err)) return err;
  if (err instanceof WebAssembly.RuntimeError) {
    discardPdfium();
    if (ranOutOfMemory) {
      return resourceLimit(`the PDF parser needed more than its ${Math.round(pdfiumMemoryLimitBytes() / 2 ** 20)} MB of memory, as huge images or deeply nested forms make it do`);
    }
    return corruptDocument(`the PDF parser stopped: ${err.message}`);
  }
  const failure = new PipelineError('internal_error', 'Quire failed while reading this document. Retry it; if it fails again, report the job id.');
  (failure as Error).cause = err;
  return failure;
}
