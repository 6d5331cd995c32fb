// The sweep over column gutters must choose exactly the cut that splitting the region at each
// gutter in turn chooses: checked against that direct definition on seeded random pages of
// prose columns, label/value rows, scattered short runs and tables.
import { describe, expect, it } from 'vitest';
import type { BBox, Word } from '../canonical/model.js';
import { type FlowItem, readingOrder } from './reading-order.js';

/** The direct definition: split at each gutter, widest first, and tally both sides afresh. */
function referenceOrder(items: FlowItem[], h: number): FlowItem[][] {
  const gaps = (region: FlowItem[], axis: 0 | 1, min: number) => {
    const spans = region.map((i) => [i.bbox[axis], i.bbox[axis + 2]] as const).sort((a, b) => a[0] - b[0]);
    const out: { at: number; size: number }[] = [];
    let reach = spans[0][1];
    for (const [from, to] of spans.slice(1)) {
      if (from - reach >= min) out.push({ at: (from + reach) / 2, size: from - reach });
      reach = Math.max(reach, to);
    }
    return out.sort((a, b) => b.size - a.size);
  };
  const split = (region: FlowItem[], axis: 0 | 1, at: number): [FlowItem[], FlowItem[]] => [
    region.filter((i) => i.bbox[axis + 2] <= at),
    region.filter((i) => i.bbox[axis] >= at),
  ];
  const prose = (side: FlowItem[]) => {
    const text = side.flatMap((i) => (i.kind === 'text' ? [i.words.length] : []));
    if (text.length < 2) return side.some((i) => i.kind === 'table') || (text.length === 1 && text[0] >= 8);
    const median = [...text].sort((a, b) => a - b)[text.length >> 1];
    return text.reduce((a, b) => a + b, 0) >= 12 && median >= 3;
  };
  const leaves: FlowItem[][] = [];
  const cut = (region: FlowItem[], depth: number): void => {
    if (region.length <= 1 || depth > 60) return void (region.length > 0 && leaves.push(region));
    for (const g of gaps(region, 0, 0.9 * h)) {
      const [l, r] = split(region, 0, g.at);
      if (prose(l) && prose(r)) return void (cut(l, depth + 1), cut(r, depth + 1));
    }
    const [widest] = gaps(region, 1, 0.4 * h);
    if (!widest) return void leaves.push(region);
    const [top, bottom] = split(region, 1, widest.at);
    cut(top, depth + 1);
    cut(bottom, depth + 1);
  };
  cut(items, 0);
  return leaves;
}

function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function page(seed: number, count: number): FlowItem[] {
  const next = random(seed);
  const word = (bbox: BBox): Word => ({ text: 'w', bbox, confidence: 1 });
  const columns = 1 + Math.floor(next() * 3);
  return Array.from({ length: count }, (_, i): FlowItem => {
    const column = Math.floor(next() * columns);
    const x0 = column * (560 / columns) + Math.floor(next() * 4) * 20 * next();
    const y0 = Math.floor(next() * 60) * 12 + (next() < 0.3 ? 6 : 0);
    const width = 10 + next() * (520 / columns - 20);
    const bbox: BBox = [x0, y0, x0 + width, y0 + 10];
    if (next() < 0.05) return { kind: 'table', bbox: [x0, y0, x0 + width, y0 + 40], tableIndex: i };
    const words = next() < 0.4 ? 1 + Math.floor(next() * 2) : 3 + Math.floor(next() * 10);
    return { kind: 'text', bbox, words: Array.from({ length: words }, () => word(bbox)) };
  });
}

describe('reading order', () => {
  it('cuts exactly where splitting at each gutter in turn cuts, on 300 random pages', () => {
    let cuts = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const items = page(seed, 5 + (seed % 120));
      const got = readingOrder(items, 10);
      expect(got).toEqual(referenceOrder(items, 10));
      cuts += got.length;
    }
    // The pages are varied enough to exercise cuts, not only single leaves.
    expect(cuts).toBeGreaterThan(3000);
  });
});
