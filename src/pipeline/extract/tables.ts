// Arrays of objects (line items) from tables: a table whose header row names the array's columns
// gives one item per row below the header; rows that only continue the description are joined to
// the item above; a totals row ends the list. A table on a later page with the same columns and no
// header of its own continues the list (line items across pages).
import type { DocPage, Evidence, TextLine } from '../entities/text.js';
import { locate } from '../entities/text.js';
import { NUMBER_SOURCE } from '../entities/numbers.js';
import type { Table, TableCell } from '../canonical/model.js';
import { type CoerceContext, coerce } from './coerce.js';
import { continueDescription, sectionItem } from './line-items.js';
import { type FieldSpec, findLabelIn, labelText, labelTextSimilarity, labelsMayBeIn, matchLabelIn } from './schema-fields.js';
import { CARRIED_ROW, TOTAL_ROW } from './vocabulary.js';

export interface ItemCell {
  value: unknown;
  confidence: number;
  evidence: Evidence[];
}

export type Item = Record<string, ItemCell>;

interface Mapping {
  /** Column index of each column field (by the field's key). */
  columns: Map<string, { col: number; sim: number }>;
  headerRow: number;
  cols: number;
  xs: number[];
}

const r3 = (v: number) => Math.round(Math.max(0, Math.min(1, v)) * 1000) / 1000;

function grid(table: Table): (TableCell | undefined)[][] {
  const rows: (TableCell | undefined)[][] = Array.from({ length: table.rows }, () => Array<TableCell | undefined>(table.cols).fill(undefined));
  for (const c of table.cells) if (rows[c.row]) rows[c.row]![c.col] = c;
  return rows;
}

/** How well a header cell, as label text, names a column field (null: a cell too long to be a label). */
const headerSimilarity = (field: FieldSpec, key: string | null) => (key === null ? 0 : labelTextSimilarity(field, key, 0.55, 0.35));

function columnXs(table: Table, row: number): number[] {
  return table.cells.filter((c) => c.row === row).sort((a, b) => a.col - b.col).map((c) => c.bbox[0]);
}

/** Finds the header row among the first three and maps each column field to a column. */
function mapHeader(table: Table, columns: FieldSpec[]): Mapping | null {
  const rows = grid(table);
  let best: Mapping | null = null;
  let bestScore = 0;
  for (let r = 0; r < Math.min(3, rows.length - 1); r++) {
    const pairs: { key: string; col: number; sim: number }[] = [];
    // Each cell read as label text once, for every column field.
    const keys = rows[r]!.map((cell) => (cell && cell.text.length <= 80 ? labelText(cell.text) : null));
    for (const field of columns) {
      rows[r]!.forEach((cell, col) => {
        if (!cell) return;
        const sim = headerSimilarity(field, keys[col] ?? null);
        if (sim >= 0.5) pairs.push({ key: field.key, col, sim });
      });
    }
    pairs.sort((a, b) => b.sim - a.sim);
    // A header cell naming several columns ("Prijs BTW Hoeveelheid Bedrag") merges them: its values cannot be told apart.
    const merged = new Set([...new Set(pairs.map((p) => p.col))].filter((col) => new Set(pairs.filter((p) => p.col === col).map((p) => p.key)).size >= 3));
    for (let i = pairs.length - 1; i >= 0; i--) if (merged.has(pairs[i]!.col)) pairs.splice(i, 1);
    const mapping = new Map<string, { col: number; sim: number }>();
    const used = new Set<number>();
    for (const p of pairs) {
      if (mapping.has(p.key) || used.has(p.col)) continue;
      mapping.set(p.key, { col: p.col, sim: p.sim });
      used.add(p.col);
    }
    const score = [...mapping.values()].reduce((s, m) => s + m.sim, 0);
    const needed = Math.min(2, columns.length);
    if (mapping.size >= needed && score > bestScore) {
      bestScore = score;
      best = { columns: mapping, headerRow: r, cols: table.cols, xs: columnXs(table, r) };
    }
  }
  return best;
}

