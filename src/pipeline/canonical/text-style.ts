// Document-wide body text style: headings are "bigger than the body" across the whole document,
// not per page, so a cover page in one big font does not make its title body text.
import type { Word } from '../canonical/model.js';
import type { TextStyle } from '../layout/blocks.js';

export function measureStyle(pages: readonly (readonly Word[])[]): TextStyle {
  // Character-weighted histogram of sizes at 0.5 pt resolution; the peak is the body size.
  const chars = new Map<number, { n: number; bold: number }>();
  const faces = new Map<string, number>();
  for (const words of pages)
    for (const w of words) {
      if (w.font) faces.set(w.font, (faces.get(w.font) ?? 0) + w.text.length);
      const key = Math.round((w.fontSize ?? w.bbox[3] - w.bbox[1]) * 2) / 2;
      const e = chars.get(key) ?? { n: 0, bold: 0 };
      e.n += w.text.length;
      if (w.bold) e.bold += w.text.length;
      chars.set(key, e);
    }
  let best = 0;
  let bestN = -1;
  for (const [size, e] of chars) if (e.n > bestN) [best, bestN] = [size, e.n];
  const body = chars.get(best);
  const bodyFont = [...faces.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  return { bodySize: best || 12, bodyBold: body ? body.bold * 2 > body.n : false, bodyFont };
}
