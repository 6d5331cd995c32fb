// DB (differentiable binarisation) text detection post-processing, as in PaddleOCR's
// DBPostProcess: threshold the probability map, take each connected text region, score it by its
// mean probability, fit the minimum-area rectangle, and "unclip" it (grow it by
// D = area × ratio / perimeter, because DB is trained on shrunk text kernels).
//
// Regions are found as 8-connected components, which gives the same outer outlines as OpenCV's
// findContours(RETR_LIST) for these blob maps without shipping OpenCV.

export type Point = [number, number];
/** Corners clockwise from the top-left of the text as read. */
export type Quad = [Point, Point, Point, Point];

export interface DbOptions {
  /** Pixel probability above which a pixel is text (PaddleOCR det_db_thresh). */
  threshold: number;
  /** Minimum mean probability of a region (det_db_box_thresh). */
  boxThreshold: number;
  /** Growth ratio of the shrunk kernel back to the text box (det_db_unclip_ratio). */
  unclipRatio: number;
  /** Regions whose shorter side is smaller than this (map pixels) are noise. */
  minSize: number;
  maxCandidates: number;
}

export const DB_DEFAULTS: DbOptions = { threshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.6, minSize: 3, maxCandidates: 1000 };

export interface DetectedBox {
  quad: Quad;
  score: number;
}

export function dbPostprocess(prob: Float32Array, w: number, h: number, o: DbOptions = DB_DEFAULTS): DetectedBox[] {
  const label = new Int32Array(w * h);
  const stack: number[] = [];
  const boxes: DetectedBox[] = [];
  let next = 0;
  for (let start = 0; start < w * h; start++) {
    if (label[start] !== 0 || prob[start] <= o.threshold) continue;
    next++;
    // Flood fill, keeping per-row x extents (enough for the convex hull) and the score sum.
    const rowMin = new Map<number, number>();
    const rowMax = new Map<number, number>();
    let sum = 0;
    let count = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % w;
      const y = (p - x) / w;
      sum += prob[p];
      count++;
      const lo = rowMin.get(y);
      if (lo === undefined || x < lo) rowMin.set(y, x);
      const hi = rowMax.get(y);
      if (hi === undefined || x > hi) rowMax.set(y, x);
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if ((dx === 0 && dy === 0) || xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (label[q] === 0 && prob[q] > o.threshold) {
            label[q] = next;
            stack.push(q);
          }
        }
      }
    }
    if (count < 4 || sum / count < o.boxThreshold) continue;
    const pts: Point[] = [];
    for (const [y, x0] of rowMin) {
      const x1 = rowMax.get(y)!;
      pts.push([x0, y], [x1 + 1, y], [x0, y + 1], [x1 + 1, y + 1]);
    }
    const rect = minAreaRect(convexHull(pts));
    if (Math.min(rect.w, rect.h) < o.minSize) continue;
    const grown = unclip(rect, o.unclipRatio);
    if (Math.min(grown.w, grown.h) < o.minSize + 2) continue;
    boxes.push({ quad: rectToQuad(grown), score: sum / count });
    if (boxes.length >= o.maxCandidates) break;
  }
  return boxes;
}

/** Andrew's monotone chain; returns the hull counter-clockwise in y-down coordinates. */
export function convexHull(points: Point[]): Point[] {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const pt of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], pt) <= 0) lower.pop();
    lower.push(pt);
  }
  const upper: Point[] = [];
  for (let i = p.length - 1; i >= 0; i--) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p[i]) <= 0) upper.pop();
    upper.push(p[i]);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

export interface Rect {
  cx: number;
  cy: number;
  /** Extent along the rectangle's own x axis (angle `angle`) and y axis. */
  w: number;
  h: number;
  /** Radians; the rectangle's x axis direction, normalised to (-π/4, π/4]. */
  angle: number;
}

/** Minimum-area enclosing rectangle by rotating calipers over the hull's edge directions. */
export function minAreaRect(hull: Point[]): Rect {
  if (hull.length === 0) return { cx: 0, cy: 0, w: 0, h: 0, angle: 0 };
  let best: Rect | undefined;
  let bestArea = Infinity;
  const n = hull.length;
  for (let i = 0; i < Math.max(1, n); i++) {
    const a = hull[i];
    const b = hull[(i + 1) % n];
    const theta = n > 1 ? Math.atan2(b[1] - a[1], b[0] - a[0]) : 0;
    const c = Math.cos(theta);
    const s = Math.sin(theta);
    let u0 = Infinity;
    let u1 = -Infinity;
    let v0 = Infinity;
    let v1 = -Infinity;
    for (const [x, y] of hull) {
      const u = x * c + y * s;
      const v = -x * s + y * c;
      if (u < u0) u0 = u;
      if (u > u1) u1 = u;
      if (v < v0) v0 = v;
      if (v > v1) v1 = v;
    }
    const areaNow = (u1 - u0) * (v1 - v0);
    if (areaNow < bestArea) {
      bestArea = areaNow;
      const um = (u0 + u1) / 2;
      const vm = (v0 + v1) / 2;
      best = { cx: um * c - vm * s, cy: um * s + vm * c, w: u1 - u0, h: v1 - v0, angle: theta };
    }
  }
  return normaliseRect(best!);
}

/** Chooses the axis closest to horizontal as the rectangle's x axis. */
function normaliseRect(r: Rect): Rect {
  let { w, h, angle } = r;
  while (angle > Math.PI / 4) {
    angle -= Math.PI / 2;
    [w, h] = [h, w];
  }
  while (angle <= -Math.PI / 4) {
    angle += Math.PI / 2;
    [w, h] = [h, w];
  }
  return { ...r, w, h, angle };
}

/** Offsetting a rectangle outward by D grows each side by 2D (pyclipper's rounded corners aside). */
export function unclip(r: Rect, ratio: number): Rect {
  const area = r.w * r.h;
  const perimeter = 2 * (r.w + r.h);
  const d = perimeter > 0 ? (area * ratio) / perimeter : 0;
  return { ...r, w: r.w + 2 * d, h: r.h + 2 * d };
}

export function rectToQuad(r: Rect): Quad {
  const c = Math.cos(r.angle);
  const s = Math.sin(r.angle);
  const hw = r.w / 2;
  const hh = r.h / 2;
  const at = (u: number, v: number): Point => [r.cx + u * c - v * s, r.cy + u * s + v * c];
  return [at(-hw, -hh), at(hw, -hh), at(hw, hh), at(-hw, hh)];
}
