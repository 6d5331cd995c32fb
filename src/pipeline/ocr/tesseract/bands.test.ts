import { describe, expect, it } from 'vitest';
import type { RasterImage } from '../types.js';
import { bandRaster, bandsOf, joinBands } from './bands.js';

/** A white page `width` wide with black rows where `ink(y)` says so (in every channel). */
function page(width: number, height: number, channels: 1 | 3, ink: (y: number) => number): RasterImage {
  const data = Buffer.alloc(width * height * channels, 255);
  for (let y = 0; y < height; y++) {
    const dark = ink(y);
    for (let x = 0; x < dark; x++) data.fill(0, (y * width + x) * channels, (y * width + x + 1) * channels);
  }
  return { data, width, height, channels };
}

/** Text lines 40 rows high every 60 rows: rows 0–39 inked, 40–59 blank, and so on. */
const lines = (y: number) => (y % 60 < 40 ? 500 : 0);

describe('bandsOf', () => {
  it('leaves a page within the budget whole', () => {
    expect(bandsOf(page(1000, 2000, 1, lines), 2_000_000)).toEqual([{ top: 0, bottom: 2000 }]);
  });

  it('cuts a larger page between text lines, each band within the budget', () => {
    for (const channels of [1, 3] as const) {
      const r = page(1000, 5000, channels, lines);
      const bands = bandsOf(r, 1_000_000);
      expect(bands.length).toBeGreaterThanOrEqual(5);
      expect(bands[0]!.top).toBe(0);
      expect(bands.at(-1)!.bottom).toBe(5000);
      for (const [i, b] of bands.entries()) {
        expect(b.bottom - b.top).toBeLessThanOrEqual(1000);
        if (i > 0) expect(b.top).toBe(bands[i - 1]!.bottom);
        // Every cut is in the middle of a blank gap (rows 40–59 of a line's 60).
        if (i > 0) expect(b.top % 60).toBe(50);
      }
    }
  });

  it('prefers the widest gap, and rows crossed only by a thin rule', () => {
    // A ruled form: a 3-pixel rule down every row, lines of text, one wide gap at 800–899.
    const r = page(1000, 1400, 1, (y) => (y >= 800 && y < 900 ? 3 : y % 50 < 40 ? 600 : 3));
    // The wide gap joins the line gap before it (790–799): rows 790–899, cut at their middle.
    expect(bandsOf(r, 1_000_000)[0]).toEqual({ top: 0, bottom: 845 });
  });

  it('lets bands of a very wide page grow to 600 rows, past the budget', () => {
    // 1,000,000 pixels would be 100 rows of this page: too few for a line of large text.
    const bands = bandsOf(page(10_000, 1500, 1, lines), 1_000_000);
    expect(bands.length).toBeLessThanOrEqual(5);
    for (const b of bands) expect(b.bottom - b.top).toBeLessThanOrEqual(600);
    for (const b of bands.slice(0, -1)) expect(b.bottom - b.top).toBeGreaterThan(300);
  });
});

describe('bands', () => {
  it('share the page pixels and come back in page coordinates', () => {
    const r = page(100, 300, 3, () => 0);
    const band = bandRaster(r, { top: 100, bottom: 250 });
    expect(band).toMatchObject({ width: 100, height: 150, channels: 3 });
    expect(band.data.buffer).toBe(r.data.buffer);
    expect(band.data.byteOffset - r.data.byteOffset).toBe(100 * 100 * 3);

    const word = { text: 'total', bbox: [10, 5, 40, 20] as [number, number, number, number], confidence: 0.9 };
    const joined = joinBands(100, 300, [
      { band: { top: 0, bottom: 100 }, page: { width: 100, height: 100, lines: [{ text: 'total', bbox: word.bbox, confidence: 0.9, words: [word] }] } },
      { band: { top: 100, bottom: 250 }, page: { width: 100, height: 150, lines: [{ text: 'total', bbox: word.bbox, confidence: 0.9, words: [word] }] } },
    ]);
    expect(joined.width).toBe(100);
    expect(joined.height).toBe(300);
    expect(joined.lines.map((l) => l.bbox)).toEqual([
      [10, 5, 40, 20],
      [10, 105, 40, 120],
    ]);
    expect(joined.lines[1]!.words[0]!.bbox).toEqual([10, 105, 40, 120]);
  });
});
