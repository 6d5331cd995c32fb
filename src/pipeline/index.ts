// The canonical pipeline as a library: bytes in, canonical document out. No HTTP, database or
// queue here; the job worker calls runCanonical (in a worker thread) and stores the results.
import { assemble } from './canonical/assemble.js';
import type { CanonicalDocument } from './canonical/model.js';
import { PipelineError, corruptDocument, isPipelineError } from './ingest/errors.js';
import { type PageSpan, parsePageRange } from './ingest/page-range.js';
import type { PageCapPolicy } from './ingest/page-plan.js';
import { discardPdfium } from './ingest/pdf/pdfium.js';
import { renderPdfPagePng } from './ingest/pdf/pdf-render.js';
import { readPdf } from './ingest/pdf/read-pdf.js';
import { type NotesMode, readPptx } from './ingest/pptx/read-pptx.js';
import { checkAborted } from './ingest/progress.js';
import { readImage } from './ingest/read-image.js';
import { readText } from './ingest/read-text.js';
import { sniff } from './ingest/sniff.js';

export type { BBox, Block, CanonicalDocument, KeyValue, Line, Page, PageSource, Table, TableCell, Word } from './canonical/model.js';
export { type CanonicalJson, toCanonicalJson } from './canonical/serialize.js';
export { PipelineError, isPipelineError, type PipelineFailureCode } from './ingest/errors.js';
export { parsePageRange, type PageSpan } from './ingest/page-range.js';
export { sniff, type Sniffed } from './ingest/sniff.js';
export type { NotesMode } from './ingest/pptx/read-pptx.js';
export type { PageCapPolicy } from './ingest/page-plan.js';

export interface CanonicalOptions {
  /** "1-3,7" or already-parsed spans; 1-based, applies to PDF pages, slides and text pages. */
  pageRange?: string | PageSpan[];
  /** PDF page cap (the tenant's pdf_max_pages). */
  pdfMaxPages?: number;
  /** Over the cap: fail with page_cap_exceeded (default) or process the first pdfMaxPages pages. */
  pageCapPolicy?: PageCapPolicy;
  pptxNotesMode?: NotesMode;
  onProgress?: (done: number, total: number) => void;
  /** Checked between pages; an abort ends the run with `cancelled` (or `timeout` for AbortSignal.timeout). */
  signal?: AbortSignal;
}

/** Throws PipelineError with a spec/decisions.md failure code for every failure it can name. */
export async function runCanonical(bytes: Uint8Array, options: CanonicalOptions = {}): Promise<CanonicalDocument> {
  const { format } = sniff(bytes);
  const pageRange = typeof options.pageRange === 'string' ? parsePageRange(options.pageRange) : options.pageRange;
  checkAborted(options.signal);
  try {
    switch (format) {
      case 'pdf': {
        const read = await readPdf(bytes, { ...options, pageRange });
        return assemble(format, read.pageCount, read.pages);
      }
      case 'pptx': {
        const read = readPptx(bytes, { notesMode: options.pptxNotesMode, pageRange });
        options.onProgress?.(read.pages.length, read.pages.length);
        return assemble(format, read.pageCount, read.pages);
      }
      case 'text': {
        const read = readText(bytes, pageRange);
        options.onProgress?.(read.pages.length, read.pages.length);
        return assemble(format, read.pageCount, read.pages);
      }
      default: {
        const read = await readImage(bytes, pageRange);
        options.onProgress?.(read.pages.length, read.pages.length);
        return assemble(format, read.pageCount, read.pages);
      }
    }
  } catch (err) {
    throw asPipelineError(err);
  }
}

/** A page of a PDF as PNG at `dpi` (default 144: sharp on screens without being huge). */
export async function renderPagePng(bytes: Uint8Array, pageNumber: number, options: { dpi?: number } = {}): Promise<Buffer> {
  if (sniff(bytes).format !== 'pdf') throw new PipelineError('unsupported_format', 'Only PDF pages can be rendered.');
  return renderPdfPagePng(bytes, pageNumber, options.dpi);
}

/**
 * A WebAssembly trap inside PDFium means the file drove the parser somewhere it should not go:
 * that is a broken file, not a bug of ours. Anything else unexpected is internal.
 */
function asPipelineError(err: unknown): PipelineError {
  if (isPipelineError(err)) return err;
  if (err instanceof WebAssembly.RuntimeError) {
    discardPdfium();
    return corruptDocument(`the PDF parser stopped: ${err.message}`);
  }
  const failure = new PipelineError('internal_error', 'Quire failed while reading this document. Retry it; if it fails again, report the job id.');
  (failure as Error).cause = err;
  return failure;
}
