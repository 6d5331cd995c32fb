// Characters of a page's text layer with boxes in display space, font size and boldness.
// PDFium's "loose" char box spans the font's ascent to descent, so every character of a line
// shares one top and bottom; the tight box would make "a" and "T" look like different lines.
import type { PdfPage } from './pdf-page.js';
import type { PdfDocument } from './pdf-document.js';

export interface PdfChar {
  text: string;
  /** Box in display space, as plain fields: a page holds thousands of characters. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Ascent-to-descent extent in points: ~1.15× the nominal font size, comparable within a document. */
  fontSize: number;
  bold: boolean;
  /** Base font name without the subset prefix ("ABCDEF+"). */
  font: string;
  /** The glyph has no usable Unicode mapping (a symbol font or a subset without ToUnicode). */
  unmapped: boolean;
  /** Text direction in display space, in quarter turns (0 = left to right, 1 = top to bottom). */
  quarter: number;
}

/** Shared word separator; boxes of whitespace are never used. */
export const SPACE: PdfChar = Object.freeze({
  text: ' ',
  x0: 0,
  y0: 0,
  x1: 0,
  y1: 0,
  fontSize: 0,
  bold: false,
  font: '',
  unmapped: false,
  quarter: 0,
});

const FONT_FLAG_FORCE_BOLD = 1 << 18; // PDF 32000-1, table 123: bit 19

export function readChars(doc: PdfDocument, page: PdfPage): PdfChar[] {
  const { raw, scratch } = doc.pdfium;
  const textPage = raw.FPDFText_LoadPage(page.handle);
  if (textPage === 0) return [];
  try {
    const count = raw.FPDFText_CountChars(textPage);
    const chars: PdfChar[] = [];
    const fonts = new Map<number, FontInfo>();
    let lastObj = -1;
    let lastFont = NO_FONT;
    for (let i = 0; i < count; i++) {
      const code = raw.FPDFText_GetUnicode(textPage, i);
      // Whitespace (drawn, or inferred by PDFium between runs) only separates words.
      if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xa0 || code === 0x3000) {
        if (chars.length > 0 && chars[chars.length - 1] !== SPACE) chars.push(SPACE);
        continue;
      }
      if (raw.FPDFText_IsGenerated(textPage, i) === 1) continue;
      if (raw.FPDFText_GetLooseCharBox(textPage, i, scratch) !== 1) continue;
      const f = doc.pdfium.heapF32();
      const o = scratch >> 2; // FS_RECTF: left, top, right, bottom
      const left = f[o];
      const top = f[o + 1];
      const right = f[o + 2];
      const bottom = f[o + 3];
      // The box's corners mapped to display space (applyAffine, written out for every character).
      const m = page.toDisplay;
      const ax = m[0] * left + m[2] * top + m[4];
      const ay = m[1] * left + m[3] * top + m[5];
      const bx = m[0] * right + m[2] * bottom + m[4];
      const by = m[1] * right + m[3] * bottom + m[5];
      const x0 = Math.min(ax, bx);
      const y0 = Math.min(ay, by);
      const x1 = Math.max(ax, bx);
      const y1 = Math.max(ay, by);
      const obj = raw.FPDFText_GetTextObject(textPage, i);
      if (obj !== lastObj) {
        lastObj = obj;
        lastFont = obj === 0 ? NO_FONT : fontInfo(doc, raw.FPDFTextObj_GetFont(obj), fonts);
      }
      const quarter = quarterTurns(raw.FPDFText_GetCharAngle(textPage, i), page.rotation);
      chars.push({
        text: safeChar(code),
        x0,
        y0,
        x1,
        y1,
        // FPDFText_GetFontSize answers the unscaled Tf operand (often 1, the size living in the
        // text matrix), so the size used for headings is the loose box's extent across the line.
        fontSize: quarter % 2 === 0 ? y1 - y0 : x1 - x0,
        bold: lastFont.bold,
        font: lastFont.name,
        unmapped: raw.FPDFText_HasUnicodeMapError(textPage, i) === 1,
        quarter,
      });
    }
    return chars;
  } finally {
    raw.FPDFText_ClosePage(textPage);
  }
}

function safeChar(code: number): string {
  if (code === 0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return '\ufffd';
  return String.fromCodePoint(code);
}

/**
 * PDFium measures the char angle clockwise (0 = upright, π/2 = running down), in the page's
 * unrotated space; the page's /Rotate (also clockwise) turns it further on display.
 */
function quarterTurns(angleRad: number, pageRotation: number): number {
  // -1: unknown, treat as upright on the page; 0 (most text) adds no turn either.
  if (angleRad <= 0) return pageRotation / 90;
  return ((Math.round(angleRad / (Math.PI / 2)) % 4) + pageRotation / 90) % 4;
}

interface FontInfo {
  name: string;
  bold: boolean;
}
const NO_FONT: FontInfo = { name: '', bold: false };

function fontInfo(doc: PdfDocument, font: number, cache: Map<number, FontInfo>): FontInfo {
  if (font === 0) return NO_FONT;
  const cached = cache.get(font);
  if (cached !== undefined) return cached;
  const { raw } = doc.pdfium;
  const len = raw.FPDFFont_GetBaseFontName(font, 0, 0);
  let name = '';
  if (len > 0 && len < 256) {
    const buf = raw.malloc(len);
    raw.FPDFFont_GetBaseFontName(font, buf, len);
    name = new TextDecoder().decode(doc.pdfium.heapU8().subarray(buf, buf + len - 1));
    raw.free(buf);
  }
  const bold =
    /bold|black|heavy|semibold|demi/i.test(name) ||
    raw.FPDFFont_GetWeight(font) >= 600 ||
    (raw.FPDFFont_GetFlags(font) & FONT_FLAG_FORCE_BOLD) !== 0;
  const info = { name: name.replace(/^[A-Z]{6}\+/, ''), bold };
  cache.set(font, info);
  return info;
}
