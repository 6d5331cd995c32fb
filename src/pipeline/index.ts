// The canonical pipeline as a library: bytes in, canonical document out. No HTTP, database or
// queue here; the job worker calls runCanonical (in a worker thread) and stores the results.
import { assemble } from './canonical/assemble.js';
import type { CanonicalDocument, DocumentFormat } from './canonical/model.js';
import { notePageCount } from './ingest/errors.js';
import { asPipelineError } from './ingest/failure.js';
import { type PageSpan, parsePageRange } from './ingest/page-range.js';
import type { PageCapPolicy } from './ingest/page-plan.js';
import { imageFrameRgb } from './ingest/image-frames.js';
import { OCR_RENDER_DPI, type OcrReport, type OcrStageOptions, type PageRaster, ocrSourcePages } from './ingest/ocr-pages.js';
import { openPdf } from './ingest/pdf/pdf-document.js';
import { renderPdfPageRgb } from './ingest/pdf/pdf-render.js';
import { readPdf } from './ingest/pdf/read-pdf.js';
import { type NotesMode, type UnreadablePage, type UnreadablePart, readPptx } from './ingest/pptx/read-pptx.js';
import { checkAborted } from './ingest/progress.js';
import { readImage } from './ingest/read-image.js';
import { readText } from './ingest/read-text.js';
import { sniff } from './ingest/sniff.js';
import type { SourcePage } from './ingest/source-page.js';

export type { BBox, Block, CanonicalDocument, KeyValue, Line, Page, PageSource, Table, TableCell, Word } from './canonical/model.js';
export { type CanonicalJson, toCanonicalJson } from './canonical/serialize.js';
export { PipelineError, isPipelineError, type PipelineFailureCode } from './ingest/errors.js';
export { parsePageRange, type PageSpan } from './ingest/page-range.js';
export { sniff, type Sniffed } from './ingest/sniff.js';
export { renderPagePng } from './render-page.js';
export type { NotesMode, UnreadablePage, UnreadablePart } from './ingest/pptx/read-pptx.js';
export type { PageCapPolicy } from './ingest/page-plan.js';
export type { OcrFailedPage, OcrPageRecord, OcrReport, OcrStageOptions } from './ingest/ocr-pages.js';
export { settleAbandonedOcr } from './ingest/ocr-pages.js';

export interface CanonicalOptions {
  /** "1-3,7" or already-parsed spans; 1-based, applies to PDF pages, slides, image frames and text pages. */
  pageRange?: string | PageSpan[];
  /** Page cap (the tenant's pdf_max_pages), for every format: PDF pages, slides, image frames and text pages. */
  pdfMaxPages?: number;
  /** Over the cap: fail with page_cap_exceeded (default) or process the first pdfMaxPages pages. */
  pageCapPolicy?: PageCapPolicy;
  pptxNotesMode?: NotesMode;
  /**
   * OCR for pages without a usable text layer and for images. Absent: such pages stay
   * `needs_ocr` (fast library use); jobs always pass it.
   */
  ocr?: OcrStageOptions;
  onProgress?: (done: number, total: number) => void;
  /** Checked between pages; an abort ends the run with `cancelled` (or `timeout` for AbortSignal.timeout). */
  signal?: AbortSignal;
}

/** The canonical document plus how its OCR went (null when no page needed OCR or OCR was off). */
export interface CanonicalRun extends CanonicalDocument {
  ocr: OcrReport | null;
  /** With `ocr.judge`: the same document from each page's second reading (judge mode). */
  judge: CanonicalDocument | null;
  /** Pages kept without text because their part could not be read (PPTX slides); [] when none. */
  unreadable: UnreadablePage[];
  /** PPTX layouts, masters and notes the selected slides use that could not be read; [] when none. */
  unreadableParts: UnreadablePart[];
}

