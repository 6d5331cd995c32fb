// Where the ink is on a page image: the box OCR reads. A receipt photographed or scanned on a wide
// white sheet keeps its text at full size while the engines skip the empty paper around it.
import sharp from 'sharp';
import { otsu } from './analysis.js';
import type { RasterImage } from './types.js';

/** [left, top, width, height] in pixels of the image. */
export type PixelRect = [number, number, number, number];

/**
 * The box holding the image's ink, with a margin, found on a copy at most 800 pixels long. A row or
 * column counts when it holds a few ink pixels, so lone specks do not widen the box. A blank image
 * gives the whole image.
 */
export async function contentBox(r: RasterImage): Promise<PixelRect> {
  const k = Math.min(1, 800 / Math.max(r.width, r.height));
  const w = Math.max(1, Math.round(r.width * k));
  const h = Math.max(1, Math.round(r.height * k));
  const g = await sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } }).resize(w, h, { fit: 'fill' }).toColourspace('b-w').raw().toBuffer();
  const t = otsu(g);
  const rows = new Uint32Array(h);
  const cols = new Uint32Array(w);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (g[y * w + x] <= t) {
        rows[y]++;
        cols[x]++;
      }
    }
  }
  const first = (a: Uint32Array) => a.findIndex((v) => v >= 2);
  const last = (a: Uint32Array) => a.length - 1 - [...a].reverse().findIndex((v) => v >= 2);
  const x0 = first(cols);
  const y0 = first(rows);
  if (x0 < 0 || y0 < 0) return [0, 0, r.width, r.height];
  const m = 0.02 * Math.max(w, h) + 4;
  const left = Math.max(0, Math.floor((x0 - m) / k));
  const top = Math.max(0, Math.floor((y0 - m) / k));
  const right = Math.min(r.width, Math.ceil((last(cols) + 1 + m) / k));
  const bottom = Math.min(r.height, Math.ceil((last(rows) + 1 + m) / k));
  return [left, top, Math.max(1, right - left), Math.max(1, bottom - top)];
}

/**
 * Where `rect` of a `width`×`height` image lands once the image is turned `quarters` quarter turns
 * clockwise (as sharp's rotate turns it).
 */
export function turnRect([x, y, w, h]: PixelRect, width: number, height: number, quarters: 0 | 1 | 2 | 3): PixelRect {
  if (quarters === 1) return [height - (y + h), x, h, w];
  if (quarters === 2) return [width - (x + w), height - (y + h), w, h];
  if (quarters === 3) return [y, width - (x + w), h, w];
  return [x, y, w, h];
}
