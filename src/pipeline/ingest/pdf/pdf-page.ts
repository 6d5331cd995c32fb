// One PDF page opened in PDFium: its displayed size, its rotation, and the affine map from PDF
// user space (origin bottom-left, y up, unrotated) to display space (origin top-left, y down,
// /Rotate and the crop box applied), which is the space every canonical bbox uses.
import type { PdfDocument } from './pdf-document.js';

export type Affine = [a: number, b: number, c: number, d: number, e: number, f: number];

export interface PdfPage {
  handle: number;
  width: number;
  height: number;
  rotation: number;
  /** User space → display space: x' = a·x + c·y + e, y' = b·x + d·y + f. */
  toDisplay: Affine;
  close(): void;
}

// FPDF_PageToDevice answers in whole device pixels; asking for a device 100× the page size
// keeps 0.01 pt of precision.
const SCALE = 100;

export function openPage(doc: PdfDocument, index: number): PdfPage | null {
  const { raw } = doc.pdfium;
  const handle = raw.FPDF_LoadPage(doc.handle, index);
  if (handle === 0) return null;
  const width = raw.FPDF_GetPageWidthF(handle);
  const height = raw.FPDF_GetPageHeightF(handle);
  const rotation = ((raw.FPDFPage_GetRotation(handle) % 4) + 4) % 4 * 90;
  const toDisplay = displayMatrix(doc, handle, width, height);
  // The form environment keeps a view of each open page: widget values and check states are
  // read, and widgets drawn, through it.
  if (doc.form !== 0) raw.FORM_OnAfterLoadPage(handle, doc.form);
  return new OpenPage(doc, handle, width, height, rotation, toDisplay);
}

/**
 * A class, not an object literal with a `close` closure: every literal carried a new closure in
 * the same field, and in the code tsx (esbuild) emits V8 deoptimised the page reader at
 * `page.close()` for a wrong map up to once a page for two to four passes over the 236 pages of
 * pdf-realworld, compiling it again each time; with the class it settles within two passes.
 */
class OpenPage implements PdfPage {
  constructor(
    private readonly doc: PdfDocument,
    readonly handle: number,
    readonly width: number,
    readonly height: number,
    readonly rotation: number,
    readonly toDisplay: Affine,
  ) {}

  close(): void {
    const { raw } = this.doc.pdfium;
    if (this.doc.form !== 0) raw.FORM_OnBeforeClosePage(this.handle, this.doc.form);
    raw.FPDF_ClosePage(this.handle);
  }
}

function displayMatrix(doc: PdfDocument, page: number, width: number, height: number): Affine {
  const { raw, scratch } = doc.pdfium;
  const device = (x: number, y: number): [number, number] => {
    // rotate=0 still applies the page's own /Rotate (CPDF_Page::GetDisplayMatrix adds it).
    raw.FPDF_PageToDevice(page, 0, 0, Math.round(width * SCALE), Math.round(height * SCALE), 0, x, y, scratch, scratch + 4);
    const h = doc.pdfium.heap32();
    return [h[scratch >> 2] / SCALE, h[(scratch >> 2) + 1] / SCALE];
  };
  const [e, f] = device(0, 0);
  const [x1, y1] = device(1000, 0);
  const [x2, y2] = device(0, 1000);
  return [(x1 - e) / 1000, (y1 - f) / 1000, (x2 - e) / 1000, (y2 - f) / 1000, e, f];
}

export function applyAffine(m: Affine, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}
