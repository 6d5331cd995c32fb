import { describe, expect, it } from 'vitest';
import { disposition, noneMatch, parseRange } from './artifacts.js';

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

describe('If-None-Match', () => {
  const etag = '"abc123"';
  it('matches the tag itself, its weak form, a list holding it and *', () => {
    expect(noneMatch(etag, etag)).toBe(true);
    expect(noneMatch('W/"abc123"', etag)).toBe(true);
    expect(noneMatch('"other", W/"abc123"', etag)).toBe(true);
    expect(noneMatch(' * ', etag)).toBe(true);
  });

  it('does not match other tags, nothing, or a tag without its quotes', () => {
    expect(noneMatch(undefined, etag)).toBe(false);
    expect(noneMatch('"abc12"', etag)).toBe(false);
    expect(noneMatch('abc123', etag)).toBe(false);
  });
});

describe('Content-Disposition', () => {
  it('percent-encodes everything outside RFC 8187 attr-char in filename*, and keeps the ASCII name quoted safely', () => {
    expect(disposition(`it's (final)*.pdf`, false)).toBe(`attachment; filename="it's (final)*.pdf"; filename*=UTF-8''it%27s%20%28final%29%2A.pdf`);
    expect(disposition('Faktura "č. 1"\r\n.pdf', true)).toBe(`inline; filename="Faktura __. 1___.pdf"; filename*=UTF-8''Faktura%20%22%C4%8D.%201%22%0D%0A.pdf`);
  });
});
