import { describe, expect, it } from 'vitest';
import { parseRange } from './artifacts.js';

describe('Range header', () => {
  it('serves single byte ranges, suffixes and open ends', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ kind: 'partial', range: { start: 0, end: 9 } });
    expect(parseRange('bytes=90-', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=-5', 100)).toEqual({ kind: 'partial', range: { start: 95, end: 99 } });
    expect(parseRange('bytes=50-1000', 100)).toEqual({ kind: 'partial', range: { start: 50, end: 99 } });
    expect(parseRange('bytes=-500', 100)).toEqual({ kind: 'partial', range: { start: 0, end: 99 } });
  });

  it('answers the whole file for no, several or malformed ranges, and 416 past the end', () => {
    expect(parseRange(undefined, 100)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1,5-6', 100)).toEqual({ kind: 'full' });
    expect(parseRange('items=0-1', 100)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=9-3', 100)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
  });
});
