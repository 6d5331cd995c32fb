// Horizontal bands of a page, cut where the page is blank, so that tesseract.js reads a tall or
// large page a band at a time. Its WebAssembly memory grows with the largest image it has read
// and never shrinks (about 14 MB a megapixel, docs/performance.md); reading bands bounds it by
// the band. A cut falls in the widest run of the emptiest rows, between text lines, so every line
// is read whole in one band; word boxes come back in the page's pixels.
import type { OcrLine, PixelPage, RasterImage } from '../types.js';

export interface Band {
  top: number;
  bottom: number;
}

/** A band is never cut shorter than this (a few lines of large text), whatever the width. */
const MIN_BAND_ROWS = 600;
/** A cut is looked for in the lower half of a full band: bands stay at least half the budget. */
const SEARCH_FROM = 0.5;
/** Luminance below this is ink. */
const INK = 128;

/** The page's bands, top to bottom: one band when the page is within `maxPixels`. */
export function bandsOf(r: RasterImage, maxPixels: number): Band[] {
  const maxRows = Math.max(MIN_BAND_ROWS, Math.floor(maxPixels / r.width));
  if (r.height <= maxRows) return [{ top: 0, bottom: r.height }];
  const bands: Band[] = [];
  let top = 0;
  while (r.height - top > maxRows) {
    const cut = blankestCut(r, top + Math.floor(maxRows * SEARCH_FROM), top + maxRows);
    bands.push({ top, bottom: cut });
    top = cut;
  }
  bands.push({ top, bottom: r.height });
  return bands;
}

/** The rows `band` spans, sharing the page's pixels. */
export function bandRaster(r: RasterImage, band: Band): RasterImage {
  const stride = r.width * r.channels;
  return { data: r.data.subarray(band.top * stride, band.bottom * stride), width: r.width, height: band.bottom - band.top, channels: r.channels };
}

/** The bands' readings as one page: lines in band order, boxes moved down by the band's top. */
export function joinBands(width: number, height: number, readings: { band: Band; page: PixelPage }[]): PixelPage {
  const lines: OcrLine[] = [];
  for (const { band, page } of readings) {
    for (const line of page.lines) {
      lines.push({
        ...line,
        bbox: shifted(line.bbox, band.top),
        words: line.words.map((w) => ({ ...w, bbox: shifted(w.bbox, band.top) })),
      });
    }
  }
  return { width, height, lines };
}

const shifted = ([x0, y0, x1, y1]: OcrLine['bbox'], dy: number): OcrLine['bbox'] => [x0, y0 + dy, x1, y1 + dy];

/** How many pixels of each row in [from, to) are ink; only the rows a cut is looked for in. */
function inkPerRow(r: RasterImage, from: number, to: number): Uint32Array {
  const ink = new Uint32Array(to - from);
  const { data, width, channels } = r;
  for (let y = from; y < to; y++) {
    let n = 0;
    const row = y * width * channels;
    if (channels === 1) {
      for (let x = 0; x < width; x++) if (data[row + x]! < INK) n++;
    } else {
      for (let i = row, end = row + width * 3; i < end; i += 3) {
        if (data[i]! * 77 + data[i + 1]! * 150 + data[i + 2]! * 29 < INK << 8) n++;
      }
    }
    ink[y - from] = n;
  }
  return ink;
}

/**
 * The middle of the longest run of rows in [from, to) whose ink is within a small tolerance of
 * the emptiest row's (a blank line between text lines; on a ruled form, rows crossed only by the
 * rules). The later run wins a tie, which keeps bands large.
 */
function blankestCut(r: RasterImage, from: number, to: number): number {
  const ink = inkPerRow(r, from, to);
  let least = Infinity;
  for (const n of ink) least = Math.min(least, n);
  const limit = least + Math.max(2, Math.round(r.width * 0.002));
  let best = { start: to - 1, length: 0 };
  let start = -1;
  for (let y = from; y <= to; y++) {
    const blank = y < to && ink[y - from]! <= limit;
    if (blank && start < 0) start = y;
    if (!blank && start >= 0) {
      if (y - start >= best.length) best = { start, length: y - start };
      start = -1;
    }
  }
  return best.start + Math.floor(best.length / 2);
}
