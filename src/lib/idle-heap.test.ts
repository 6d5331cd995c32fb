import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectIdleGarbage } from './idle-heap.js';

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
