// Characters → words. A word ends at a space, at a turn of text direction, at a jump to another
// line, or at a horizontal gap wider than ~0.25 of the line height (PDFs often position words
// with TJ offsets instead of space characters; 0.25 sits between letter spacing, rarely above
// 0.1 em, and the narrowest word spaces, ~0.25 em).
import type { BBox, Word } from '../../canonical/model.js';
import { median } from '../../layout/geometry.js';
import { isRtl } from '../../layout/lines.js';
import type { PdfChar } from './pdf-chars.js';

export interface PdfWord extends Word {
  quarter: number;
  unmapped: number;
}

const GAP_RATIO = 0.25;

export function charsToWords(chars: PdfChar[]): PdfWord[] {
  const words: PdfWord[] = [];
  let cur: PdfChar[] = [];
  const flush = () => {
    if (cur.length > 0) words.push(makeWord(cur));
    cur = [];
  };
  for (const c of chars) {
    if (isSpace(c.text)) {
      flush();
      continue;
    }
    const prev = cur[cur.length - 1];
    // A ligature glyph ("ffi" in "Office") comes as one char per letter, all with the glyph's box.
    if (prev && sameStart(prev, c) && LIGATURE_LETTER.test(prev.text) && LIGATURE_LETTER.test(c.text)) {
      cur.push(c);
      continue;
    }
    if (prev && isDuplicate(prev, c)) continue;
    if (prev && breaksWord(prev, c)) flush();
    cur.push(c);
  }
  flush();
  return words;
}

/** A whitespace character (readChars gives one shared " " for most); printable ASCII never is. */
function isSpace(text: string): boolean {
  if (text === ' ') return true;
  const code = text.charCodeAt(0);
  if (text.length === 1 && code > 0x20 && code < 0x7f) return false;
  return /^\s$/u.test(text) || text === '\u00a0';
}

/** Letters that Latin fonts join into ligature glyphs (ff, fi, fl, ffi, ffl, ft, st). */
const LIGATURE_LETTER = /^[filtsj]$/;

/** Two letters of one ligature glyph: PDFium places both at the glyph's left edge, on one line. */
const sameStart = (a: PdfChar, b: PdfChar) => a.quarter === 0 && b.quarter === 0 && Math.abs(a.x0 - b.x0) < 0.01 && Math.abs(a.y0 - b.y0) < 0.01;

/** Fake bold: the same glyph drawn twice, offset by a fraction of its width (pdfplumber issue 71). */
function isDuplicate(a: PdfChar, b: PdfChar): boolean {
  if (a.text !== b.text) return false;
  const w = Math.max(a.x1 - a.x0, 0.1);
  const h = Math.max(a.y1 - a.y0, 0.1);
  return Math.abs(a.x0 - b.x0) < 0.3 * w && Math.abs(a.y0 - b.y0) < 0.3 * h;
}

function breaksWord(a: PdfChar, b: PdfChar): boolean {
  if (a.quarter !== b.quarter) return true;
  const { x0: ax0, y0: ay0, x1: ax1, y1: ay1 } = a;
  const { x0: bx0, y0: by0, x1: bx1, y1: by1 } = b;
  const horizontal = a.quarter % 2 === 0;
  // Extent across the reading direction ("line height") and the gap along it.
  const size = horizontal ? Math.max(ay1 - ay0, by1 - by0) : Math.max(ax1 - ax0, bx1 - bx0);
  const across = horizontal ? Math.abs((ay0 + ay1) / 2 - (by0 + by1) / 2) : Math.abs((ax0 + ax1) / 2 - (bx0 + bx1) / 2);
  if (across > size * 0.5) return true;
  let gap: number;
  // Right-to-left scripts advance leftwards along an upright line.
  if (a.quarter === 0 && isRtl(a.text) && isRtl(b.text)) gap = ax0 - bx1;
  else if (a.quarter === 0) gap = bx0 - ax1;
  else if (a.quarter === 2) gap = ax0 - bx1;
  else if (a.quarter === 1) gap = by0 - ay1;
  else gap = ay0 - by1;
  // A large step backwards is a new text run placed elsewhere on the same baseline.
  return gap > size * GAP_RATIO || gap < -size * 0.6;
}


function makeWord(chars: PdfChar[]): PdfWord {
  const bbox: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  let text = '';
  let unmapped = 0;
  let bold = 0;
  const sizes: number[] = [];
  for (const c of chars) {
    text += c.text;
    bbox[0] = Math.min(bbox[0], c.x0);
    bbox[1] = Math.min(bbox[1], c.y0);
    bbox[2] = Math.max(bbox[2], c.x1);
    bbox[3] = Math.max(bbox[3], c.y1);
    if (c.unmapped || c.text === '\ufffd') unmapped++;
    if (c.bold) bold++;
    sizes.push(c.fontSize);
  }
  return {
    text,
    bbox,
    confidence: 1,
    fontSize: median(sizes),
    bold: bold * 2 > chars.length,
    font: chars[chars.length >> 1].font,
    quarter: chars[0].quarter,
    unmapped,
  };
}
