// Text a reader sees on a PDF page that is not in its content stream: the values of filled form
// fields (widget annotations) and the typed text of FreeText annotations. PDFium's text page reads
// page content only, so these come from the annotations, placed at their rectangles in display space.
//
// What becomes text:
// - text fields: their value (password fields never); combo and list boxes: the chosen option
//   labels, else the typed value; check boxes and radio buttons: ☒ when on, ☐ when off (the
//   export value is usually "Yes", "On" or "0" and says less than the label printed next to it).
// - FreeText annotations: their /Contents.
// Left out: push buttons and signature fields (no value a reader fills in), comments that are not
// drawn on the page body (Text "sticky notes", Popup, markup notes), and hidden annotations.
import type { BBox } from '../../canonical/model.js';
import type { PdfDocument } from './pdf-document.js';
import type { PdfPage } from './pdf-page.js';

export interface AnnotationText {
  text: string;
  /** The annotation's rectangle in display space. */
  rect: BBox;
  /** Nominal font size in points, when the annotation states one. */
  fontSize?: number;
  /** Lines wrap at the rectangle's width and run from its top (multi-line fields, FreeText). */
  multiline: boolean;
  /** A check box or radio button mark. */
  mark: boolean;
  /** /Q: 0 left, 1 centred, 2 right. */
  align: number;
}

// fpdf_annot.h subtypes, flags and form field types.
const SUBTYPE_FREETEXT = 3;
const SUBTYPE_WIDGET = 20;
const FLAG_INVISIBLE = 1;
const FLAG_HIDDEN = 2;
const FLAG_NOVIEW = 32;
const FIELD_CHECKBOX = 2;
const FIELD_RADIOBUTTON = 3;
const FIELD_COMBOBOX = 4;
const FIELD_LISTBOX = 5;
const FIELD_TEXTFIELD = 6;
// PDF 32000-1 tables 228 and 230: field flags.
const FF_MULTILINE = 1 << 12;
const FF_PASSWORD = 1 << 13;

export const CHECKED_MARK = '\u2612';
export const UNCHECKED_MARK = '\u2610';

/** At most this many annotations are looked at on one page, and options in one list box. */
const MAX_ANNOTATIONS = 5_000;
const MAX_OPTIONS = 5_000;
/**
 * Characters of annotation text one page may add (a dense page of text holds ~5,000): a hostile
 * file's thousands of megabyte-long values stop here instead of filling memory.
 */
const MAX_PAGE_CHARS = 200_000;

export function readAnnotationTexts(doc: PdfDocument, page: PdfPage): AnnotationText[] {
  const { raw } = doc.pdfium;
  const count = Math.min(raw.FPDFPage_GetAnnotCount(page.handle), MAX_ANNOTATIONS);
  if (count <= 0) return [];
  const texts: AnnotationText[] = [];
  const strings = new StringReader(doc);
  let chars = 0;
  try {
    for (let i = 0; i < count && chars < MAX_PAGE_CHARS; i++) {
      const annot = raw.FPDFPage_GetAnnot(page.handle, i);
      if (annot === 0) continue;
      try {
        const subtype = raw.FPDFAnnot_GetSubtype(annot);
        if (subtype !== SUBTYPE_WIDGET && subtype !== SUBTYPE_FREETEXT) continue;
        if ((raw.FPDFAnnot_GetFlags(annot) & (FLAG_INVISIBLE | FLAG_HIDDEN | FLAG_NOVIEW)) !== 0) continue;
        const content = subtype === SUBTYPE_WIDGET ? widgetText(doc, annot, strings) : freeText(annot, strings);
        if (!content || content.text === '') continue;
        const rect = displayRect(doc, page, annot);
        if (!rect) continue;
        // Cut at the budget, never between the halves of a surrogate pair.
        if (content.text.length > MAX_PAGE_CHARS - chars) content.text = content.text.slice(0, MAX_PAGE_CHARS - chars).replace(/[\ud800-\udbff]$/, '');
        chars += content.text.length;
        texts.push({ ...content, rect, align: raw.EPDFAnnot_GetTextAlignment(annot), ...fontSizeOf(doc, annot) });
      } finally {
        raw.FPDFPage_CloseAnnot(annot);
      }
    }
  } finally {
    strings.free();
  }
  return texts;
}

type Content = Pick<AnnotationText, 'text' | 'multiline' | 'mark'>;

