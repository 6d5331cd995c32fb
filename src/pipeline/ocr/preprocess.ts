// Image clean-up before OCR, driven by the tenant's `preprocessing_policy` (docs/ocr.md):
// cropping to the inked area, orientation (0/90/180/270), deskew, contrast normalisation,
// binarisation (tesseract input only: the paddle models are trained on natural grey/colour images),
// upscaling of small text and reduction of pages past the engines' pixel budget.
// Returns both engine inputs in the same geometry, the mapping of their pixels back to the
// oriented page, and the risk signals selection uses (rotated, low contrast, tiny glyphs).
import sharp, { type Sharp } from 'sharp';
import { type PixelRect, contentBox, turnRect } from './content-box.js';
import { contrastSpread, findSkew, inkPoints, lineStats, otsu, rowProfile } from './analysis.js';
import type { PointMap } from './geometry.js';
import { toGray } from './image.js';
import type { PreprocessingPolicy } from './policy.js';
import type { RasterImage } from './types.js';

export interface Prepared {
  /** Input for tesseract (binarised when the policy says so). */
  tesseract: RasterImage;
  /** Input for paddle: same geometry, not binarised. */
  paddle: RasterImage;
  /** Clockwise quarter turns applied to the original. */
  quarters: 0 | 1 | 2 | 3;
  /** Degrees the page was straightened by (text-line angle found). */
  skew: number;
  /** Factor the page was scaled by: above 1 enlarged (small text), below 1 reduced (pixel budget). */
  upscale: number;
  /** Engine-input pixels → pixels of the original image after the quarter turns. */
  toOriented: PointMap;
  /** Size of the original image after the quarter turns. */
  orientedWidth: number;
  orientedHeight: number;
  signals: {
    /** Ink-to-paper contrast of the original, in [0, 1] (analysis.ts contrastSpread). */
    contrast: number;
    /** Median text-line height in original pixels (0 when none found). */
    lineHeightPx: number;
    /** Evidence that the page is upright after correction (log ratio; near 0 = unsure). */
    uprightEvidence: number;
  };
}

/**
 * The engines' input stays under this many pixels (an A4 page at 400 dpi): every copy costs memory,
 * and tesseract.js's WebAssembly memory grows with the largest page it read (measured: 680 MB more
 * for a 35-megapixel receipt scan, 240 MB for 8.7). Small text is enlarged up to it; a larger page
 * is reduced to it.
 */
export const MAX_ENGINE_PIXELS = 15_000_000;

/** The inked area is read alone when it leaves out at least this share of the image. */
const MIN_CROP_SAVING = 0.1;

/** Longest side of the copy the analysis runs on. */
const ANALYSIS_SIDE = 1400;

/** The paddle detector and line classifier, used (when given) to tell the page's orientation. */
export interface OrientationModels {
  /** Text-line boxes (quads, clockwise from top-left). */
  lineBoxes(raster: RasterImage): Promise<[number, number][][]>;
  /** > 0 when the text on the image reads upside down (classifier vote in [-1, 1]). */
  upsideDown(raster: RasterImage): Promise<number>;
}

/**
 * Whether the text runs vertically, from detected line boxes: lines read sideways are tall.
 * Returns undefined when there are too few clear boxes to tell.
 */
export function linesAreVertical(quads: [number, number][][]): boolean | undefined {
  let wide = 0;
  let tall = 0;
  for (const q of quads) {
    const w = Math.hypot(q[1][0] - q[0][0], q[1][1] - q[0][1]);
    const h = Math.hypot(q[3][0] - q[0][0], q[3][1] - q[0][1]);
    if (w >= 2 * h) wide += w;
    else if (h >= 2 * w) tall += h;
  }
  if (wide + tall === 0) return undefined;
  return tall > 2 * wide ? true : wide > 2 * tall ? false : undefined;
}