/**
 * The header printed just above a table that layout did not include in it ("Artikel Aantal Prijs
 * …" over the rows): each column field whose label is on that line takes the table column under it.
 */
function headerAbove(table: Table, page: number, lines: TextLine[], columns: FieldSpec[]): Mapping | null {
  const top = table.bbox[1];
  const candidates = lines.filter((l) => l.page === page && !l.inTable && l.bbox[3] <= top + 3 && l.bbox[3] >= top - 60).sort((a, b) => b.bbox[3] - a.bbox[3]);
  for (const line of candidates.slice(0, 3)) {
    const found = headerFromLine(table, line, columns);
    if (found) return found;
  }
  return null;
}

function headerFromLine(table: Table, line: TextLine, columns: FieldSpec[]): Mapping | null {
  const { text: folded, map } = line.folded;
  const ranges = Array.from({ length: table.cols }, (_, col) => {
    const cells = table.cells.filter((c) => c.col === col);
    return cells.length ? [Math.min(...cells.map((c) => c.bbox[0])), Math.max(...cells.map((c) => c.bbox[2]))] : null;
  });
  const mapping = new Map<string, { col: number; sim: number }>();
  const used = new Set<number>();
  for (const field of columns) {
    const m = matchLabelIn(field, folded);
    if (!m) continue;
    const box = locate(line, map[m.index]!, map[m.index + m.length - 1]! + 1).bbox;
    const centre = (box[0] + box[2]) / 2;
    let best = -1;
    let distance = Infinity;
    ranges.forEach((r, col) => {
      if (!r || used.has(col)) return;
      const d = centre < r[0] ? r[0] - centre : centre > r[1] ? centre - r[1] : 0;
      if (d < distance) {
        distance = d;
        best = col;
      }
    });
    if (best >= 0 && distance < 40) {
      mapping.set(field.key, { col: best, sim: m.weight * 0.9 });
      used.add(best);
    }
  }
  if (mapping.size < Math.min(2, columns.length)) return null;
  return { columns: mapping, headerRow: -1, cols: table.cols, xs: columnXs(table, 0) };
}

function continues(table: Table, previous: Mapping): boolean {
  if (table.cols !== previous.cols) return false;
  const xs = columnXs(table, 0);
  return xs.length === previous.xs.length && xs.every((x, i) => Math.abs(x - previous.xs[i]!) < 20);
}

function rowItems(page: DocPage, table: Table, mapping: Mapping, fromRow: number, columns: FieldSpec[], ctx: CoerceContext, items: Item[]): boolean {
  const rows = grid(table);
  const textFields = columns.filter((c) => c.type === 'string' && mapping.columns.has(c.key));
  const describing = textFields.find((c) => c.concept?.id === 'description') ?? textFields[0];
  for (let r = fromRow; r < rows.length; r++) {
    const row = rows[r]!;
    const firstText = row.find((c) => c && c.text.trim())?.text.trim() ?? '';
    if (!firstText) continue;
    if (CARRIED_ROW.test(firstText) || CARRIED_ROW.test(labelText(firstText))) continue;
    if (TOTAL_ROW.test(labelText(firstText)) || TOTAL_ROW.test(firstText)) return false;
    const item: Item = {};
    let filled = 0;
    for (const field of columns) {
      const m = mapping.columns.get(field.key);
      if (!m) continue;
      const cell = row[m.col];
      if (!cell || !cell.text.trim()) continue;
      const c = coerce(field, cell.text, ctx);
      if (!c) continue;
      item[field.key] = {
        value: c.value,
        confidence: r3((0.6 + 0.35 * m.sim) * c.fit),
        evidence: [{ page: page.page_number, bbox: cell.bbox, text: cell.text.slice(c.start, c.end) }],
      };
      filled++;
    }
    if (!filled) continue;
    // A row with only the description filled continues the item above.
    const onlyText = describing && filled === 1 && item[describing.key] && items.length > 0 && columns.some((c) => c.type !== 'string' && mapping.columns.has(c.key));
    if (onlyText) {
      const prev = items[items.length - 1]!;
      const cell = item[describing.key]!;
      const heading = sectionItem(cell, columns);
      if (heading) {
        items.push(heading);
        continue;
      }
      if (prev[describing.key]) {
        continueDescription(prev, cell, describing, columns);
        continue;
      }
    }
    items.push(item);
  }
  return true;
}

