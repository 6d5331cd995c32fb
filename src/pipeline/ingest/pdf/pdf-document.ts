// Opening a PDF with PDFium and mapping its load errors onto the pipeline's failure codes.
import { corruptDocument, emptyDocument, encryptedDocument, resourceLimit } from '../errors.js';
import { type Pdfium, loadPdfium, pdfiumMemoryLimitBytes } from './pdfium.js';

// FPDF_GetLastError codes (fpdfview.h).
const FPDF_ERR_FILE = 2;
const FPDF_ERR_FORMAT = 3;
const FPDF_ERR_PASSWORD = 4;
const FPDF_ERR_SECURITY = 5;

export interface PdfDocument {
  pdfium: Pdfium;
  handle: number;
  pageCount: number;
  /**
   * PDFium's form-fill environment when the document has an interactive form (0 otherwise): the
   * values of its fields are read, and its widgets drawn, through it. No JavaScript runs in it.
   */
  form: number;
  /** Frees PDFium's document and the copy of the bytes it reads from; safe to call twice. */
  close(): void;
}

export async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  const pdfium = await loadPdfium();
  const { raw } = pdfium;
  // PDFium reads from this buffer for the document's whole life, so it is freed only on close.
  const data = raw.malloc(bytes.length);
  // Only a refused growth fails a malloc: the file alone is more than the parser may hold.
  if (data === 0) throw resourceLimit(`the file is larger than the PDF parser's ${Math.round(pdfiumMemoryLimitBytes() / 2 ** 20)} MB of memory`);
  pdfium.heapU8().set(bytes, data);
  const handle = raw.FPDF_LoadMemDocument64(data, bytes.length, 0);
  if (handle === 0) {
    const code = raw.FPDF_GetLastError();
    raw.free(data);
    if (code === FPDF_ERR_PASSWORD || code === FPDF_ERR_SECURITY) throw encryptedDocument();
    if (code === FPDF_ERR_FORMAT || code === FPDF_ERR_FILE) throw corruptDocument('it is not a well-formed PDF');
    throw corruptDocument(`PDFium error ${code}`);
  }
  const form = openForm(pdfium, handle);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    form.close(); // the form environment refers to the document, so it goes first
    raw.FPDF_CloseDocument(handle);
    raw.free(data);
  };
  const pageCount = raw.FPDF_GetPageCount(handle);
  if (pageCount <= 0) {
    close();
    throw emptyDocument('the PDF has no pages');
  }
  return { pdfium, handle, pageCount, form: form.handle, close };
}

/** The form-fill environment of a document with an AcroForm or XFA form; a no-op pair otherwise. */
function openForm(pdfium: Pdfium, doc: number): { handle: number; close(): void } {
  const { raw } = pdfium;
  if (raw.FPDF_GetFormType(doc) === FORMTYPE_NONE) return NO_FORM;
  const info = raw.PDFiumExt_OpenFormFillInfo();
  if (info === 0) return NO_FORM;
  const handle = raw.PDFiumExt_InitFormFillEnvironment(doc, info);
  if (handle === 0) {
    raw.PDFiumExt_CloseFormFillInfo(info);
    return NO_FORM;
  }
  return {
    handle,
    close: () => {
      raw.PDFiumExt_ExitFormFillEnvironment(handle);
      raw.PDFiumExt_CloseFormFillInfo(info);
    },
  };
}

const FORMTYPE_NONE = 0;
const NO_FORM = { handle: 0, close: () => {} };
