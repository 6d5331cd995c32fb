// Cutting a detected (possibly slanted) text box out of the page straight into the recogniser's
// input: height 48, width by aspect ratio, channels normalised to [-1, 1] in BGR order (PaddleOCR's
// RecResizeImg + NormalizeImage). The quad is mapped with a bilinear warp, which for the
// near-rectangular boxes DB produces is the same as PaddleOCR's perspective crop, and each output
// pixel averages a small grid of source samples so tall lines shrink without aliasing.
import type { RasterImage } from '../types.js';
import type { Point, Quad } from './db-postprocess.js';

export const REC_HEIGHT = 48;
/** Widest line image fed to the recogniser (a ratio of 50: a full 300-dpi text line). */
export const REC_MAX_WIDTH = 2400;

const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** Orders the quad for reading; tall boxes (vertical text) are turned, as PaddleOCR does with rot90. */
export function readingQuad(q: Quad): { quad: Quad; width: number; height: number } {
  const w = Math.max(dist(q[0], q[1]), dist(q[3], q[2]));
  const h = Math.max(dist(q[0], q[3]), dist(q[1], q[2]));
  if (h >= 1.5 * w) return { quad: [q[1], q[2], q[3], q[0]], width: h, height: w };
  return { quad: q, width: w, height: h };
}

export function recWidth(width: number, height: number): number {
  return Math.max(REC_HEIGHT / 2, Math.min(REC_MAX_WIDTH, Math.ceil((REC_HEIGHT * width) / Math.max(1, height))));
}

/**
 * Writes the crop into `dst` (a 3 × 48 × `padW` slice of the batch tensor, already zero = mid-grey
 * padding) at width `outW`.
 */
export function cropInto(img: RasterImage, quad: Quad, outW: number, dst: Float32Array, offset: number, padW: number): void {
  const [p0, p1, p2, p3] = quad;
  const H = REC_HEIGHT;
  const srcH = Math.max(dist(p0, p3), dist(p1, p2));
  const srcW = Math.max(dist(p0, p1), dist(p3, p2));
  // Samples per output pixel along each axis: enough to cover the source footprint.
  const sy = Math.min(4, Math.max(1, Math.round(srcH / H)));
  const sx = Math.min(4, Math.max(1, Math.round(srcW / outW)));
  const plane = H * padW;
  const ch = img.channels;
  const { width: iw, height: ih, data } = img;
  for (let v = 0; v < H; v++) {
    for (let u = 0; u < outW; u++) {
      let b = 0;
      let g = 0;
      let r = 0;
      for (let j = 0; j < sy; j++) {
        const t = (v + (j + 0.5) / sy) / H;
        for (let i = 0; i < sx; i++) {
          const s = (u + (i + 0.5) / sx) / outW;
          const x = (1 - t) * ((1 - s) * p0[0] + s * p1[0]) + t * ((1 - s) * p3[0] + s * p2[0]) - 0.5;
          const y = (1 - t) * ((1 - s) * p0[1] + s * p1[1]) + t * ((1 - s) * p3[1] + s * p2[1]) - 0.5;
          const px = sample(data, iw, ih, ch, x, y);
          r += px[0];
          g += px[1];
          b += px[2];
        }
      }
      const n = sx * sy * 127.5;
      const idx = offset + v * padW + u;
      dst[idx] = b / n - 1;
      dst[idx + plane] = g / n - 1;
      dst[idx + 2 * plane] = r / n - 1;
    }
  }
}

const px3: [number, number, number] = [0, 0, 0];

/** Bilinear sample with edge clamping; returns R, G, B (grey repeated). Reuses one array. */
function sample(data: Buffer, w: number, h: number, ch: number, x: number, y: number): [number, number, number] {
  const xc = Math.min(w - 1, Math.max(0, x));
  const yc = Math.min(h - 1, Math.max(0, y));
  const x0 = Math.floor(xc);
  const y0 = Math.floor(yc);
  const x1 = Math.min(w - 1, x0 + 1);
  const y1 = Math.min(h - 1, y0 + 1);
  const fx = xc - x0;
  const fy = yc - y0;
  for (let c = 0; c < 3; c++) {
    const k = ch === 1 ? 0 : c;
    const a = data[(y0 * w + x0) * ch + k];
    const b = data[(y0 * w + x1) * ch + k];
    const cc = data[(y1 * w + x0) * ch + k];
    const d = data[(y1 * w + x1) * ch + k];
    px3[c] = (a * (1 - fx) + b * fx) * (1 - fy) + (cc * (1 - fx) + d * fx) * fy;
  }
  return px3;
}
