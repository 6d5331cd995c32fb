import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './backoff.js';

describe('delivery retry delay', () => {
  it('doubles per attempt between half and all of the ceiling', () => {
    expect(retryDelayMs(1, 5_000, () => 0)).toBe(2_500);
    expect(retryDelayMs(1, 5_000, () => 1)).toBe(5_000);
    expect(retryDelayMs(3, 5_000, () => 0)).toBe(10_000);
    expect(retryDelayMs(3, 5_000, () => 1)).toBe(20_000);
  });

  it('is capped at an hour', () => {
    expect(retryDelayMs(30, 5_000, () => 1)).toBe(3_600_000);
  });
});