/** Throws PipelineError with a spec/decisions.md failure code for every failure it can name. */
export async function runCanonical(bytes: Uint8Array, options: CanonicalOptions = {}): Promise<CanonicalRun> {
  const { format } = sniff(bytes);
  const pageRange = typeof options.pageRange === 'string' ? parsePageRange(options.pageRange) : options.pageRange;
  checkAborted(options.signal);
  const plan = { pageRange, pdfMaxPages: options.pdfMaxPages, pageCapPolicy: options.pageCapPolicy };
  // Known once a reader returns: a failure after that (OCR of every page failed) still records it.
  let pageCount: number | undefined;
  try {
    switch (format) {
      case 'pdf': {
        // With OCR on, progress comes from the OCR stage: reading text layers is the quick part.
        const read = await readPdf(bytes, { ...plan, signal: options.signal, onProgress: options.ocr ? undefined : options.onProgress });
        pageCount = read.pageCount;
        const { pages, judgePages, report } = await withOcr(read.pages, options, () => pdfRasters(bytes));
        return { ...assemble(format, read.pageCount, pages), ocr: report, judge: judgePages && assemble(format, read.pageCount, judgePages), unreadable: [], unreadableParts: [] };
      }
      case 'pptx': {
        const read = readPptx(bytes, { ...plan, notesMode: options.pptxNotesMode });
        options.onProgress?.(read.pages.length, read.pages.length);
        return { ...assemble(format, read.pageCount, read.pages), ocr: null, judge: sameReading(options, format, read.pageCount, read.pages), unreadable: read.unreadable, unreadableParts: read.unreadableParts };
      }
      case 'text': {
        const read = readText(bytes, plan);
        options.onProgress?.(read.pages.length, read.pages.length);
        return { ...assemble(format, read.pageCount, read.pages), ocr: null, judge: sameReading(options, format, read.pageCount, read.pages), unreadable: [], unreadableParts: [] };
      }
      default: {
        const read = await readImage(bytes, plan);
        pageCount = read.pageCount;
        const { pages, judgePages, report } = await withOcr(read.pages, options, async () => ({ rasterOf: (page) => imageRaster(bytes, page), close: () => undefined }));
        if (!options.ocr) options.onProgress?.(read.pages.length, read.pages.length);
        return { ...assemble(format, read.pageCount, pages), ocr: report, judge: judgePages && assemble(format, read.pageCount, judgePages), unreadable: [], unreadableParts: [] };
      }
    }
  } catch (err) {
    const failure = asPipelineError(err);
    throw pageCount === undefined ? failure : notePageCount(failure, pageCount);
  }
}

interface RasterSource {
  rasterOf: (page: SourcePage) => Promise<PageRaster>;
  close: () => void;
}

/** PPTX and text have no second, independent reading: in judge mode the judge reads the same pages. */
function sameReading(options: CanonicalOptions, format: DocumentFormat, pageCount: number, pages: SourcePage[]): CanonicalDocument | null {
  return options.ocr?.judge ? assemble(format, pageCount, pages) : null;
}

/**
 * Runs the OCR stage when it is on and some page needs it (a page without a usable text layer,
 * images to read with `textInImages`, or judge mode reading every page); opens the page source only then.
 */
async function withOcr(pages: SourcePage[], options: CanonicalOptions, open: () => Promise<RasterSource>) {
  const ocr = options.ocr;
  if (!ocr || !(ocr.judge || pages.some((p) => p.source === 'needs_ocr' || (ocr.textInImages && p.imageRegions?.length)))) return { pages, judgePages: null, report: null };
  const source = await open();
  try {
    return await ocrSourcePages(pages, source.rasterOf, { ...ocr, signal: options.signal, onProgress: options.onProgress });
  } finally {
    source.close();
  }
}

/** PDF pages rendered at OCR_RENDER_DPI from one open document. */
async function pdfRasters(bytes: Uint8Array): Promise<RasterSource> {
  const doc = await openPdf(bytes);
  return {
    rasterOf: async (page) => ({
      ...renderPdfPageRgb(doc, page.page_number - 1, OCR_RENDER_DPI),
      pageWidthPt: page.width,
      pageHeightPt: page.height,
      dpi: OCR_RENDER_DPI,
    }),
    close: () => doc.close(),
  };
}

/** An image frame at its own resolution, measured in points like read-image.ts does. */
async function imageRaster(bytes: Uint8Array, page: SourcePage): Promise<PageRaster> {
  const frame = await imageFrameRgb(bytes, page.page_number - 1);
  const k = 72 / (frame.density ?? 72);
  return { data: frame.data, width: frame.width, height: frame.height, channels: 3, pageWidthPt: frame.width * k, pageHeightPt: frame.height * k, ...(frame.density ? { dpi: frame.density } : {}) };
}
