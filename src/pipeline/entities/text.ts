// A flat, located view of the canonical document that the recognisers and the extractor read:
// every line as one string whose character ranges map back to word boxes, so any match in the
// text can be reported with its page and bbox. Works on the in-memory CanonicalDocument and on
// its stored JSON form (the same fields), so re-extraction needs no second parse.
import type { BBox, Block, KeyValue, Page, Table } from '../canonical/model.js';

/** The parts of a canonical page the later stages read (CanonicalDocument and CanonicalJson both fit). */
export type DocPage = Pick<Page, 'page_number' | 'width' | 'height' | 'key_values'> & {
  blocks: Pick<Block, 'type' | 'text' | 'bbox' | 'lines' | 'table_index'>[];
  tables: Table[];
};

export interface DocInput {
  pages: DocPage[];
}

export interface PlacedWord {
  text: string;
  bbox: BBox;
  confidence: number;
  /** Character range of the word in its line's `text`. */
  start: number;
  end: number;
}

export interface TextLine {
  page: number;
  /** Words joined by single spaces. */
  text: string;
  bbox: BBox;
  words: PlacedWord[];
  /** Index of the block in the page, and the block's kind (a table row is a line of a table block). */
  block: number;
  inTable: boolean;
  /** Row of the table this line is, when the block is a table. */
  tableRow?: number;
  /** Reading-order position over the whole document. */
  order: number;
}

export interface Evidence {
  page: number;
  bbox: BBox;
  text: string;
}

export function unionBox(boxes: BBox[]): BBox {
  if (!boxes.length) return [0, 0, 0, 0];
  let [x0, y0, x1, y1] = boxes[0]!;
  for (const b of boxes) {
    x0 = Math.min(x0, b[0]);
    y0 = Math.min(y0, b[1]);
    x1 = Math.max(x1, b[2]);
    y1 = Math.max(y1, b[3]);
  }
  return [x0, y0, x1, y1];
}

const round = (b: BBox): BBox => b.map((v) => Math.round(v * 100) / 100) as BBox;

function cellOf(table: Table | undefined, box: BBox): { row: number; col: number } | null {
  if (!table) return null;
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  const cell = table.cells.find((c) => cx >= c.bbox[0] - 0.5 && cx <= c.bbox[2] + 0.5 && cy >= c.bbox[1] - 0.5 && cy <= c.bbox[3] + 0.5);
  return cell ? { row: cell.row, col: cell.col } : null;
}

/**
 * Builds the lines of every page in reading order. In a table row, words of different cells are
 * joined by " | ", so a value read after a label stops at its cell.
 */
export function textLines(doc: DocInput): TextLine[] {
  const out: TextLine[] = [];
  for (const page of doc.pages) {
    page.blocks.forEach((block, blockIndex) => {
      const table = block.type === 'table' && block.table_index !== undefined ? page.tables[block.table_index] : undefined;
      for (const line of block.lines) {
        const words: PlacedWord[] = [];
        let text = '';
        let lastCell: { row: number; col: number } | null = null;
        let row: number | undefined;
        const source = line.words.length ? line.words : [{ text: line.text, bbox: line.bbox, confidence: 1 }];
        for (const w of source) {
          const t = w.text.replace(/\s+/g, ' ').trim();
          if (!t) continue;
          const cell = cellOf(table, w.bbox);
          if (cell) row ??= cell.row;
          if (text) text += lastCell && cell && lastCell.col !== cell.col ? ' | ' : ' ';
          if (cell) lastCell = cell;
          words.push({ text: t, bbox: w.bbox, confidence: w.confidence ?? 1, start: text.length, end: text.length + t.length });
          text += t;
        }
        if (!text) continue;
        out.push({ page: page.page_number, text, bbox: line.bbox, words, block: blockIndex, inTable: block.type === 'table', ...(row !== undefined ? { tableRow: row } : {}), order: out.length });
      }
    });
  }
  return out;
}

/** The words of `line` that overlap the character range [start, end). */
export function wordsIn(line: TextLine, start: number, end: number): PlacedWord[] {
  return line.words.filter((w) => w.end > start && w.start < end);
}

/** Page, box and text of a character range of a line. */
export function locate(line: TextLine, start: number, end: number): Evidence {
  const words = wordsIn(line, start, end);
  return { page: line.page, bbox: round(words.length ? unionBox(words.map((w) => w.bbox)) : line.bbox), text: line.text.slice(start, end) };
}

/** Mean OCR/text-layer confidence of the words behind a range (1 for digital text). */
export function rangeConfidence(line: TextLine, start: number, end: number): number {
  const words = wordsIn(line, start, end);
  if (!words.length) return 1;
  return words.reduce((s, w) => s + w.confidence, 0) / words.length;
}

export type { BBox, KeyValue, Table };