function widgetText(doc: PdfDocument, annot: number, strings: StringReader): Content | null {
  const { raw } = doc.pdfium;
  const form = doc.form;
  if (form === 0) return null;
  const type = raw.FPDFAnnot_GetFormFieldType(form, annot);
  if (type === FIELD_CHECKBOX || type === FIELD_RADIOBUTTON) {
    return { text: raw.FPDFAnnot_IsChecked(form, annot) ? CHECKED_MARK : UNCHECKED_MARK, multiline: false, mark: true };
  }
  if (type !== FIELD_TEXTFIELD && type !== FIELD_COMBOBOX && type !== FIELD_LISTBOX) return null;
  const flags = raw.FPDFAnnot_GetFormFieldFlags(form, annot);
  if (type === FIELD_TEXTFIELD && (flags & FF_PASSWORD) !== 0) return null;
  const value = type === FIELD_TEXTFIELD ? strings.read((b, n) => raw.FPDFAnnot_GetFormFieldValue(form, annot, b, n)) : choiceText(doc, annot, strings);
  const multiline = (type === FIELD_TEXTFIELD && (flags & FF_MULTILINE) !== 0) || type === FIELD_LISTBOX;
  return { text: cleanText(value, multiline), multiline, mark: false };
}

/** The labels of the chosen options (what the box shows), else the value typed into an editable combo box. */
function choiceText(doc: PdfDocument, annot: number, strings: StringReader): string {
  const { raw } = doc.pdfium;
  const form = doc.form;
  const chosen: string[] = [];
  const options = Math.min(raw.FPDFAnnot_GetOptionCount(form, annot), MAX_OPTIONS);
  for (let k = 0; k < options; k++) {
    if (raw.FPDFAnnot_IsOptionSelected(form, annot, k)) chosen.push(strings.read((b, n) => raw.FPDFAnnot_GetOptionLabel(form, annot, k, b, n)));
  }
  if (chosen.length > 0) return chosen.join('\n');
  return strings.read((b, n) => raw.FPDFAnnot_GetFormFieldValue(form, annot, b, n));
}

function freeText(annot: number, strings: StringReader): Content {
  return { text: cleanText(strings.readKey(annot, 'Contents'), true), multiline: true, mark: false };
}

/** Line breaks as "\n" (one line for a single-line field), no control characters, trimmed. */
function cleanText(text: string, multiline: boolean): string {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim());
  return (multiline ? lines.filter((l) => l !== '').join('\n') : lines.join(' ')).trim();
}

function displayRect(doc: PdfDocument, page: PdfPage, annot: number): BBox | null {
  const { raw, scratch } = doc.pdfium;
  if (raw.FPDFAnnot_GetRect(annot, scratch) !== 1) return null;
  const f = doc.pdfium.heapF32();
  const o = scratch >> 2; // FS_RECTF: left, top, right, bottom in user space
  const m = page.toDisplay;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [[f[o], f[o + 1]], [f[o + 2], f[o + 3]]] as const) {
    xs.push(m[0] * x + m[2] * y + m[4]);
    ys.push(m[1] * x + m[3] * y + m[5]);
  }
  const rect: BBox = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  if (!rect.every(Number.isFinite) || rect[2] - rect[0] < 1 || rect[3] - rect[1] < 1) return null;
  // Wholly off the page: no reader sees it.
  if (rect[2] <= 0 || rect[3] <= 0 || rect[0] >= page.width || rect[1] >= page.height) return null;
  return rect;
}

function fontSizeOf(doc: PdfDocument, annot: number): { fontSize?: number } {
  const { raw, scratch } = doc.pdfium;
  if (doc.form === 0 || raw.FPDFAnnot_GetFontSize(doc.form, annot, scratch) !== 1) return {};
  const size = doc.pdfium.heapF32()[scratch >> 2];
  return size > 0 && size < 500 ? { fontSize: size } : {};
}

/** UTF-16LE strings out of PDFium through one reusable buffer. */
class StringReader {
  private buf = 0;
  private size = 0;

  constructor(private readonly doc: PdfDocument) {}

  /** `call(buffer, length)` answers the bytes needed including the terminating NUL. */
  read(call: (buf: number, len: number) => number): string {
    const needed = call(0, 0);
    if (needed <= 2 || needed > 1 << 20) return '';
    this.reserve(needed);
    call(this.buf, needed);
    const bytes = this.doc.pdfium.heapU8().subarray(this.buf, this.buf + needed - 2);
    return new TextDecoder('utf-16le').decode(bytes);
  }

  readKey(annot: number, key: string): string {
    const { raw } = this.doc.pdfium;
    const name = new TextEncoder().encode(`${key}\0`);
    const keyPtr = raw.malloc(name.length);
    try {
      this.doc.pdfium.heapU8().set(name, keyPtr);
      return this.read((b, n) => raw.FPDFAnnot_GetStringValue(annot, keyPtr, b, n));
    } finally {
      raw.free(keyPtr);
    }
  }

  free(): void {
    if (this.buf !== 0) this.doc.pdfium.raw.free(this.buf);
    this.buf = 0;
  }

  private reserve(bytes: number): void {
    if (bytes <= this.size) return;
    this.free();
    this.size = Math.max(bytes, 256);
    this.buf = this.doc.pdfium.raw.malloc(this.size);
  }
}
