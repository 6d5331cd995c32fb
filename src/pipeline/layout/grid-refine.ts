// Ruled grids that leave lines out: many tables rule only the header and the column groups, and
// set the body rows (or sub-columns) in text alone. Text structure inside a drawn cell adds
// "virtual" boundaries: a whitespace gutter running down a grid column splits it, and text rows
// that line up across several columns of a tall grid row split that row (camelot's hybrid idea).
import type { Word } from '../canonical/model.js';
import { centerX, centerY } from './geometry.js';
import { textGutters } from './gutters.js';
import { groupRows } from './rows.js';

/** Sub-column gutters: three word spaces (numbers set apart by one space stay together). */
const SUB_GUTTER = 3;

export interface Boundaries {
  positions: number[];
  /** Positions added from text, not drawn. */
  virtual: Set<number>;
}

const within = (words: readonly Word[], axis: 'x' | 'y', from: number, to: number) =>
  words.filter((w) => {
    const c = axis === 'x' ? centerX(w.bbox) : centerY(w.bbox);
    return c >= from && c < to;
  });

export function refineColumns(xs: number[], words: readonly Word[], space: number): Boundaries {
  const virtual = new Set<number>();
  for (let c = 0; c + 1 < xs.length; c++) {
    const own = within(words, 'x', xs[c], xs[c + 1]);
    const rows = groupRows(own);
    if (rows.length < 3) continue;
    const cuts = textGutters(rows, [xs[c], 0, xs[c + 1], 0], SUB_GUTTER * space);
    // Keep a cut only when both sides hold text in a fair share of the rows.
    for (const x of cuts) {
      const left = rows.filter((r) => r.words.some((w) => centerX(w.bbox) < x && centerX(w.bbox) > xs[c])).length;
      const right = rows.filter((r) => r.words.some((w) => centerX(w.bbox) > x && centerX(w.bbox) < xs[c + 1])).length;
      if (left >= rows.length * 0.4 && right >= rows.length * 0.4) virtual.add(x);
    }
  }
  return { positions: [...xs, ...virtual].sort((a, b) => a - b), virtual };
}

export function refineRows(ys: number[], xs: number[], words: readonly Word[]): Boundaries {
  const virtual = new Set<number>();
  for (let r = 0; r + 1 < ys.length; r++) {
    const rows = groupRows(within(words, 'y', ys[r], ys[r + 1]));
    if (rows.length < 3) continue;
    // A table body set in text has most of its columns filled on most text rows; wrapped cells
    // (an address over three lines beside one-line cells) leave most columns on one row only.
    let used = 0;
    let busy = 0;
    for (let c = 0; c + 1 < xs.length; c++) {
      const filled = rows.filter((row) => row.words.some((w) => centerX(w.bbox) >= xs[c] && centerX(w.bbox) < xs[c + 1])).length;
      if (filled > 0) used++;
      if (filled >= rows.length * 0.6) busy++;
    }
    if (busy < 2 || busy < used * 0.7) continue;
    for (let i = 0; i + 1 < rows.length; i++) virtual.add((rows[i].bbox[3] + rows[i + 1].bbox[1]) / 2);
  }
  return { positions: [...ys, ...virtual].sort((a, b) => a - b), virtual };
}

/**
 * A virtual boundary holds in a band unless a word straddles it there. Vertically only the
 * middle of a word's box counts: loose boxes of tightly set lines overlap their neighbours.
 */
export function crossed(words: readonly Word[], axis: 'x' | 'y', at: number): boolean {
  if (axis === 'x') return words.some((w) => w.bbox[0] < at - 0.5 && w.bbox[2] > at + 0.5);
  return words.some((w) => {
    const inset = (w.bbox[3] - w.bbox[1]) * 0.3;
    return w.bbox[1] + inset < at && w.bbox[3] - inset > at;
  });
}
