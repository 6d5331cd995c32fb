// Vertical whitespace gutters in a set of text rows: x-ranges that (almost) no row covers with a
// word. Shared by unruled table detection and by ruled grids whose drawn lines leave out some
// column separators. Spanning titles and headers may cross a gutter, so up to 15% of the rows
// are allowed to; a "column" that this leaves with text on under 30% of the rows is no column
// (right-aligned numbers with a few long ones open such a gap) and its narrower gutter goes.
import type { BBox } from '../canonical/model.js';
import type { Row } from './rows.js';

const STEP = 0.5;

/** Gutter centres strictly inside `bbox`, left to right; each gutter at least `minWidth` wide. */
export function textGutters(rows: readonly Row[], bbox: BBox, minWidth: number): number[] {
  const bins = Math.ceil((bbox[2] - bbox[0]) / STEP) + 1;
  if (bins <= 2 || bins > 20_000) return [];
  const bin = (x: number) => Math.max(0, Math.min(bins - 1, Math.floor((x - bbox[0]) / STEP)));
  // cover[b]: rows with a word over bin b, a row counting once per bin. A row's word spans
  // (in bins, by left edge) merge into runs; each run adds 1 at its first bin and -1 past its
  // last, and the running sum gives the count.
  const delta = new Int32Array(bins + 1);
  for (const row of rows) {
    const spans: [number, number][] = [];
    for (const w of row.words) {
      const from = bin(w.bbox[0]);
      const to = bin(w.bbox[2]);
      if (from <= to) spans.push([from, to]);
    }
    if (!spans.every((sp, k) => k === 0 || spans[k - 1][0] <= sp[0])) spans.sort((a, b) => a[0] - b[0]);
    let run: [number, number] | undefined;
    for (const sp of spans) {
      if (run && sp[0] <= run[1] + 1) run[1] = Math.max(run[1], sp[1]);
      else {
        if (run) (delta[run[0]]++, delta[run[1] + 1]--);
        run = [sp[0], sp[1]];
      }
    }
    if (run) (delta[run[0]]++, delta[run[1] + 1]--);
  }
  const cover = new Uint16Array(bins);
  for (let b = 0, n = 0; b < bins; b++) cover[b] = n += delta[b];
  // Only gaps between text count: the margins left and right of all words are not gutters.
  let first = 0;
  while (first < bins && cover[first] === 0) first++;
  let lastUsed = bins - 1;
  while (lastUsed > first && cover[lastUsed] === 0) lastUsed--;
  const allowed = Math.floor(rows.length * 0.15);
  const out: { at: number; width: number }[] = [];
  let start = -1;
  for (let b = first; b <= lastUsed + 1; b++) {
    const free = b <= lastUsed && cover[b] <= allowed;
    if (free && start < 0) start = b;
    if (!free && start >= 0) {
      if ((b - start) * STEP >= minWidth) out.push({ at: bbox[0] + ((start + b) / 2) * STEP, width: (b - start) * STEP });
      start = -1;
    }
  }
  return dropThinColumns(rows, out, bbox).map((g) => g.at);
}

function dropThinColumns(rows: readonly Row[], gutters: { at: number; width: number }[], bbox: BBox) {
  const gs = [...gutters];
  for (;;) {
    const bounds = [bbox[0], ...gs.map((g) => g.at), bbox[2]];
    let thin = -1;
    for (let c = 0; c + 1 < bounds.length && thin < 0; c++) {
      const filled = rows.filter((r) => r.words.some((w) => (w.bbox[0] + w.bbox[2]) / 2 > bounds[c] && (w.bbox[0] + w.bbox[2]) / 2 < bounds[c + 1])).length;
      if (filled < rows.length * 0.3) thin = c;
    }
    if (thin < 0 || gs.length === 0) return gs;
    // Column `thin` lies between gutters thin-1 and thin; remove the narrower existing one.
    const left = thin - 1 >= 0 ? thin - 1 : -1;
    const right = thin < gs.length ? thin : -1;
    const drop = left < 0 ? right : right < 0 ? left : gs[left].width < gs[right].width ? left : right;
    gs.splice(drop, 1);
  }
}
