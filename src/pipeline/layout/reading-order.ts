// Reading order by recursive XY-cut (Nagy & Seth, 1984): split a region at a whitespace gutter
// running its full height (columns, left before right; a few short items such as a caption may
// cross it) or at its widest horizontal gap (top before bottom), and recurse. A vertical cut is
// only taken when both sides read as prose:
// label/value pairs and table columns also leave gutters, but they read row by row.
import type { BBox, Word } from '../canonical/model.js';

export type FlowItem = { kind: 'text'; bbox: BBox; words: Word[] } | { kind: 'table'; bbox: BBox; tableIndex: number };

/** Smallest column gutter, × line height; column gaps are 1.5-3 line heights in print. */
const MIN_GUTTER = 0.9;
/** Smallest horizontal gap worth cutting at, × line height. */
const MIN_GAP = 0.4;

/** The items grouped into leaf regions, regions in reading order. */
export function readingOrder(items: FlowItem[], lineHeight: number): FlowItem[][] {
  const leaves: FlowItem[][] = [];
  const cut = (region: FlowItem[], depth: number) => {
    if (region.length <= 1 || depth > 60) return void (region.length > 0 && leaves.push(region));
    const vertical = verticalCut(region, lineHeight);
    if (vertical) return void (cut(vertical[0], depth + 1), cut(vertical[1], depth + 1));
    const horizontal = horizontalCut(region, lineHeight);
    if (horizontal) return void (cut(horizontal[0], depth + 1), cut(horizontal[1], depth + 1));
    leaves.push(region);
  };
  cut(items, 0);
  return leaves;
}

interface Gap {
  at: number;
  size: number;
}

/** Gaps in the projection of the boxes on one axis (0 = x, 1 = y), widest first. */
function gaps(region: FlowItem[], axis: 0 | 1, minSize: number): Gap[] {
  const starts = region.map((i) => i.bbox[axis]);
  const order = region.map((_, k) => k).sort((a, b) => starts[a] - starts[b]);
  const out: Gap[] = [];
  let reach = region[order[0]].bbox[axis + 2];
  for (let k = 1; k < order.length; k++) {
    const from = starts[order[k]];
    if (from - reach >= minSize) out.push({ at: (from + reach) / 2, size: from - reach });
    reach = Math.max(reach, region[order[k]].bbox[axis + 2]);
  }
  return out.sort((a, b) => b.size - a.size);
}

function split(region: FlowItem[], axis: 0 | 1, at: number): [FlowItem[], FlowItem[]] {
  return [region.filter((i) => i.bbox[axis + 2] <= at), region.filter((i) => i.bbox[axis] >= at)];
}

function verticalCut(region: FlowItem[], h: number): [FlowItem[], FlowItem[]] | null {
  const candidates = gaps(region, 0, MIN_GUTTER * h);
  if (candidates.length > 0) {
    const prose = proseAtGaps(region, candidates);
    // Widest gutter first: the first whose both sides read as prose wins.
    const g = candidates.find((_, i) => prose[i]);
    if (g) return split(region, 0, g.at);
  }
  return gutterCut(region, h);
}

/**
 * Whether both sides of each candidate gutter read as prose, in one sweep from left to right:
 * the sides' tallies move by the items crossing each gutter, so a region with many gutters
 * (a page of scattered one-word runs) costs n log n instead of a split and a tally per gutter.
 */
function proseAtGaps(region: FlowItem[], candidates: Gap[]): boolean[] {
  const byEnd = [...region].sort((a, b) => a.bbox[2] - b.bbox[2]);
  const byStart = [...region].sort((a, b) => a.bbox[0] - b.bbox[0]);
  const order = candidates.map((_, i) => i).sort((a, b) => candidates[a].at - candidates[b].at);
  const left = new Tally();
  const right = new Tally();
  for (const item of region) right.add(item, 1);
  const out: boolean[] = new Array(candidates.length);
  let e = 0;
  let s = 0;
  for (const i of order) {
    const at = candidates[i].at;
    // Same membership as split(): left ends at or before the gutter, right starts at or after it.
    for (; e < byEnd.length && byEnd[e].bbox[2] <= at; e++) left.add(byEnd[e], 1);
    for (; s < byStart.length && byStart[s].bbox[0] < at; s++) right.add(byStart[s], -1);
    out[i] = left.readsAsProse() && right.readsAsProse();
  }
  return out;
}

