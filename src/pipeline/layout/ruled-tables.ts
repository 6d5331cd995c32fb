// Ruled tables: a connected group of horizontal and vertical rules is a grid; the distinct rule
// positions give its rows and columns (refined by the text where lines are left out), and a
// missing boundary between two neighbouring grid cells means one cell spans both. Words fall
// into the cell holding their centre.
import type { BBox, Table, TableCell, Word } from '../canonical/model.js';
import { centerX, centerY, maxOf, minOf, union } from './geometry.js';
import { cellText } from './cell-text.js';
import { crossed, refineColumns, refineRows } from './grid-refine.js';
import { RULE_TOLERANCE, type RuleLine, type Rulings, connectedGrids } from './rules.js';

export interface FoundTable {
  table: Table;
  /** Words now owned by the table (removed from the page's text flow). */
  words: Word[];
}

/** Pages with more rules than this are drawings or charts; grid search would only cost time. */
const MAX_RULES = 4_000;

export function findRuledTables(rulings: Rulings, words: readonly Word[], space: number): FoundTable[] {
  if (rulings.horizontal.length + rulings.vertical.length > MAX_RULES) return [];
  const out: FoundTable[] = [];
  for (const grid of connectedGrids(rulings)) {
    if (grid.horizontal.length < 2 || grid.vertical.length < 2) continue;
    const found = gridTable(grid, words, space);
    if (found) out.push(found);
  }
  return out;
}

function positions(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of sorted) if (out.length === 0 || v - out[out.length - 1] > RULE_TOLERANCE * 1.5) out.push(v);
  return out;
}

const covers = (lines: RuleLine[], pos: number, mid: number) =>
  lines.some((l) => Math.abs(l.pos - pos) <= RULE_TOLERANCE * 1.5 && l.from - RULE_TOLERANCE <= mid && l.to + RULE_TOLERANCE >= mid);

const inBox = (w: Word, b: BBox) => centerX(w.bbox) >= b[0] && centerX(w.bbox) < b[2] && centerY(w.bbox) >= b[1] && centerY(w.bbox) < b[3];

/** The band [edges[i], edges[i + 1]) holding `v`, or -1 outside every band; `edges` ascend. */
function band(edges: readonly number[], v: number): number {
  // Last index with edges[i] <= v (binary search), as a band holds its lower edge.
  let lo = 0;
  let hi = edges.length - 1;
  if (!(v >= edges[0]) || !(v < edges[hi])) return -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

function gridTable(grid: Rulings, words: readonly Word[], space: number): FoundTable | null {
  const { horizontal: hs, vertical: vs } = grid;
  // Open sides (no outer border) still end where the rules end.
  const drawnX = positions([...vs.map((v) => v.pos), minOf(hs.map((h) => h.from)), maxOf(hs.map((h) => h.to))]);
  const drawnY = positions([...hs.map((h) => h.pos), minOf(vs.map((v) => v.from)), maxOf(vs.map((v) => v.to))]);
  const frame: BBox = [drawnX[0], drawnY[0], drawnX[drawnX.length - 1], drawnY[drawnY.length - 1]];
  const inside = words.filter((w) => inBox(w, frame));
  if (inside.length === 0) return null;
  const colB = refineColumns(drawnX, inside, space);
  const rowB = refineRows(drawnY, colB.positions, inside);
  const xs = colB.positions;
  const ys = rowB.positions;
  const rows = ys.length - 1;
  const cols = xs.length - 1;
  // One column is a box around text (a frame, or row rules without column rules): the unruled
  // detector reads its columns better from the text itself.
  if (rows < 1 || cols < 2 || rows * cols > 20_000) return null;

  // Each word's grid row and column (-1 outside), found once: the bands and cells below are
  // then read off these indexes instead of filtering every word per band and per cell.
  const rowOf = inside.map((w) => band(ys, centerY(w.bbox)));
  const colOf = inside.map((w) => band(xs, centerX(w.bbox)));
  const rowWords: Word[][] = Array.from({ length: rows }, () => []);
  const colWords: Word[][] = Array.from({ length: cols }, () => []);
  inside.forEach((w, i) => {
    if (rowOf[i] >= 0) rowWords[rowOf[i]].push(w);
    if (colOf[i] >= 0) colWords[colOf[i]].push(w);
  });
  const vBoundary = (c: number, r: number) =>
    colB.virtual.has(xs[c]) ? !crossed(rowWords[r], 'x', xs[c]) : covers(vs, xs[c], (ys[r] + ys[r + 1]) / 2);
  const hBoundary = (r: number, c: number) =>
    rowB.virtual.has(ys[r]) ? !crossed(colWords[c], 'y', ys[r]) : covers(hs, ys[r], (xs[c] + xs[c + 1]) / 2);

  // Union-find over grid cells: neighbours without a boundary between them are one spanning cell.
  const id = (r: number, c: number) => r * cols + c;
  const parent = Array.from({ length: rows * cols }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      if (c + 1 < cols && !vBoundary(c + 1, r)) parent[find(id(r, c + 1))] = find(id(r, c));
      if (r + 1 < rows && !hBoundary(r + 1, c)) parent[find(id(r + 1, c))] = find(id(r, c));
    }
  const spans = new Map<number, { r0: number; c0: number; r1: number; c1: number; size: number; words: Word[] }>();
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const root = find(id(r, c));
      const s = spans.get(root);
      if (!s) spans.set(root, { r0: r, c0: c, r1: r, c1: c, size: 1, words: [] });
      else Object.assign(s, { r0: Math.min(s.r0, r), c0: Math.min(s.c0, c), r1: Math.max(s.r1, r), c1: Math.max(s.c1, c), size: s.size + 1 });
    }
  if (spans.size < 2) return null;
  inside.forEach((w, i) => {
    if (rowOf[i] >= 0 && colOf[i] >= 0) spans.get(find(id(rowOf[i], colOf[i])))!.words.push(w);
  });

  const cells: TableCell[] = [];
  for (const s of spans.values()) {
    const box: BBox = [xs[s.c0], ys[s.r0], xs[s.c1 + 1], ys[s.r1 + 1]];
    // A rectangular span's box holds its own grid cells only; the box around an L-shaped one
    // also reaches into its neighbours' cells, whose words it takes as well.
    const rectangular = s.size === (s.r1 - s.r0 + 1) * (s.c1 - s.c0 + 1);
    const own = rectangular ? s.words : inside.filter((w) => inBox(w, box));
    cells.push({ row: s.r0, col: s.c0, row_span: s.r1 - s.r0 + 1, col_span: s.c1 - s.c0 + 1, text: cellText(own), bbox: box });
  }
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  if (cells.filter((c) => c.text !== '').length < 2) return null;
  return { table: { bbox: union([frame, ...inside.map((w) => w.bbox)]), rows, cols, cells, kind: 'ruled', confidence: 0.9 }, words: inside };
}
