// Small bbox helpers shared by the layout stages. Boxes are [x0, y0, x1, y1], y grows downwards.
import type { BBox } from '../canonical/model.js';

export const width = (b: BBox) => b[2] - b[0];
export const height = (b: BBox) => b[3] - b[1];
export const centerX = (b: BBox) => (b[0] + b[2]) / 2;
export const centerY = (b: BBox) => (b[1] + b[3]) / 2;

export function union(boxes: readonly BBox[]): BBox {
  const out: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of boxes) {
    if (b[0] < out[0]) out[0] = b[0];
    if (b[1] < out[1]) out[1] = b[1];
    if (b[2] > out[2]) out[2] = b[2];
    if (b[3] > out[3]) out[3] = b[3];
  }
  return out;
}

// Reductions, not Math.min(...values): a hostile page's hundred thousand values overflow the stack.
export const minOf = (values: readonly number[]) => values.reduce((m, v) => (v < m ? v : m), Infinity);
export const maxOf = (values: readonly number[]) => values.reduce((m, v) => (v > m ? v : m), -Infinity);

/** Like `union`, but an empty list gives an empty box at the origin (for boxes that are serialised). */
export function unionBox(boxes: readonly BBox[]): BBox {
  return boxes.length === 0 ? [0, 0, 0, 0] : union(boxes);
}

export const overlapY = (a: BBox, b: BBox) => Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
export const overlapX = (a: BBox, b: BBox) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));

export const contains = (outer: BBox, x: number, y: number, slack = 0) =>
  x >= outer[0] - slack && x <= outer[2] + slack && y >= outer[1] - slack && y <= outer[3] + slack;

/** Reused by median: layout takes thousands of medians of a few values per page. */
let scratch = new Float64Array(64);

/**
 * Upper median. The values are sorted in a reused typed array, which sorts numerically without
 * calling back into a comparator (short lists by insertion), so no copy of the list is made.
 */
export function median(values: readonly number[]): number {
  const n = values.length;
  if (n === 0) return 0;
  if (n === 1) return values[0];
  if (n > scratch.length) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  const s = scratch;
  if (n <= 16) {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      let j = i;
      for (; j > 0 && s[j - 1] > v; j--) s[j] = s[j - 1];
      s[j] = v;
    }
    return s[n >> 1];
  }
  for (let i = 0; i < n; i++) s[i] = values[i];
  return s.subarray(0, n).sort()[n >> 1];
}

/** Two decimals are plenty for points and keep the JSON small. */
export const round2 = (v: number) => Math.round(v * 100) / 100;
export const roundBox = (b: BBox): BBox => [round2(b[0]), round2(b[1]), round2(b[2]), round2(b[3])];
