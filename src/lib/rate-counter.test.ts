import { describe, expect, it } from 'vitest';
import { MemoryRateCounter, currentWindow, digest } from './rate-counter.js';

describe('currentWindow', () => {
  it('aligns windows to the clock', () => {
    expect(currentWindow(120_000, 60_000)).toEqual({ index: 2, resetAt: 180_000 });
    expect(currentWindow(179_999, 60_000)).toEqual({ index: 2, resetAt: 180_000 });
  });
});

describe('MemoryRateCounter', () => {
  it('counts per key within a window and starts over in the next', async () => {
    let now = 60_000;
    const counter = new MemoryRateCounter(() => now);
    expect(await counter.hit('a', 60_000)).toEqual({ count: 1, resetAt: 120_000 });
    expect(await counter.hit('a', 60_000)).toEqual({ count: 2, resetAt: 120_000 });
    expect(await counter.peek('a', 60_000)).toEqual({ count: 2, resetAt: 120_000 });
    expect((await counter.hit('b', 60_000)).count).toBe(1);
    now = 120_000;
    expect(await counter.peek('a', 60_000)).toEqual({ count: 0, resetAt: 180_000 });
    expect((await counter.hit('a', 60_000)).count).toBe(1);
  });

  it('forgets finished windows', async () => {
    let now = 0;
    const counter = new MemoryRateCounter(() => now);
    for (let i = 0; i < 100; i++) await counter.hit(`ip-${i}`, 60_000);
    now = 60_000;
    await counter.hit('x', 60_000);
    expect((counter as unknown as { counts: Map<string, unknown> }).counts.size).toBe(1);
  });
});

describe('digest', () => {
  it('hides the key material', () => {
    expect(digest('Someone@Example.com')).toMatch(/^[0-9a-f]{32}$/);
    expect(digest('a')).not.toBe(digest('b'));
  });
});
