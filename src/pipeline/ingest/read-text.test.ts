import { describe, expect, it } from 'vitest';
import { readText } from './read-text.js';

describe('reading a text file', () => {
  it('reads a page with a 200 kB run of spaces inside a line in time linear in its length', () => {
    // /\s+$/ was tried from every space of the run: 200 kB took 90 s.
    const read = readText(new TextEncoder().encode('\n\nalpha' + ' \t'.repeat(100_000) + 'omega \n\n'));
    expect(read.pageCount).toBe(1);
    expect(read.pages[0]!.words!.map((w) => w.text)).toEqual(['alpha', 'omega']);
  });
});
