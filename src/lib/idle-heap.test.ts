import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectGarbageNow, collectIdleGarbage } from './idle-heap.js';

const youngGenerationBytes = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.physical_space_size;

describe('collectIdleGarbage', () => {
  it('gives back the young generation a busy spell grew', async () => {
    // A busy spell: many short-lived objects make V8 grow its young generation.
    let churn: object[] = [];
    for (let i = 0; i < 3_000_000; i++) {
      churn.push({ i, text: `row ${i}` });
      if (churn.length > 20_000) churn = [];
    }
    const busy = youngGenerationBytes();
    expect(busy).toBeGreaterThan(8 * 1024 * 1024);

    expect(await collectIdleGarbage()).toBe(true);
    expect(youngGenerationBytes()).toBeLessThan(busy / 4);
  });
});

describe('collectGarbageNow', () => {
  it('frees garbage held in native backing stores', async () => {
    // Like a page's rasters: large buffers, unreachable, that V8 has had no reason to collect yet.
    let rasters: Buffer[] | null = Array.from({ length: 8 }, () => Buffer.alloc(16 * 1024 * 1024, 1));
    const held = process.memoryUsage().arrayBuffers;
    expect(rasters.length).toBe(8);
    rasters = null;
    expect(collectGarbageNow()).toBe(true);
    // V8 frees the collected buffers' memory on a background thread, moments after the collection.
    const freed = () => process.memoryUsage().arrayBuffers < held - 100 * 1024 * 1024;
    for (let waited = 0; !freed() && waited < 2000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(freed()).toBe(true);
  });
});
