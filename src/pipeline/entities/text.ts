// A flat, located view of the canonical document that the recognisers and the extractor read:
// every line as one string whose character ranges map back to word boxes, so any match in the
// text can be reported with its page and bbox. Works on the in-memory CanonicalDocument and on
// its stored JSON form (the same fields), so re-extraction needs no second parse.
import type { BBox, Block, KeyValue, Page, Table } from '../canonical/model.js';
import { unionBox } from '../layout/geometry.js';
import { foldWithMap } from './normalize.js';

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
  /** `text` folded (lower case, no accents) with a map back to positions in `text`: what labels are matched against. */
  folded: { text: string; map: number[] };
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

const round = (b: BBox): BBox => b.map((v) => Math.round(v * 100) / 100) as BBox;

type Cell = Table['cells'][number];

function cellOf(cells: Cell[], box: BBox): { row: number; col: number } | null {
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  const cell = cells.find((c) => cx >= c.bbox[0] - 0.5 && cx <= c.bbox[2] + 0.5 && cy >= c.bbox[1] - 0.5 && cy <= c.bbox[3] + 0.5);
  return cell ? { row: cell.row, col: cell.col } : null;
}

/** The cells of a table row, with how far down and up they reach (as cellsAlong tests them). */
interface RowBand {
  top: number;
  bottom: number;
  cells: { cell: Cell; index: number }[];
}

function rowBands(table: Table): RowBand[] {
  const bands = new Map<number, RowBand>();
  table.cells.forEach((cell, index) => {
    const band = bands.get(cell.row) ?? { top: Infinity, bottom: -Infinity, cells: [] };
    bands.set(cell.row, band);
    // (Comparisons skip a NaN, which a Math.min would spread to the whole row.)
    if (cell.bbox[1] - 0.5 < band.top) band.top = cell.bbox[1] - 0.5;
    if (cell.bbox[3] + 0.5 > band.bottom) band.bottom = cell.bbox[3] + 0.5;
    band.cells.push({ cell, index });
  });
  return [...bands.values()];
}

/**
 * The cells (in table order) that the words of a line can fall in: those level with the words'
 * centres. Rows are tested first: a line crosses a few of a table's many cells.
 */
function cellsAlong(table: Table | undefined, words: { bbox: BBox }[], bandsOf: (table: Table) => RowBand[]): Cell[] {
  if (!table) return [];
  let low = Infinity;
  let high = -Infinity;
  for (const w of words) {
    const cy = (w.bbox[1] + w.bbox[3]) / 2;
    if (cy < low) low = cy;
    if (cy > high) high = cy;
  }
  const found: { cell: Cell; index: number }[] = [];
  for (const band of bandsOf(table)) {
    if (!(band.top <= high && band.bottom >= low)) continue;
    for (const c of band.cells) if (c.cell.bbox[1] - 0.5 <= high && c.cell.bbox[3] + 0.5 >= low) found.push(c);
  }
  return found.sort((a, b) => a.index - b.index).map((c) => c.cell);
}

/** Whether a word holds white space (`/\s/`), asking the regex only about a control or non-ASCII character: most words are plain. */
function hasSpace(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c <= 32 || c >= 127) return /\s/.test(word);
  }
  return false;
}

/**
 * Builds the lines of every page in reading order. In a table row, words of different cells are
 * joined by " | ", so a value read after a label stops at its cell.
 */
export function textLines(doc: DocInput): TextLine[] {
  const out: TextLine[] = [];
  const bands = new Map<Table, RowBand[]>();
  const bandsOf = (table: Table) => {
    let b = bands.get(table);
    if (!b) bands.set(table, (b = rowBands(table)));
    return b;
  };
  for (const page of doc.pages) {
    page.blocks.forEach((block, blockIndex) => {
      const table = block.type === 'table' && block.table_index !== undefined ? page.tables[block.table_index] : undefined;
      for (const line of block.lines) {
        const words: PlacedWord[] = [];
        // The text is joined once at the end: a string grown word by word is a rope that every
        // later search of the line would first have to flatten.
        const parts: string[] = [];
        let length = 0;
        let lastCell: { row: number; col: number } | null = null;
        let row: number | undefined;
        const source = line.words.length ? line.words : [{ text: line.text, bbox: line.bbox, confidence: 1 }];
        // Only the cells level with the line are searched (a table has many; a line crosses a few).
        const cells = cellsAlong(table, source, bandsOf);
        for (const w of source) {
          const t = hasSpace(w.text) ? w.text.replace(/\s+/g, ' ').trim() : w.text;
          if (!t) continue;
          const cell = table ? cellOf(cells, w.bbox) : null;
          if (cell) row ??= cell.row;
          if (length) {
            const gap = lastCell && cell && lastCell.col !== cell.col ? ' | ' : ' ';
            parts.push(gap);
            length += gap.length;
          }
          if (cell) lastCell = cell;
          words.push({ text: t, bbox: w.bbox, confidence: w.confidence ?? 1, start: length, end: length + t.length });
          parts.push(t);
          length += t.length;
        }
        if (!length) continue;
        const text = parts.join('');
        const folded = foldWithMap(text);
        const inTable = block.type === 'table';
        out.push(
          row !== undefined
            ? { page: page.page_number, text, folded, bbox: line.bbox, words, block: blockIndex, inTable, tableRow: row, order: out.length }
            : { page: page.page_number, text, folded, bbox: line.bbox, words, block: blockIndex, inTable, order: out.length },
        );
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

/**
 * locate and rangeConfidence of one range in a single pass over the line's words (the same box,
 * min and max taken in the same order, and the same sum): every entity of a document needs both.
 */
export function locateWithConfidence(line: TextLine, start: number, end: number): { evidence: Evidence; confidence: number } {
  let box: BBox | null = null;
  let x0 = 0;
  let y0 = 0;
  let x1 = 0;
  let y1 = 0;
  let sum = 0;
  let count = 0;
  for (const w of line.words) {
    if (!(w.end > start && w.start < end)) continue;
    const b = w.bbox;
    if (!box) [x0, y0, x1, y1] = box = b;
    x0 = Math.min(x0, b[0]);
    y0 = Math.min(y0, b[1]);
    x1 = Math.max(x1, b[2]);
    y1 = Math.max(y1, b[3]);
    sum += w.confidence;
    count++;
  }
  const evidence = { page: line.page, bbox: round(box ? [x0, y0, x1, y1] : line.bbox), text: line.text.slice(start, end) };
  return { evidence, confidence: count ? sum / count : 1 };
}

export type { BBox, KeyValue, Table };
