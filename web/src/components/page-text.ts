// Where and how large a page's words are drawn when the page has no image (a PPTX slide, a text
// file): each word at its box, at a size that fits the box. A table's cells are words with the
// cell's box, so a size fitted to each cell alone would draw one row's cells at different sizes;
// the cells of one row share the smallest size that fits every one of them.
import type { BBox, CanonicalPage } from './PageView';

export interface PlacedText {
  text: string;
  x: number;
  /** The baseline. */
  y: number;
  size: number;
  /** The width the text is drawn to (SVG textLength), when its box has one. */
  width?: number;
}

/** Average advance of a character, in ems: how wide a word is guessed to be before it is drawn. */
const EM_PER_CHAR = 0.5;

/**
 * The largest size a word fits its box at: three quarters of the box's height (a box taller than
 * a line, a table cell, would otherwise draw letters as tall as the cell), and no wider than the box.
 */
function fittingSize(text: string, [x0, y0, x1, y1]: BBox): number {
  const byHeight = y1 - y0 > 0 ? (y1 - y0) * 0.75 : 10;
  return x1 > x0 && text.length > 0 ? Math.min(byHeight, (x1 - x0) / (text.length * EM_PER_CHAR)) : byHeight;
}

function place(text: string, bbox: BBox, size: number, shared: boolean): PlacedText {
  const [x0, y0, x1, y1] = bbox;
  // The text stands at the top of its box (a cell's text at the cell's top, not in its middle).
  const y = y1 > y0 ? Math.min(y1 - (y1 - y0) * 0.25, y0 + size * 1.1) : y0;
  if (!(x1 > x0)) return { text, x: x0, y, size };
  // A word fills its own box; a cell drawn smaller than its own fit keeps its letters' width
  // (the guessed width at the shared size), instead of being stretched across the cell.
  const width = shared ? Math.min(x1 - x0, text.length * EM_PER_CHAR * size) : x1 - x0;
  return { text, x: x0, y, size, width };
}

export function pageTexts(page: Pick<CanonicalPage, 'blocks'>): PlacedText[] {
  return page.blocks.flatMap((b) =>
    b.lines.flatMap((line) => {
      const sizes = line.words.map((w) => fittingSize(w.text, w.bbox));
      // A table block's lines are its rows (src/pipeline/layout/table-block.ts).
      if (b.type !== 'table' || line.words.length < 2) return line.words.map((w, i) => place(w.text, w.bbox, sizes[i]!, false));
      const rowSize = Math.min(...sizes);
      return line.words.map((w) => place(w.text, w.bbox, rowSize, true));
    }),
  );
}
