// One page drawn as PNG, apart from the pipeline's barrel: the process that draws page images on
// demand (the API, a worker's main thread) loads the renderers without the OCR engines.
import { PipelineError } from './ingest/errors.js';
import { asPipelineError } from './ingest/failure.js';
import { renderImageFramePng } from './ingest/image-frames.js';
import { renderPdfPagePng } from './ingest/pdf/pdf-render.js';
import { readImage } from './ingest/read-image.js';
import { sniff } from './ingest/sniff.js';

/**
 * A page of a PDF or an image file as PNG at `dpi` (default 144: sharp on screens without being
 * huge). `quarterTurns` turns it clockwise, to match a page whose OCR corrected its orientation.
 */
export async function renderPagePng(bytes: Uint8Array, pageNumber: number, options: { dpi?: number; quarterTurns?: number; widthPt?: number } = {}): Promise<Buffer> {
  const { format } = sniff(bytes);
  const dpi = options.dpi ?? 144;
  if (format === 'pdf') {
    try {
      return await renderPdfPagePng(bytes, pageNumber, dpi, options.quarterTurns ?? 0);
    } catch (err) {
      // A trap leaves PDFium aborted: without a fresh instance every later drawing in this
      // process would fail too. It also names the failure (resource_limit, corrupt_document).
      throw asPipelineError(err);
    }
  }
  if (format === 'png' || format === 'jpeg' || format === 'tiff' || format === 'webp') {
    // The page's width in points as displayed before any OCR turn (what read-image.ts measured).
    const widthPt = options.widthPt ?? (await readImage(bytes, { pageRange: [{ from: pageNumber, to: pageNumber }] })).pages[0]!.width;
    return renderImageFramePng(bytes, pageNumber - 1, (widthPt * dpi) / 72, options.quarterTurns ?? 0);
  }
  throw new PipelineError('unsupported_format', 'Only PDF pages and images can be rendered.');
}
