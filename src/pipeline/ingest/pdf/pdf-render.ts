// PDF pages → pixels: PNG for the console's page view, raw RGB for OCR (300 dpi). PDFium renders
// into an RGBA bitmap in wasm memory, with the page's /Rotate applied; sharp (libvips) encodes.
// Form fields are drawn over the page (FPDF_RenderPageBitmap leaves widgets out), so the image
// shows the values the canonical text carries, and OCR of a scanned form reads them.
import sharp from 'sharp';
import { PageUnreadable, PipelineError, corruptDocument } from '../errors.js';
import { openPdf, type PdfDocument } from './pdf-document.js';
import { openPage } from './pdf-page.js';
import type { Pdfium } from './pdfium.js';

const FPDF_ANNOT = 0x01;
/** Bitmap bytes in R,G,B,A order instead of PDFium's native B,G,R,A. */
const FPDF_REVERSE_BYTE_ORDER = 0x10;
/** 40 megapixels: an A0 poster at 150 dpi; beyond that the caller should ask for less. */
const MAX_PIXELS = 40_000_000;

export interface RgbRaster {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
}

/**
 * Page `pageNumber` (1-based) as PNG. `quarterTurns` turns the image clockwise afterwards, so it
 * matches a page whose OCR corrected its orientation (its boxes are in the turned frame).
 */
export async function renderPdfPagePng(bytes: Uint8Array, pageNumber: number, dpi = 144, quarterTurns = 0): Promise<Buffer> {
  const doc = await openPdf(bytes);
  try {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > doc.pageCount) {
      throw new PipelineError('invalid_page_range', `Page ${pageNumber} does not exist; the document has ${doc.pageCount} pages.`);
    }
    let raster: RgbRaster;
    try {
      raster = renderPdfPageRgb(doc, pageNumber - 1, dpi);
    } catch (err) {
      if (err instanceof PageUnreadable) throw corruptDocument(err.message);
      throw err;
    }
    const { data, width, height } = raster;
    return await sharp(data, { raw: { width, height, channels: 3 } })
      .rotate((quarterTurns % 4) * 90)
      .png({ compressionLevel: 6 })
      .toBuffer();
  } finally {
    doc.close();
  }
}

/** One page of an open document as RGB pixels at `dpi` (OCR reads these); PageUnreadable when PDFium cannot load it. */
export function renderPdfPageRgb(doc: PdfDocument, index: number, dpi: number): RgbRaster {
  if (!(dpi > 0 && dpi <= 1200)) throw new RangeError(`dpi must be between 1 and 1200, got ${dpi}`);
  const page = openPage(doc, index);
  if (!page) throw new PageUnreadable(index + 1);
  try {
    let w = Math.max(1, Math.round((page.width * dpi) / 72));
    let h = Math.max(1, Math.round((page.height * dpi) / 72));
    if (w * h > MAX_PIXELS) {
      // A poster-sized page: render at the largest resolution that fits rather than fail.
      const k = Math.sqrt(MAX_PIXELS / (w * h));
      w = Math.max(1, Math.floor(w * k));
      h = Math.max(1, Math.floor(h * k));
    }
    return { data: renderRgb(doc.pdfium, page.handle, doc.form, w, h), width: w, height: h, channels: 3 };
  } finally {
    page.close();
  }
}

function renderRgb(pdfium: Pdfium, page: number, form: number, w: number, h: number): Buffer {
  const m = pdfium.module;
  const bitmap = m.FPDFBitmap_Create(w, h, 1);
  if (bitmap === 0) throw new RangeError(`cannot allocate a ${w}x${h} bitmap`);
  try {
    m.FPDFBitmap_FillRect(bitmap, 0, 0, w, h, 0xffffffff);
    m.FPDF_RenderPageBitmap(bitmap, page, 0, 0, w, h, 0, FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER);
    if (form !== 0) pdfium.raw.FPDF_FFLDraw(form, bitmap, page, 0, 0, w, h, 0, FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER);
    const stride = m.FPDFBitmap_GetStride(bitmap);
    const ptr = m.FPDFBitmap_GetBuffer(bitmap);
    const heap = pdfium.heapU8();
    const rgb = Buffer.allocUnsafe(w * h * 3);
    for (let y = 0; y < h; y++) {
      const row = ptr + y * stride;
      for (let x = 0, i = y * w * 3; x < w; x++, i += 3) {
        const p = row + x * 4;
        rgb[i] = heap[p]!;
        rgb[i + 1] = heap[p + 1]!;
        rgb[i + 2] = heap[p + 2]!;
      }
    }
    return rgb;
  } finally {
    m.FPDFBitmap_Destroy(bitmap);
  }
}
