// PPTX files carry text and shape boxes but no glyph positions (the renderer lays text out at
// display time). Lines and words therefore get estimated boxes: lines stacked from the top of
// their shape at 1.2× the font size, words advancing 0.5 em per character and wrapping at the
// shape's width. Good enough to show where text sits and to order it; not glyph-exact.
import type { BBox, Line, Word } from '../../canonical/model.js';
import { union } from '../../layout/geometry.js';

const INSET = 7.2; // default bodyPr lIns/tIns: 91440 EMU = 0.1 in

export interface Cursor {
  y: number;
}

/** Lays `text` (with "\n" line breaks) out inside `box` from `cursor.y`, advancing it. */
export function layoutText(text: string, box: BBox, size: number, cursor: Cursor, bold = false): Line[] {
  const lines: Line[] = [];
  const left = box[0] + INSET;
  const right = Math.max(left + size * 4, box[2] - INSET);
  const advance = size * 0.5;
  const lineHeight = size * 1.2;
  for (const hardLine of text.split('\n')) {
    let words: Word[] = [];
    let x = left;
    const flush = () => {
      if (words.length > 0) lines.push({ text: words.map((w) => w.text).join(' '), bbox: union(words.map((w) => w.bbox)), words });
      words = [];
      x = left;
      cursor.y += lineHeight;
    };
    for (const token of hardLine.split(/\s+/).filter((t) => t !== '')) {
      const w = token.length * advance;
      if (words.length > 0 && x + w > right) flush();
      const bbox: BBox = [x, cursor.y, x + w, cursor.y + lineHeight];
      words.push({ text: token, bbox, confidence: 1, fontSize: size, bold });
      x += w + advance;
    }
    flush();
  }
  return lines;
}

export const startCursor = (box: BBox): Cursor => ({ y: box[1] + INSET / 2 });
