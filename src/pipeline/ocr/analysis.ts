// Page analysis on a small binarised copy of the page: which way the text runs, how skewed it is,
// whether it is upside down, how tall its lines are and how much contrast it has. All of it is
// projection-profile work on ink pixels: no engine run needed.
import type { RasterImage } from './types.js';

/** Otsu's threshold of an 8-bit grayscale buffer. */
export function otsu(gray: Uint8Array | Buffer): number {
  const hist = new Float64Array(256);
  for (let i = 0; i < gray.length; i++) hist[gray[i]]++;
  const total = gray.length;
  let sumAll = 0;
  for (let i = 0; i < 256; i++) sumAll += i * hist[i];
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let threshold = 127;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t];
    const mB = sumB / wB;
    const mF = (sumAll - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

/**
 * Contrast between ink and paper in [0, 1]: the difference of the mean luminance of the two Otsu
 * classes. (A percentile spread would call a receipt on a wide white margin contrast-free.)
 */
export function contrastSpread(gray: Uint8Array | Buffer): number {
  const t = otsu(gray);
  let dark = 0;
  let nDark = 0;
  let light = 0;
  let nLight = 0;
  for (let i = 0; i < gray.length; i++) {
    if (gray[i] <= t) {
      dark += gray[i];
      nDark++;
    } else {
      light += gray[i];
      nLight++;
    }
  }
  if (nDark === 0 || nLight === 0) return 0;
  return (light / nLight - dark / nDark) / 255;
}

/** Ink pixel coordinates (dark on light; inverted pages are flipped first). */
export function inkPoints(gray: RasterImage, threshold: number, maxPoints = 150_000): { xs: Float32Array; ys: Float32Array } {
  const { data, width, height } = gray;
  let dark = 0;
  for (let i = 0; i < data.length; i++) if (data[i] <= threshold) dark++;
  // Light text on a dark background: the ink is the minority class.
  const inkIsDark = dark <= data.length / 2;
  const ink = inkIsDark ? dark : data.length - dark;
  const step = Math.max(1, Math.ceil(ink / maxPoints));
  const xs: number[] = [];
  const ys: number[] = [];
  let k = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = data[y * width + x];
      if (inkIsDark ? v <= threshold : v > threshold) {
        if (k++ % step === 0) {
          xs.push(x);
          ys.push(y);
        }
      }
    }
  }
  return { xs: Float32Array.from(xs), ys: Float32Array.from(ys) };
}

/**
 * Sharpness of the row profile when the ink is projected at angle `deg` (degrees; positive = text
 * lines falling to the right in image coordinates): the sum of squared bin counts, which peaks
 * when text lines fall into few rows.
 */
export function profileScore(xs: Float32Array, ys: Float32Array, deg: number, bins: Float64Array, binSize: number): number {
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  bins.fill(0);
  const off = bins.length / 2;
  for (let i = 0; i < xs.length; i++) {
    const b = Math.floor((ys[i] * c - xs[i] * s) / binSize + off);
    if (b >= 0 && b < bins.length) bins[b]++;
  }
  let sum = 0;
  for (let i = 0; i < bins.length; i++) sum += bins[i] * bins[i];
  return sum;
}

export interface SkewResult {
  angle: number;
  score: number;
}

/** Best text-line angle in [-maxDeg, maxDeg]: a 0.5° sweep, then a 0.1° refinement. */
export function findSkew(xs: Float32Array, ys: Float32Array, extent: number, maxDeg: number): SkewResult {
  const binSize = 1;
  const bins = new Float64Array(Math.ceil((extent * 3) / binSize));
  let best: SkewResult = { angle: 0, score: profileScore(xs, ys, 0, bins, binSize) };
  for (let a = -maxDeg; a <= maxDeg + 1e-9; a += 0.5) {
    const score = profileScore(xs, ys, a, bins, binSize);
    if (score > best.score) best = { angle: a, score };
  }
  const coarse = best.angle;
  for (let a = coarse - 0.4; a <= coarse + 0.4 + 1e-9; a += 0.1) {
    const score = profileScore(xs, ys, a, bins, binSize);
    if (score > best.score) best = { angle: Math.round(a * 10) / 10, score };
  }
  return best;
}

export interface LineStats {
  /** Median text-line height in pixels of the analysed image (0 when no lines were found). */
  lineHeight: number;
  lines: number;
  /** log(ink above the x-height band / ink below it): > 0 for upright Latin text. */
  uprightEvidence: number;
}

/**
 * Text lines from the row profile of a deskewed ink image. In each line the x-height band is the
 * run of rows holding at least half the line's peak ink; ascenders, capitals and digits put ink
 * above it, descenders (g j p q y) below. Upright Latin text has far more above than below, so
 * the balance tells upright from upside down.
 */
export function lineStats(rows: Float64Array): LineStats {
  const max = rows.reduce((m, v) => Math.max(m, v), 0);
  if (max === 0) return { lineHeight: 0, lines: 0, uprightEvidence: 0 };
  const floor = max * 0.04;
  const heights: number[] = [];
  let above = 0;
  let below = 0;
  let y = 0;
  while (y < rows.length) {
    if (rows[y] <= floor) {
      y++;
      continue;
    }
    const start = y;
    while (y < rows.length && rows[y] > floor) y++;
    const end = y;
    if (end - start < 3) continue;
    heights.push(end - start);
    let peak = 0;
    for (let r = start; r < end; r++) peak = Math.max(peak, rows[r]);
    let c0 = start;
    while (rows[c0] < peak * 0.5) c0++;
    let c1 = end - 1;
    while (rows[c1] < peak * 0.5) c1--;
    for (let r = start; r < c0; r++) above += rows[r];
    for (let r = c1 + 1; r < end; r++) below += rows[r];
  }
  heights.sort((a, b) => a - b);
  const lineHeight = heights.length ? heights[Math.floor(heights.length / 2)] : 0;
  return { lineHeight, lines: heights.length, uprightEvidence: Math.log((above + 1) / (below + 1)) };
}

/** Row ink counts of points rotated by `deg` (as findSkew measures them), in `binSize` rows. */
export function rowProfile(xs: Float32Array, ys: Float32Array, deg: number, extent: number): Float64Array {
  const bins = new Float64Array(Math.ceil(extent * 3));
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  const off = bins.length / 2;
  for (let i = 0; i < xs.length; i++) {
    const b = Math.floor(ys[i] * c - xs[i] * s + off);
    if (b >= 0 && b < bins.length) bins[b]++;
  }
  return bins;
}
