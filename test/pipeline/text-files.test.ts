// Plain-text files: cost linear in their size, and the text as written.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Line, PipelineError, runCanonical, sniff } from '../../src/pipeline/index.js';
import { joinLines } from '../../src/pipeline/layout/lines.js';
import { readDataText } from './data.js';
import { receiptText } from './sroie.js';

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

describe('text that is not UTF-8', () => {
  // "Preis: 12,50 € – „Müller“" as Windows-1252 writes it (€ 0x80, – 0x96, „ 0x84, “ 0x93).
  const cp1252 = Buffer.from([...Buffer.from('Preis: 12,50 '), 0x80, 0x20, 0x96, 0x20, 0x84, ...Buffer.from('M'), 0xfc, ...Buffer.from('ller'), 0x93, 0x0a]);

  it('reads Windows-1252 text, and says so in its content type', async () => {
    expect(sniff(cp1252)).toEqual({ format: 'text', contentType: 'text/plain; charset=windows-1252' });
    expect((await runCanonical(cp1252)).text).toBe('Preis: 12,50 € – „Müller“');
  });

  it('reads a long ASCII text with one Latin-1 byte far into it', async () => {
    const bytes = Buffer.concat([Buffer.from('plain ascii line\n'.repeat(5_000)), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a])]);
    const doc = await runCanonical(bytes);
    expect(doc.text.endsWith('Café')).toBe(true);
  });

  it('still refuses binary data', () => {
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251);
    expect(() => sniff(random)).toThrow(/binary data of an unknown type/);
  });
});

describe('the line structure of text files', () => {
  it('keeps a receipt transcript\'s lines apart: shop name, address, date and total are lines of their own', async () => {
    const doc = await runCanonical(receiptText('000').bytes);
    const lines = doc.text.split('\n');
    for (const line of ['TAN WOON YANN', 'BOOK TA .K(TAMAN DAYA) SDN BND', 'NO.53 55,57 & 59, JALAN SAGU 18,', 'TAMAN DAYA,', '81100 JOHOR BAHRU,', 'DATE: 25/12/2018 8:13:39 PM', 'TOTAL: 9.00', 'CASH 10.00', 'CHANGE 1.00']) {
      expect(lines, line).toContain(line);
    }
    expect(doc.pages[0]!.blocks.find((b) => b.text === 'TOTAL: 9.00')?.lines).toHaveLength(1);
    // The one sentence the till wrapped is still joined.
    expect(lines).toContain('GOODS SOLD ARE NOT RETURNABLE OR EXCHANGEABLE');
  });

  it('still joins the wrapped lines of prose into paragraphs, and starts a paragraph at an indented line', async () => {
    const doc = await runCanonical(Buffer.from(readDataText('ocr-text/phototest.gold.txt')));
    expect(doc.text.split('\n\n')).toEqual([
      'This is a lot of 12 point text to test the ocr code and see if it works on all types of file format.',
      'The quick brown dog jumped over the lazy fox. The quick brown dog jumped over the lazy fox. The quick brown dog jumped over the lazy fox. The quick brown dog jumped over the lazy fox.',
    ]);
    const magazine = await runCanonical(Buffer.from(readDataText('ocr-text/8071_093.3B.txt')));
    const paragraphs = magazine.text.split('\n\n');
    expect(paragraphs).toContain('"I\'ve never forgotten that mo-ment," says Kathleen Kilpatrick, a special assistant in the office of the U.S. Secretary of the Interior. "How often I\'ve thought back and wondered that he didn\'t just laugh at me. Instead, he treated me with dignity and concern for how deeply I felt."');
  });
});
