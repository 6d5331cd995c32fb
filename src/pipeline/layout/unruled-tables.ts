// Unruled tables: runs of rows that break into several wide-gapped pieces, whose words leave
// the same vertical whitespace gutters free (camelot's "stream" idea, done on word x-extents).
// One table row per text row, as camelot's stream output does; wrapped cells stay split.
import type { BBox, TableCell, Word } from '../canonical/model.js';
import { centerX, union } from './geometry.js';
import { cellText } from './cell-text.js';
import { textGutters } from './gutters.js';
import type { FoundTable } from './ruled-tables.js';
import { type Row, splitSegments } from './rows.js';

/** Gap (× line height) that makes a row "broken into pieces": about three spaces. */
const PIECE_GAP = 0.9;
/** Narrowest gutter between columns, in word spaces. */
const MIN_GUTTER = 1.6;
const MIN_ROWS = 3;
/** Prose lines in a two-column page hold many words per piece; table cells hold few. */
const MAX_WORDS_PER_CELL = 4;

export function findUnruledTables(rows: readonly Row[], lineHeight: number, space: number): FoundTable[] {
  const pieces = splitSegments(rows, PIECE_GAP);
  const count = new Array<number>(rows.length).fill(0);
  for (const p of pieces) count[p.row]++;
  const out: FoundTable[] = [];
  for (const run of candidateRuns(rows, count, lineHeight)) {
    const found = tableFromRun(run, space);
    if (found) out.push(found);
  }
  return out;
}

/** Maximal runs of broken rows, bridging at most two whole rows (a wrapped header or cell). */
function candidateRuns(rows: readonly Row[], count: number[], h: number): Row[][] {
  const runs: Row[][] = [];
  let run: Row[] = [];
  let pending: Row[] = [];
  const close = () => {
    if (run.length >= MIN_ROWS) runs.push(run);
    run = [];
    pending = [];
  };
  rows.forEach((row, i) => {
    const last = pending[pending.length - 1] ?? run[run.length - 1];
    if (last && row.bbox[1] - last.bbox[3] > 2.5 * h) close();
    if (count[i] >= 2) {
      run.push(...pending, row);
      pending = [];
    } else if (run.length > 0 && pending.length < 2) pending.push(row);
    else close();
  });
  close();
  return runs;
}

function tableFromRun(rows: Row[], space: number): FoundTable | null {
  const words = rows.flatMap((r) => r.words);
  const bbox = union(words.map((w) => w.bbox));
  const bounds = [bbox[0], ...textGutters(rows, bbox, MIN_GUTTER * space), bbox[2]];
  if (bounds.length < 3) return null;
  const cols = bounds.length - 1;
  const colOf = (w: Word) => {
    const x = centerX(w.bbox);
    let c = 0;
    while (c < cols - 1 && x > bounds[c + 1]) c++;
    return c;
  };
  const cells: TableCell[] = [];
  let filledRows = 0;
  let wordsInCells = 0;
  let filledCells = 0;
  rows.forEach((row, r) => {
    const byCol: Word[][] = Array.from({ length: cols }, () => []);
    for (const w of row.words) byCol[colOf(w)].push(w);
    let filled = 0;
    byCol.forEach((ws, c) => {
      if (ws.length > 0) (filled++, filledCells++, (wordsInCells += ws.length));
      const box: BBox = [bounds[c], row.bbox[1], bounds[c + 1], row.bbox[3]];
      cells.push({ row: r, col: c, row_span: 1, col_span: 1, text: cellText(ws), bbox: box });
    });
    if (filled >= 2) filledRows++;
  });
  if (filledRows < Math.max(MIN_ROWS, rows.length * 0.6)) return null;
  if (wordsInCells / filledCells > MAX_WORDS_PER_CELL) return null;
  if (cols === 2 && !mostlyNumeric(cells.filter((c) => c.col === 1 && c.text !== ''))) return null;
  return { table: { bbox, rows: rows.length, cols, cells, kind: 'unruled', confidence: 0.7 }, words };
}

const NUMERIC = /^[\s\d.,%()$€£¥+\-–—/:*]*\d[\s\d.,%()$€£¥+\-–—/:*]*$/;
function mostlyNumeric(cells: TableCell[]): boolean {
  return cells.length > 0 && cells.filter((c) => NUMERIC.test(c.text)).length >= cells.length * 0.6;
}
