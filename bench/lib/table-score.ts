// Table cell accuracy against camelot's expected tables (tables-camelot/expected_tables.json).
// Expected cells follow camelot's conventions (text of a spanning cell in its top-left position,
// "" elsewhere, "\n" inside cells), so cells are compared after removing all whitespace.
// Two scores per expected table, against the best-matching table found on the page:
// - `position`: share of non-empty expected cells found in the same column of the matching row,
//   rows matched in order (a dynamic-programming alignment, so a header kept in one cell instead
//   of split over text rows, or a title row kept or dropped, costs only those rows), with the
//   columns allowed to shift by up to two;
// - `content`: share of non-empty expected cells found anywhere in that table (multiset).
import { readFileSync } from 'node:fs';
import type { Table } from '../../src/pipeline/index.js';

export const CAMELOT = new URL('../../../shared/data/tables-camelot/', import.meta.url);

export interface TableCase {
  name: string;
  flavor: 'lattice' | 'stream';
  file: string;
  page: number;
  expected: string[];
}

/** A fixed selection of manifest.json cases: different producers, spans, two tables a page, rotation. */
export const TABLE_CASES: TableCase[] = [
  { name: 'lattice', flavor: 'lattice', file: 'tabula/icdar2013-dataset/competition-dataset-us/us-030.pdf', page: 2, expected: ['data_lattice'] },
  { name: 'lattice_two_tables', flavor: 'lattice', file: 'twotables_2.pdf', page: 1, expected: ['data_lattice_two_tables_1', 'data_lattice_two_tables_2'] },
  { name: 'lattice_column_span', flavor: 'lattice', file: 'column_span_2.pdf', page: 1, expected: ['data_lattice_shift_text_left_top'] },
  { name: 'lattice_background', flavor: 'lattice', file: 'background_lines_1.pdf', page: 1, expected: ['data_lattice_process_background'] },
  { name: 'lattice_rotated_cw', flavor: 'lattice', file: 'clockwise_table_1.pdf', page: 1, expected: ['data_lattice_table_rotated'] },
  { name: 'lattice_rotated_acw', flavor: 'lattice', file: 'anticlockwise_table_1.pdf', page: 1, expected: ['data_lattice_table_rotated'] },
  { name: 'lattice_split_text', flavor: 'lattice', file: 'split_text_lattice.pdf', page: 1, expected: ['data_lattice_split_text'] },
  { name: 'stream', flavor: 'stream', file: 'health.pdf', page: 1, expected: ['data_stream'] },
  { name: 'stream_two_tables', flavor: 'stream', file: 'tabula/12s0324.pdf', page: 1, expected: ['data_stream_two_tables_1', 'data_stream_two_tables_2'] },
  { name: 'stream_rotated_cw', flavor: 'stream', file: 'clockwise_table_2.pdf', page: 1, expected: ['data_stream_table_rotated'] },
  { name: 'stream_rotated_acw', flavor: 'stream', file: 'anticlockwise_table_2.pdf', page: 1, expected: ['data_stream_table_rotated'] },
  { name: 'stream_edge_tol', flavor: 'stream', file: 'edge_tol.pdf', page: 1, expected: ['data_stream_edge_tol'] },
  { name: 'stream_inner_outer_columns', flavor: 'stream', file: 'stream_inner_outer_columns.pdf', page: 1, expected: ['data_stream_inner_outer_columns'] },
  { name: 'stream_menu', flavor: 'stream', file: 'detect_vertical_false.pdf', page: 1, expected: ['data_stream_layout_kwargs'] },
  { name: 'stream_multiple_tables', flavor: 'stream', file: 'multiple_tables.pdf', page: 1, expected: ['data_network_two_tables_b_1', 'data_network_two_tables_b_2'] },
];

let expectedCache: Record<string, string[][]> | undefined;
export function expectedTable(name: string): string[][] {
  expectedCache ??= JSON.parse(readFileSync(new URL('expected_tables.json', CAMELOT), 'utf8')) as Record<string, string[][]>;
  const t = expectedCache[name];
  if (!t) throw new Error(`no expected table ${name}`);
  return t;
}

const norm = (s: string) => s.replace(/\s+/g, '');

/** The table as rows of cell strings, a spanning cell's text in its top-left position. */
export function toGrid(t: Table): string[][] {
  const grid = Array.from({ length: t.rows }, () => new Array<string>(t.cols).fill(''));
  for (const c of t.cells) if (grid[c.row]) grid[c.row][c.col] = c.text;
  return grid;
}

export interface CellScore {
  total: number;
  position: number;
  content: number;
}

export function scoreGrid(expected: string[][], actual: string[][]): CellScore {
  const exp = expected.map((row) => row.map(norm));
  const act = actual.map((row) => row.map(norm));
  const total = exp.reduce((n, row) => n + row.filter((c) => c !== '').length, 0);
  let position = 0;
  for (let dc = -2; dc <= 2; dc++) position = Math.max(position, alignedHits(exp, act, dc));
  const pool = new Map<string, number>();
  for (const row of act) for (const cell of row) pool.set(cell, (pool.get(cell) ?? 0) + 1);
  let content = 0;
  for (const row of exp)
    for (const text of row) {
      const n = text === '' ? 0 : pool.get(text) ?? 0;
      if (n > 0) (content++, pool.set(text, n - 1));
    }
  return { total, position, content };
}

/** Best in-order matching of expected rows to actual rows; a pair scores its equal cells. */
function alignedHits(exp: string[][], act: string[][], dc: number): number {
  const hits = (i: number, j: number) => exp[i].filter((t, c) => t !== '' && act[j][c + dc] === t).length;
  const best = Array.from({ length: exp.length + 1 }, () => new Array<number>(act.length + 1).fill(0));
  for (let i = 1; i <= exp.length; i++)
    for (let j = 1; j <= act.length; j++) {
      best[i][j] = Math.max(best[i - 1][j], best[i][j - 1], best[i - 1][j - 1] + hits(i - 1, j - 1));
    }
  return best[exp.length][act.length];
}

/**
 * Scores each expected table against the best table found, or against all tables found on the
 * page stacked top to bottom (a table we split at its section headings); none found scores 0.
 */
export function scoreCase(expectedNames: string[], found: Table[]): CellScore {
  const sum: CellScore = { total: 0, position: 0, content: 0 };
  const stacked = [...found].sort((a, b) => a.bbox[1] - b.bbox[1]).flatMap(toGrid);
  for (const name of expectedNames) {
    const exp = expectedTable(name);
    const candidates = [...found.map(toGrid), ...(found.length > 1 && expectedNames.length === 1 ? [stacked] : [])];
    const best = candidates
      .map((grid) => scoreGrid(exp, grid))
      .sort((a, b) => b.position + b.content - (a.position + a.content))[0] ?? { ...scoreGrid(exp, []), position: 0, content: 0 };
    sum.total += best.total;
    sum.position += best.position;
    sum.content += best.content;
  }
  return sum;
}
