// Sniffing the real type from bytes, page ranges and the page cap plan.
import { describe, expect, it } from 'vitest';
import { pdfWithContent } from '../../bench/lib/hostile-files.js';
import { PipelineError, parsePageRange, runCanonical, sniff } from '../../src/pipeline/index.js';
import { planPages } from '../../src/pipeline/ingest/page-plan.js';
import { selectPages } from '../../src/pipeline/ingest/page-range.js';
import { readData } from './data.js';
import { deck, slide, sp } from './decks.js';
import { unzipSync, zipSync } from 'fflate';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof PipelineError ? err.code : `not a PipelineError: ${String(err)}`;
  }
  return 'no error';
};

describe('sniff', () => {
  it.each([
    ['invoice2data/compare/oyo.pdf', 'pdf'],
    ['pdf-realworld/pdfs/issue-848.pdf', 'pdf'], // "GPL Ghostscript" junk before %PDF-
    ['invoice2data/compare/oyo.png', 'png'],
    ['docling/ocr/sources/qr_bill_example.jpg', 'jpeg'],
    ['ocr-text/phototest.tif', 'tiff'],
    ['pptx-python-pptx/files/prs-notes.pptx', 'pptx'],
    ['invoice2data/compare/Orlen.txt', 'text'],
  ])('%s is %s whatever its name says', (file, format) => {
    expect(sniff(readData(file)).format).toBe(format);
  });

  it('refuses ZIPs that are not presentations and unknown binary data', () => {
    expect(code(() => sniff(readData('pdf-realworld/pdfs/issue-948.zip')))).toBe('unsupported_format');
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251);
    expect(code(() => sniff(random))).toBe('unsupported_format');
  });

  it('trusts a definite signature over a PDF header in the payload', () => {
    const pdf = pdfWithContent('BT /F1 12 Tf 72 700 Td (inside) Tj ET');
    // A deck whose first entry is a PDF stored uncompressed: "%PDF-" within its first 1024 bytes.
    const withPdf = zipSync({ 'embedded.pdf': [pdf, { level: 0 }], ...unzipSync(deck([slide(sp('Deck text'))])) });
    expect(sniff(withPdf).format).toBe('pptx');
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\x0ftEXtComment\0%PDF-1.4')]);
    expect(sniff(png).format).toBe('png');
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x10]), Buffer.from('%PDF-1.4 comment')]);
    expect(sniff(jpeg).format).toBe('jpeg');
    expect(sniff(Buffer.from('Notes on the %PDF-1.7 header\nA PDF starts with it.\n')).format).toBe('text');
  });

  it('finds a presentation whose main part has another name, from its content types', () => {
    const renamed = deck([slide(sp('Renamed main part'))], { main: 'ppt/deck.xml' });
    expect(sniff(renamed).format).toBe('pptx');
    return runCanonical(renamed).then((doc) => expect(doc.text).toContain('Renamed main part'));
  });

  it('calls a password-protected Office file encrypted, a legacy one unsupported', () => {
    const cfb = (streams: string[]) => {
      const b = Buffer.alloc(2048);
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(b);
      b.writeUInt16LE(9, 0x1e); // 512-byte sectors
      b.writeUInt32LE(0, 0x30); // the directory starts at sector 0, after the header
      ['Root Entry', ...streams].forEach((name, i) => b.write(name, 512 + i * 128, 'utf16le'));
      return b;
    };
    expect(code(() => sniff(cfb(['EncryptionInfo', 'EncryptedPackage'])))).toBe('encrypted_document');
    expect(code(() => sniff(cfb(['PowerPoint Document'])))).toBe('unsupported_format');
  });

  it('calls a zero-byte file empty', () => {
    expect(code(() => sniff(readData('pdf-realworld/pdfs/empty.pdf')))).toBe('empty_document');
  });
});

describe('page ranges', () => {
  it('parses pages and spans, in order and without duplicates', () => {
    expect(parsePageRange('1-3, 7')).toEqual([
      { from: 1, to: 3 },
      { from: 7, to: 7 },
    ]);
    expect(selectPages(parsePageRange('3,1-2,2'), 5)).toEqual([0, 1, 2]);
  });

  it.each(['', 'a', '0', '3-1', '1-', '1,,2', '1-2-3'])('rejects %j with invalid_page_range', (input) => {
    expect(code(() => parsePageRange(input))).toBe('invalid_page_range');
  });

  it('names the page count when a range runs past the document', () => {
    expect(() => selectPages(parsePageRange('2-9'), 3)).toThrow(/pages 2-9 asked for, but the document has 3 pages/);
    // The range is well formed: the message says which pages exist, not how to spell a range.
    expect(() => selectPages(parsePageRange('2-9'), 3)).toThrow(/has 3 pages\. Reprocess the job with a page_range within pages 1-3, or without one to read every page\.$/);
    expect(() => selectPages(parsePageRange('5'), 1)).toThrow(/page 5 asked for, but the document has 1 page\. Reprocess the job with a page_range within page 1,/);
  });
});

describe('page cap', () => {
  it('fails an over-cap document with all pages selected, and lets a range within the cap through', () => {
    expect(code(() => planPages(10, { pdfMaxPages: 5 }))).toBe('page_cap_exceeded');
    expect(planPages(10, { pdfMaxPages: 5, pageRange: parsePageRange('6-10') }).indexes).toEqual([5, 6, 7, 8, 9]);
  });

  it('truncates to the first pages when asked', () => {
    expect(planPages(10, { pdfMaxPages: 3, pageCapPolicy: 'truncate' })).toEqual({ indexes: [0, 1, 2], truncated: true });
  });
});

describe('words and the page edge', () => {
  it('keeps a word the page shows, cuts one that runs over the edge at it, and drops one drawn wholly past it', async () => {
    const pdf = pdfWithContent('BT /F1 12 Tf 1 0 0 1 72 700 Tm (Inside) Tj 1 0 0 1 700 700 Tm (Outside) Tj 1 0 0 1 590 400 Tm (Straddling) Tj 1 0 0 1 72 -40 Tm (Below) Tj ET');
    const doc = await runCanonical(pdf);
    const words = doc.pages[0]!.blocks.flatMap((b) => b.lines.flatMap((l) => l.words));
    expect(words.map((w) => w.text).sort()).toEqual(['Inside', 'Straddling']);
    for (const w of words) {
      expect(w.bbox[0]).toBeGreaterThanOrEqual(0);
      expect(w.bbox[1]).toBeGreaterThanOrEqual(0);
      expect(w.bbox[2]).toBeLessThanOrEqual(612);
      expect(w.bbox[3]).toBeLessThanOrEqual(792);
    }
    expect(words.find((w) => w.text === 'Straddling')!.bbox[2]).toBe(612);
  });
});