export async function preprocess(page: RasterImage, policy: PreprocessingPolicy, models?: OrientationModels): Promise<Prepared> {
  // The analysis and the engines see the inked area alone: on a receipt scanned on a wide sheet
  // the lines are then measured at full size, and the engines skip the empty paper.
  const ink = await contentBox(page);
  const inked = ink[2] * ink[3] <= (1 - MIN_CROP_SAVING) * page.width * page.height ? ink : undefined;
  const raster = inked ? await extract(page, inked) : page;
  const gray = toGray(raster);
  const contrast = contrastSpread(gray.data);

  // Analysis on a small copy: orientation, skew, line height.
  const scale = Math.min(1, ANALYSIS_SIDE / Math.max(gray.width, gray.height));
  const small =
    scale < 1
      ? await rawGray(sharp(gray.data, { raw: { width: gray.width, height: gray.height, channels: 1 } }).resize(side(gray.width * scale), side(gray.height * scale), { kernel: 'linear' }))
      : gray;
  const { xs, ys } = inkPoints(small, otsu(small.data));
  const extent = Math.max(small.width, small.height);
  const maxSkew = policy.deskew ? policy.max_skew_degrees : 0;

  let quarters: 0 | 1 | 2 | 3 = 0;
  let skew = 0;
  let stats = { lineHeight: 0, lines: 0, uprightEvidence: 0 };
  if (xs.length > 200) {
    const horizontal = findSkew(xs, ys, extent, maxSkew);
    let best = horizontal;
    let px = xs;
    let py = ys;
    if (policy.orientation) {
      // Points of the page turned a quarter clockwise: (x, y) → (H − 1 − y, x).
      const rx = Float32Array.from(ys, (y) => small.height - 1 - y);
      const ry = xs;
      const vertical = findSkew(rx, ry, extent, maxSkew);
      // The text detector tells line direction reliably; the profile alone is fooled by
      // monospaced receipts, whose character columns line up as sharply as their rows.
      const boxes = models ? await models.lineBoxes(small) : undefined;
      // No text line at all (a page of drawings, a filled box): nothing to turn upright by.
      const detected = boxes ? (boxes.length ? linesAreVertical(boxes) : false) : undefined;
      const turn = detected ?? vertical.score > horizontal.score * 1.3;
      if (turn) {
        quarters = 1;
        best = vertical;
        px = rx;
        py = ry;
      }
    }
    skew = best.angle;
    stats = lineStats(rowProfile(px, py, skew, extent));
    // Upside down? The line classifier when available (the ascender balance is fooled by
    // all-capitals receipts), else the balance of ink above and below the x-height band.
    const flip = models
      ? (await models.upsideDown(quarters ? await rotateQuarters(small, quarters) : small)) > 0.2
      : stats.lines >= 2 && stats.uprightEvidence < -0.15;
    if (policy.orientation && flip) {
      quarters = ((quarters + 2) % 4) as 0 | 1 | 2 | 3;
      stats = { ...stats, uprightEvidence: -stats.uprightEvidence };
    }
  }
  const lineHeightPx = stats.lineHeight / scale;

  // Quarter turns (sharp rotates clockwise); `crop` is where the turned inked area sits on the
  // turned page.
  let img = quarters ? await rotateQuarters(raster, quarters) : raster;
  const crop = turnRect(inked ?? [0, 0, page.width, page.height], page.width, page.height, quarters);
  const [orientedWidth, orientedHeight] = quarters % 2 ? [page.height, page.width] : [page.width, page.height];

  let upscale = 1;
  if (policy.upscale && lineHeightPx > 0 && lineHeightPx < policy.min_line_height_px) {
    upscale = Math.min(policy.max_upscale, policy.min_line_height_px / lineHeightPx);
    if (upscale < 1.15) upscale = 1;
  }
  // Never past the pixel budget: it caps enlargement and reduces a larger page.
  upscale = Math.min(upscale, Math.sqrt(MAX_ENGINE_PIXELS / (img.width * img.height)));
  if (upscale >= 1 && upscale < 1.15) upscale = 1;
  // A reduction comes before the straightening, which then runs on fewer pixels; an enlargement
  // after it. Scaling and rotating about the centre commute, so the mapping back is the same.
  if (upscale < 1) img = await scaled(img, upscale, 'linear');
  if (Math.abs(skew) < 0.2) skew = 0;
  if (skew !== 0) img = rotateSmall(img, skew);
  if (upscale > 1) img = await scaled(img, upscale, 'lanczos3');
  const paddle = policy.normalize_contrast ? await normalise(img) : img;
  const tesseract = policy.binarize ? binarise(toGray(paddle)) : paddle;

  const cx = img.width / 2;
  const cy = img.height / 2;
  const t = (skew * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  const ox = crop[0] + crop[2] / 2;
  const oy = crop[1] + crop[3] / 2;
  // Undo the scaling, then the straightening (a rotation about the centre), then the crop.
  const toOriented: PointMap = (x, y) => {
    const dx = x - cx;
    const dy = y - cy;
    return [ox + (dx * c - dy * s) / upscale, oy + (dx * s + dy * c) / upscale];
  };
  return {
    tesseract,
    paddle,
    quarters,
    skew,
    upscale,
    toOriented,
    orientedWidth,
    orientedHeight,
    signals: { contrast, lineHeightPx, uprightEvidence: stats.uprightEvidence },
  };
}

async function rawGray(p: Sharp): Promise<RasterImage> {
  return rawOf(p, 1);
}

async function rawOf(p: Sharp, channels: 1 | 3): Promise<RasterImage> {
  const { data, info } = await (channels === 1 ? p.toColourspace('b-w') : p.toColourspace('srgb').removeAlpha()).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels };
}

