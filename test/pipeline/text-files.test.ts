// Plain-text files: cost linear in their size, and the text as written.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Line, PipelineError, runCanonical } from '../../src/pipeline/index.js';
import { joinLines } from '../../src/pipeline/layout/lines.js';

const line = (text: string): Line => ({ text, bbox: [0, 0, 1, 1], words: [] });

describe('joining lines', () => {
  afterEach(() => vi.restoreAllMocks());

  it('continues a hyphenated word and separates the others with a space', () => {
    expect(joinLines(['trans-', 'port', 'soft\u00ad', 'ware', 'end'].map(line))).toBe('trans-port soft\u00adware end');
    expect(joinLines(['', 'a', '', 'b'].map(line))).toBe('a  b');
    expect(joinLines(['a-', '', 'b'].map(line))).toBe('a-b');
  });

  it('looks at each line once, not at everything joined before it (linear in the text)', () => {
    // Counted, not timed: the characters of the strings endsWith is asked about. Asking the
    // growing output made a 200,000-line text file take 111 s.
    let examined = 0;
    const endsWith = String.prototype.endsWith;
    vi.spyOn(String.prototype, 'endsWith').mockImplementation(function (this: string, ...args: Parameters<typeof endsWith>) {
      examined += this.length;
      return endsWith.apply(this, args);
    });
    const lines = Array.from({ length: 5_000 }, () => line('word'));
    expect(joinLines(lines)).toHaveLength(5_000 * 5 - 1);
    expect(examined).toBeLessThan(5_000 * 5 * 4);
  });
});

describe('the page cap on text files', () => {
  const threePages = Buffer.from('one\fpage two\fpage three\n');

  it('fails a text of more form-feed pages than pdf_max_pages, or reads the first ones with truncate', async () => {
    const err = await runCanonical(threePages, { pdfMaxPages: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect(err).toMatchObject({ code: 'page_cap_exceeded', pageCount: 3 });
    const doc = await runCanonical(threePages, { pdfMaxPages: 2, pageCapPolicy: 'truncate' });
    expect(doc.page_count).toBe(3);
    expect(doc.pages.map((p) => p.page_number)).toEqual([1, 2]);
  });

  it('does not make 100,001 pages of a file of form feeds', async () => {
    const doc = await runCanonical(Buffer.from('a\f'.repeat(100_000)), { pdfMaxPages: 200, pageCapPolicy: 'truncate' });
    expect(doc.page_count).toBe(100_001);
    expect(doc.pages).toHaveLength(200);
  });
});

describe('right-to-left text in text files', () => {
  it('keeps the words of Hebrew and Arabic lines in the order written', async () => {
    const doc = await runCanonical(Buffer.from('שלום עולם טוב מאוד\n\nمرحبا بالعالم الجميل\n\nTotal 12.50\n'));
    expect(doc.text).toContain('שלום עולם טוב מאוד');
    expect(doc.text).toContain('مرحبا بالعالم الجميل');
    expect(doc.text).toContain('Total 12.50');
    // Placed as shown: right-aligned words of a right-to-left line stay within the page.
    for (const w of doc.pages[0]!.blocks.flatMap((b) => b.lines.flatMap((l) => l.words))) expect(w.bbox[0]).toBeGreaterThanOrEqual(0);
  });
});
