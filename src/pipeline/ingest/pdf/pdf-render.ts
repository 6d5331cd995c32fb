// One PDF page → PNG at a given resolution, for the console's page view (and, later, for OCR).
// PDFium renders into an RGBA bitmap in wasm memory; sharp (libvips) encodes the PNG.
import sharp from 'sharp';
import { PipelineError } from '../errors.js';
import { openPdf } from './pdf-document.js';
import { openPage } from './pdf-page.js';
import type { Pdfium } from './pdfium.js';

const FPDF_ANNOT = 0x01;
/** Bitmap bytes in R,G,B,A order instead of PDFium's native B,G,R,A. */
const FPDF_REVERSE_BYTE_ORDER = 0x10;
/** 40 megapixels: an A0 poster at 150 dpi; beyond that the caller should ask for less. */
const MAX_PIXELS = 40_000_000;

export async function renderPdfPagePng(bytes: Uint8Array, pageNumber: number, dpi = 144): Promise<Buffer> {
  if (!(dpi > 0 && dpi <= 1200)) throw new RangeError(`dpi must be between 1 and 1200, got ${dpi}`);
  const doc = await openPdf(bytes);
  try {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > doc.pageCount) {
      throw new PipelineError('invalid_page_range', `Page ${pageNumber} does not exist; the document has ${doc.pageCount} pages.`);
    }
    const page = openPage(doc, pageNumber - 1);
    if (!page) throw new PipelineError('corrupt_document', `Page ${pageNumber} cannot be read. Re-export the PDF and upload it again.`);
    try {
      const w = Math.max(1, Math.round((page.width * dpi) / 72));
      const h = Math.max(1, Math.round((page.height * dpi) / 72));
      if (w * h > MAX_PIXELS) throw new RangeError(`rendering at ${dpi} dpi would need ${w}x${h} pixels; ask for a lower dpi`);
      return await renderToPng(doc.pdfium, page.handle, w, h);
    } finally {
      page.close();
    }
  } finally {
    doc.close();
  }
}

async function renderToPng(pdfium: Pdfium, page: number, w: number, h: number): Promise<Buffer> {
  const m = pdfium.module;
  const bitmap = m.FPDFBitmap_Create(w, h, 1);
  if (bitmap === 0) throw new RangeError(`cannot allocate a ${w}x${h} bitmap`);
  try {
    m.FPDFBitmap_FillRect(bitmap, 0, 0, w, h, 0xffffffff);
    m.FPDF_RenderPageBitmap(bitmap, page, 0, 0, w, h, 0, FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER);
    const stride = m.FPDFBitmap_GetStride(bitmap);
    const ptr = m.FPDFBitmap_GetBuffer(bitmap);
    const heap = pdfium.heapU8();
    const rgba = Buffer.allocUnsafe(w * h * 4);
    for (let y = 0; y < h; y++) rgba.set(heap.subarray(ptr + y * stride, ptr + y * stride + w * 4), y * w * 4);
    return await sharp(rgba, { raw: { width: w, height: h, channels: 4 } }).removeAlpha().png({ compressionLevel: 6 }).toBuffer();
  } finally {
    m.FPDFBitmap_Destroy(bitmap);
  }
}
