// One page's words and ruling lines → blocks in reading order, tables and key-value pairs.
// Order of work: ruled tables claim their words, then unruled tables, then the remaining text
// is cut into columns (tables stay whole inside that cut), and each column becomes blocks.
import type { BBox, Block, KeyValue, Line, Table, Word } from '../canonical/model.js';
import { type TextStyle, linesToBlocks } from './blocks.js';
import { type Frame, fromFrame, toFrame } from './frame.js';
import { pageKeyValues } from './key-values.js';
import { piecesToLines } from './lines.js';
import { type FlowItem, readingOrder } from './reading-order.js';
import { groupRows, isSidewaysRow, splitSegments, typicalHeight, typicalSpace } from './rows.js';
import { type FoundTable, findRuledTables } from './ruled-tables.js';
import { type RawRule, normaliseRules } from './rules.js';
import { rowLines, tableBlock } from './table-block.js';
import { findUnruledTables } from './unruled-tables.js';

export interface LayoutInput {
  width: number;
  height: number;
  words: Word[];
  /** Text direction of each word in clockwise quarter turns (PDF only; default upright). */
  quarters?: number[];
  rules?: RawRule[];
  /** Tops of lines that start a block whatever their spacing (upright pages only). */
  blockStarts?: number[];
}

export interface PageLayout {
  blocks: Block[];
  tables: Table[];
  key_values: KeyValue[];
}

/** Gap (× line height) that separates reading-order pieces; prose word spaces stay below it. */
const PIECE_GAP = 1.0;

export function layoutPage(input: LayoutInput, style: TextStyle): PageLayout {
  const frame: Frame = { quarter: dominantQuarter(input), width: input.width, height: input.height };
  const turn = (b: BBox) => toFrame(b, frame);
  const words = input.words.map((w) => ({ ...w, bbox: turn(w.bbox) }));
  const rules = (input.rules ?? []).map((r) => {
    const [x0, y0, x1, y1] = turn([r.x0, r.y0, r.x1, r.y1]);
    return { x0, y0, x1, y1 };
  });
  const laid = layoutUpright(words, rules, style, new Set(frame.quarter === 0 ? input.blockStarts : []));
  return frame.quarter === 0 ? laid : turnBack(laid, (b) => fromFrame(b, frame));
}

function layoutUpright(words: Word[], rules: RawRule[], style: TextStyle, blockStarts: ReadonlySet<number>): PageLayout {
  if (words.length === 0) return { blocks: [], tables: [], key_values: [] };
  const lineHeight = typicalHeight(words);
  const rows = groupRows(words);
  const space = typicalSpace(rows, lineHeight);
  const found: FoundTable[] = findRuledTables(normaliseRules(rules), words, space);
  const claimed = new Set(found.flatMap((f) => f.words));
  // Rows are grouped again only when tables took words: the same words give the same rows.
  const ruledFree = words.filter((w) => !claimed.has(w));
  const ruledFreeRows = ruledFree.length === words.length ? rows : groupRows(ruledFree);
  for (const f of findUnruledTables(ruledFreeRows.filter((r) => !isSidewaysRow(r)), lineHeight, space)) {
    found.push(f);
    for (const w of f.words) claimed.add(w);
  }
  const free = ruledFree.filter((w) => !claimed.has(w));
  const freeRows = free.length === ruledFree.length ? ruledFreeRows : groupRows(free);
  const tables = found.map((f) => f.table);
  const items: FlowItem[] = [
    ...splitSegments(freeRows, PIECE_GAP).map((s): FlowItem => ({ kind: 'text', bbox: s.bbox, words: s.words })),
    ...tables.map((t, tableIndex): FlowItem => ({ kind: 'table', bbox: t.bbox, tableIndex })),
  ];
  const blocks: Block[] = [];
  // Text runs from leaf to leaf until a table interrupts it; a leaf that starts above or beside
  // the previous one (a new column) always starts a new block.
  let run: Line[] = [];
  let breaks = new Set<number>();
  const flush = () => {
    // A loop, not push(...spread): a page of many thousand lines would overflow the call stack.
    for (const block of linesToBlocks(run, style, breaks)) blocks.push(block);
    run = [];
    breaks = new Set();
  };
  for (const leaf of readingOrder(items, lineHeight)) {
    const sorted = [...leaf].sort((a, b) => a.bbox[1] - b.bbox[1]);
    let pieces: Word[][] = [];
    const addPieces = () => {
      const lines = piecesToLines(pieces);
      const prev = run[run.length - 1];
      if (prev && lines.length > 0 && isNewColumn(prev.bbox, lines[0].bbox)) breaks.add(run.length);
      for (const line of lines) {
        if (blockStarts.has(line.bbox[1])) breaks.add(run.length);
        run.push(line);
      }
      pieces = [];
    };
    for (const item of sorted) {
      if (item.kind === 'text') pieces.push(item.words);
      else {
        addPieces();
        flush();
        blocks.push(tableBlock(tables[item.tableIndex], item.tableIndex, rowLines(found[item.tableIndex].words)));
      }
    }
    addPieces();
  }
  flush();
  return { blocks, tables, key_values: pageKeyValues(words, tables, rows) };
}

/** The next line starts above the previous one's bottom, or shares no horizontal extent with it. */
const isNewColumn = (prev: BBox, next: BBox) => next[1] < prev[3] - 1 || next[0] >= prev[2] || next[2] <= prev[0];

/** The text direction carrying most characters; ties and empty pages stay upright. */
function dominantQuarter(input: LayoutInput): number {
  if (!input.quarters) return 0;
  const chars = [0, 0, 0, 0];
  const { words, quarters } = input;
  for (let i = 0; i < words.length; i++) chars[quarters[i] ?? 0] += words[i].text.length;
  const best = chars.indexOf(Math.max(...chars));
  return chars[best] > chars[0] * 1.5 ? best : 0;
}

function turnBack(p: PageLayout, f: (b: BBox) => BBox): PageLayout {
  const line = (l: Line): Line => ({ ...l, bbox: f(l.bbox), words: l.words.map((w) => ({ ...w, bbox: f(w.bbox) })) });
  return {
    blocks: p.blocks.map((b) => ({ ...b, bbox: f(b.bbox), lines: b.lines.map(line) })),
    tables: p.tables.map((t) => ({ ...t, bbox: f(t.bbox), cells: t.cells.map((c) => ({ ...c, bbox: f(c.bbox) })) })),
    key_values: p.key_values.map((kv) => ({ ...kv, key_bbox: f(kv.key_bbox), value_bbox: f(kv.value_bbox) })),
  };
}