async function extract(r: RasterImage, [left, top, width, height]: PixelRect): Promise<RasterImage> {
  return rawOf(sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } }).extract({ left, top, width, height }), r.channels);
}

/**
 * A scaled side in whole pixels, never 0: a 30000×10 strip brought to 1400 pixels long is 0.47
 * pixels high, and sharp refuses a height of 0.
 */
const side = (length: number, round: (n: number) => number = Math.round) => Math.max(1, round(length));

/** Scaled by `factor`, rounding down when reducing so that the pixel budget holds. */
async function scaled(r: RasterImage, factor: number, kernel: 'linear' | 'lanczos3'): Promise<RasterImage> {
  const round = factor < 1 ? Math.floor : Math.round;
  return rawOf(sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } }).resize(side(r.width * factor, round), side(r.height * factor, round), { kernel }), r.channels);
}

async function rotateQuarters(r: RasterImage, q: 1 | 2 | 3): Promise<RasterImage> {
  return rawOf(sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } }).rotate(q * 90), r.channels);
}

/** Linear stretch of the 1st–99th luminance percentiles to the full range. */
async function normalise(r: RasterImage): Promise<RasterImage> {
  return rawOf(sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } }).normalise({ lower: 1, upper: 99 }), r.channels);
}

function binarise(g: RasterImage): RasterImage {
  const t = otsu(g.data);
  const out = Buffer.allocUnsafe(g.data.length);
  for (let i = 0; i < g.data.length; i++) out[i] = g.data[i] > t ? 255 : 0;
  return { ...g, data: out };
}

/**
 * Straightens text lines found at `deg` by rotating the image about its centre, keeping the canvas
 * size (corners fill white): for the few degrees deskew handles, nothing with text is lost.
 * Output pixel p samples the source at centre + R(deg)·(p − centre), bilinearly.
 */
export function rotateSmall(r: RasterImage, deg: number): RasterImage {
  const { width: w, height: h, channels: ch, data } = r;
  const out = Buffer.alloc(data.length, 255);
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  const cx = w / 2;
  const cy = h / 2;
  for (let y = 0; y < h; y++) {
    const dy = y + 0.5 - cy;
    for (let x = 0; x < w; x++) {
      const dx = x + 0.5 - cx;
      const sx = cx + dx * c - dy * s - 0.5;
      const sy = cy + dx * s + dy * c - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= w - 1 || y0 >= h - 1) continue;
      const fx = sx - x0;
      const fy = sy - y0;
      const i00 = (y0 * w + x0) * ch;
      const i01 = i00 + ch;
      const i10 = i00 + w * ch;
      const i11 = i10 + ch;
      const o = (y * w + x) * ch;
      for (let k = 0; k < ch; k++) {
        out[o + k] = Math.round((data[i00 + k] * (1 - fx) + data[i01 + k] * fx) * (1 - fy) + (data[i10 + k] * (1 - fx) + data[i11 + k] * fx) * fy);
      }
    }
  }
  return { ...r, data: out };
}