/**
 * Items of an array-of-objects field from the tables of the given pages, in page order.
 * `mapping` carries the header mapping across calls (chunks), so a table continued on a later
 * page without its header is still read.
 */
export function tableItems(field: FieldSpec, pages: DocPage[], lines: TextLine[], ctx: CoerceContext, carry: { mapping: Mapping | null } = { mapping: null }): Item[] {
  const columns = field.columns ?? [];
  const items: Item[] = [];
  if (!columns.length) return items;
  for (const page of pages) {
    for (const table of page.tables) {
      const header = mapHeader(table, columns) ?? (carry.mapping && continues(table, carry.mapping) ? null : headerAbove(table, page.page_number, lines, columns));
      if (header) {
        carry.mapping = header;
        const open = rowItems(page, table, header, header.headerRow + 1, columns, ctx, items);
        if (!open) carry.mapping = { ...header, cols: -1 };
        continue;
      }
      if (carry.mapping && continues(table, carry.mapping)) {
        const open = rowItems(page, table, carry.mapping, 0, columns, ctx, items);
        if (!open) carry.mapping = { ...carry.mapping, cols: -1 };
      }
    }
  }
  return items;
}

export type { Mapping as TableMapping };


/**
 * Line items without table structure (table-aware extraction off, or no table names the columns):
 * a line naming at least two of the columns is the header; each following line until a totals
 * line is an item whose text before its first number is the description and whose numbers fill
 * the numeric columns in the order the header names them (aligned from the right).
 */
export function lineItems(field: FieldSpec, lines: TextLine[], ctx: CoerceContext): Item[] {
  const columns = field.columns ?? [];
  const numeric = columns.filter((c) => c.type === 'number' || c.type === 'integer');
  const describing = columns.find((c) => c.type === 'string' && c.concept?.id === 'description') ?? columns.find((c) => c.type === 'string');
  const items: Item[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A header is a short line naming at least two columns.
    if (lines[i]!.words.length > 16) continue;
    const folded = lines[i]!.folded.text;
    const named = labelsMayBeIn(columns, folded);
    const found = columns.map((c, k) => ({ c, at: named[k] ? findLabelIn(c, folded) : -1 })).filter((x) => x.at >= 0);
    if (found.length < Math.min(2, columns.length)) continue;
    const order = numeric.filter((c) => found.some((f) => f.c === c)).sort((a, b) => found.find((f) => f.c === a)!.at - found.find((f) => f.c === b)!.at);
    for (let j = i + 1; j < lines.length && lines[j]!.page === lines[i]!.page; j++) {
      const line = lines[j]!;
      if (CARRIED_ROW.test(line.text) || CARRIED_ROW.test(labelText(line.text))) continue;
      if (TOTAL_ROW.test(labelText(line.text))) return items;
      const numbers = [...line.text.matchAll(new RegExp(NUMBER_SOURCE, 'g'))].filter((m) => !/^[./-]\d/.test(line.text.slice(m.index! + m[0].length)));
      if (!numbers.length) continue;
      const item: Item = {};
      const first = numbers[0]!.index!;
      if (describing && first > 0) {
        const text = line.text.slice(0, first).trim();
        if (text) item[describing.key] = { value: text, confidence: 0.5, evidence: [locate(line, 0, text.length)] };
      }
      // slice(-0) would take every number: with no numeric column named, none is assigned.
      const assigned = order.length ? numbers.slice(-order.length) : [];
      const offset = order.length - assigned.length;
      assigned.forEach((m, k) => {
        const col = order[k + offset]!;
        const c = coerce(col, m[0], ctx);
        if (c) item[col.key] = { value: c.value, confidence: 0.5, evidence: [locate(line, m.index!, m.index! + m[0].length)] };
      });
      if (Object.keys(item).length) items.push(item);
    }
    return items;
  }
  return items;
}