/**
 * One side of a gutter, kept as counts so items can join and leave it. It reads as prose with
 * several lines of several words each: a text column, not a column of labels or numbers.
 */
class Tally {
  private texts = 0;
  private tables = 0;
  private words = 0;
  /** Text items of fewer than three words: the median reaches 3 while they are at most half. */
  private short = 0;

  add(item: FlowItem, sign: 1 | -1): void {
    if (item.kind === 'table') return void (this.tables += sign);
    this.texts += sign;
    this.words += sign * item.words.length;
    if (item.words.length < 3) this.short += sign;
  }

  readsAsProse(): boolean {
    // With one text item, its words are the side's words.
    if (this.texts < 2) return this.tables > 0 || (this.texts === 1 && this.words >= 8);
    return this.words >= 12 && this.short <= this.texts >> 1;
  }
}

/** Share of a region's items that may cross a column gutter (a caption or a short heading set over it). */
const MAX_CROSSING = 0.1;

/**
 * Two columns whose gutter a few short items cross (a pull quote, a caption, a heading centred
 * over it), so that the projection leaves no gap: the gutter is the widest x-range that at most
 * a tenth of the items cover, the crossing items go to the side their centre is on, and both
 * sides must read as prose and run most of the region's height. A wide item across it (a
 * full-width heading or table) keeps the region whole: it is cut above and below instead.
 */
function gutterCut(region: FlowItem[], h: number): [FlowItem[], FlowItem[]] | null {
  if (region.length < 6) return null;
  const [x0, y0, x1, y1] = extent(region);
  const bins = Math.ceil(x1 - x0);
  if (bins < 4 || bins > 20_000) return null;
  // Items over each 1-pt bin: +1 where an item starts, -1 past its end, summed left to right.
  const delta = new Int32Array(bins + 1);
  for (const i of region) {
    const from = Math.max(0, Math.floor(i.bbox[0] - x0));
    const to = Math.min(bins, Math.ceil(i.bbox[2] - x0));
    if (from < to) (delta[from]++, delta[to]--);
  }
  const cover = new Uint16Array(bins);
  for (let b = 0, n = 0; b < bins; b++) cover[b] = n += delta[b];
  const allowed = Math.floor(region.length * MAX_CROSSING);
  const runs: Gap[] = [];
  for (let b = 0, start = -1; b <= bins; b++) {
    const free = b < bins && cover[b] <= allowed;
    if (free && start < 0) start = b;
    if (!free && start >= 0) {
      if (start > 0 && b < bins && b - start >= MIN_GUTTER * h) runs.push({ at: x0 + (start + b) / 2, size: b - start });
      start = -1;
    }
  }
  for (const g of runs.sort((a, b) => b.size - a.size)) {
    const crossing = region.filter((i) => i.bbox[0] < g.at && i.bbox[2] > g.at);
    if (crossing.some((i) => i.kind === 'table' || i.bbox[2] - i.bbox[0] > 0.4 * (x1 - x0))) continue;
    const centre = (i: FlowItem) => (i.bbox[0] + i.bbox[2]) / 2;
    const left = region.filter((i) => centre(i) < g.at);
    const right = region.filter((i) => centre(i) >= g.at);
    const tall = (side: FlowItem[]) => {
      const [, top, , bottom] = extent(side);
      return bottom - top >= 0.5 * (y1 - y0);
    };
    if (left.length && right.length && tall(left) && tall(right) && readsAsProse(left) && readsAsProse(right)) return [left, right];
  }
  return null;
}

/** The box around every item (a loop: a spread of a huge page's items would overflow the stack). */
function extent(items: FlowItem[]): BBox {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const { bbox } of items) {
    if (bbox[0] < x0) x0 = bbox[0];
    if (bbox[1] < y0) y0 = bbox[1];
    if (bbox[2] > x1) x1 = bbox[2];
    if (bbox[3] > y1) y1 = bbox[3];
  }
  return [x0, y0, x1, y1];
}

/** Several lines of several words each: a text column, not a column of labels or numbers. */
function readsAsProse(side: FlowItem[]): boolean {
  const tally = new Tally();
  for (const item of side) tally.add(item, 1);
  return tally.readsAsProse();
}

function horizontalCut(region: FlowItem[], h: number): [FlowItem[], FlowItem[]] | null {
  const [widest] = gaps(region, 1, MIN_GAP * h);
  return widest ? split(region, 1, widest.at) : null;
}
