// The canonical document on the wire: exactly the `result.canonical` shape of spec/decisions.md
// ({pages: [{page_number, width, height, source, blocks, tables, key_values}], text, markdown}),
// with internal layout fields (font size, boldness, text direction) left out and every
// coordinate rounded to 0.01 pt.
import { roundBox } from '../layout/geometry.js';
import type { Block, CanonicalDocument, KeyValue, Line, Page, Table, Word } from './model.js';

export interface CanonicalJson {
  pages: PageJson[];
  text: string;
  markdown: string;
}

type PageJson = Pick<Page, 'page_number' | 'width' | 'height' | 'source' | 'blocks' | 'tables' | 'key_values'>;

export function toCanonicalJson(doc: CanonicalDocument): CanonicalJson {
  return { pages: doc.pages.map(page), text: doc.text, markdown: doc.markdown };
}

const r2 = (v: number) => Math.round(v * 100) / 100;

function page(p: Page): PageJson {
  return {
    page_number: p.page_number,
    width: r2(p.width),
    height: r2(p.height),
    source: p.source,
    blocks: p.blocks.map(block),
    tables: p.tables.map(table),
    key_values: p.key_values.map(keyValue),
  };
}

function block(b: Block): Block {
  const out: Block = { type: b.type, text: b.text, bbox: roundBox(b.bbox), confidence: r2(b.confidence), lines: b.lines.map(line) };
  if (b.level !== undefined) out.level = b.level;
  if (b.table_index !== undefined) out.table_index = b.table_index;
  return out;
}

const line = (l: Line): Line => ({ text: l.text, bbox: roundBox(l.bbox), words: l.words.map(word) });
const word = (w: Word): Word => ({ text: w.text, bbox: roundBox(w.bbox), confidence: r2(w.confidence) });

const table = (t: Table): Table => ({
  bbox: roundBox(t.bbox),
  rows: t.rows,
  cols: t.cols,
  kind: t.kind,
  confidence: r2(t.confidence),
  cells: t.cells.map((c) => ({ row: c.row, col: c.col, row_span: c.row_span, col_span: c.col_span, text: c.text, bbox: roundBox(c.bbox) })),
});

const keyValue = (kv: KeyValue): KeyValue => ({
  key: kv.key,
  value: kv.value,
  key_bbox: roundBox(kv.key_bbox),
  value_bbox: roundBox(kv.value_bbox),
  confidence: r2(kv.confidence),
});
