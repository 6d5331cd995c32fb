// Reading order by recursive XY-cut (Nagy & Seth, 1984): split a region at a whitespace gutter
// running its full height (columns, left before right; a few short items such as a caption may
// cross it) or at its widest horizontal gap (top before bottom), and recurse. A vertical cut is only taken when both sides read as prose:
// label/value pairs and table columns also leave gutters, but they read row by row.
import type { BBox, Word } from '../canonical/model.js';
import { median } from './geometry.js';

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
  const spans = region.map((i) => [i.bbox[axis], i.bbox[axis + 2]] as const).sort((a, b) => a[0] - b[0]);
  const out: Gap[] = [];
  let reach = spans[0][1];
  for (const [from, to] of spans.slice(1)) {
    if (from - reach >= minSize) out.push({ at: (from + reach) / 2, size: from - reach });
    reach = Math.max(reach, to);
  }
  return out.sort((a, b) => b.size - a.size);
}

function split(region: FlowItem[], axis: 0 | 1, at: number): [FlowItem[], FlowItem[]] {
  return [region.filter((i) => i.bbox[axis + 2] <= at), region.filter((i) => i.bbox[axis] >= at)];
}

function verticalCut(region: FlowItem[], h: number): [FlowItem[], FlowItem[]] | null {
  for (const g of gaps(region, 0, MIN_GUTTER * h)) {
    const [left, right] = split(region, 0, g.at);
    if (readsAsProse(left) && readsAsProse(right)) return [left, right];
  }
  return gutterCut(region, h);
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
  const x0 = Math.min(...region.map((i) => i.bbox[0]));
  const x1 = Math.max(...region.map((i) => i.bbox[2]));
  const y0 = Math.min(...region.map((i) => i.bbox[1]));
  const y1 = Math.max(...region.map((i) => i.bbox[3]));
  const bins = Math.ceil(x1 - x0);
  if (bins < 4 || bins > 20_000) return null;
  const cover = new Uint16Array(bins);
  for (const i of region) for (let b = Math.max(0, Math.floor(i.bbox[0] - x0)); b < Math.min(bins, Math.ceil(i.bbox[2] - x0)); b++) cover[b]++;
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
    const tall = (side: FlowItem[]) => Math.max(...side.map((i) => i.bbox[3])) - Math.min(...side.map((i) => i.bbox[1])) >= 0.5 * (y1 - y0);
    if (left.length && right.length && tall(left) && tall(right) && readsAsProse(left) && readsAsProse(right)) return [left, right];
  }
  return null;
}

function horizontalCut(region: FlowItem[], h: number): [FlowItem[], FlowItem[]] | null {
  const [widest] = gaps(region, 1, MIN_GAP * h);
  return widest ? split(region, 1, widest.at) : null;
}

/** Several lines of several words each: a text column, not a column of labels or numbers. */
function readsAsProse(side: FlowItem[]): boolean {
  const text = side.filter((i): i is Extract<FlowItem, { kind: 'text' }> => i.kind === 'text');
  if (text.length < 2) return side.some((i) => i.kind === 'table') || (text.length === 1 && text[0].words.length >= 8);
  const total = text.reduce((n, i) => n + i.words.length, 0);
  return total >= 12 && median(text.map((i) => i.words.length)) >= 3;
}
