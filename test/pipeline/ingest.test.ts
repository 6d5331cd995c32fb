// Sniffing the real type from bytes, page ranges and the page cap plan.
import { describe, expect, it } from 'vitest';
import { PipelineError, parsePageRange, sniff } from '../../src/pipeline/index.js';
import { planPages } from '../../src/pipeline/ingest/page-plan.js';
import { selectPages } from '../../src/pipeline/ingest/page-range.js';
import { readData } from './data.js';

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
