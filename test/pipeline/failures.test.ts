// Every failure code the pipeline can name, reached with a real file, and the page marked for
// OCR instead of coming back silently empty.
import { describe, expect, it } from 'vitest';
import { type CanonicalOptions, PipelineError, renderPagePng, runCanonical } from '../../src/pipeline/index.js';
import { QuireError } from '../../src/lib/errors.js';
import { readData } from './data.js';
import { deck, slide, sp } from './decks.js';
import { pdfWithContent, pdfWithNestedForms } from '../../bench/lib/hostile-files.js';
import { DEFAULT_PDFIUM_MEMORY_MB } from '../../src/config.js';
import { setPdfiumMemoryLimit } from '../../src/pipeline/ingest/pdf/pdfium.js';
import { asPipelineError } from '../../src/pipeline/ingest/failure.js';

async function failure(bytes: Uint8Array, options: CanonicalOptions = {}): Promise<PipelineError> {
  try {
    await runCanonical(bytes, options);
  } catch (err) {
    // Every pipeline failure is one of Quire's coded errors, code from the one catalogue.
    if (err instanceof PipelineError && err instanceof QuireError) return err;
    throw err;
  }
  throw new Error('expected a PipelineError');
}

describe('failure codes', () => {
  it('encrypted_document: a password-protected PDF', async () => {
    const err = await failure(readData('pdf-realworld/pdfs/password-example.pdf'));
    expect(err.code).toBe('encrypted_document');
    expect(err.message).toMatch(/password/);
  });

  it('opens a PDF that is encrypted with an empty user password (owner restrictions only)', async () => {
    const doc = await runCanonical(readData('pdf-realworld/pdfs/pr-138-example.pdf'));
    expect(doc.pages).toHaveLength(2);
    expect(doc.text.length).toBeGreaterThan(100);
  });

  it('corrupt_document: the first half of a real PDF', async () => {
    const whole = readData('pdf-realworld/pdfs/scotus-transcript-p1.pdf');
    const err = await failure(whole.subarray(0, whole.length >> 1));
    expect(err.code).toBe('corrupt_document');
    expect(err.message).toMatch(/upload it again/);
  });

  it('empty_document: a zero-byte file, a PDF whose only page is blank, a deck without slides', async () => {
    expect((await failure(readData('pdf-realworld/pdfs/empty.pdf'))).code).toBe('empty_document');
    expect((await failure(readData('pdf-realworld/pdfs/issue-297-example.pdf'))).code).toBe('empty_document');
    expect((await failure(readData('pptx-python-pptx/files/tests-no-slides.pptx'))).code).toBe('empty_document');
  });

  it('unsupported_format: random bytes and a ZIP that is no presentation', async () => {
    const random = new Uint8Array(2048).map((_, i) => (i * 31 + 7) % 256);
    expect((await failure(random)).code).toBe('unsupported_format');
    expect((await failure(readData('pdf-realworld/pdfs/issue-948.zip'))).code).toBe('unsupported_format');
  });

  it('page_cap_exceeded with all pages selected; a range within the cap and truncate both pass', async () => {
    const pdf = readData('pdf-realworld/pdfs/federal-register-2020-17221.pdf'); // 15 pages
    const err = await failure(pdf, { pdfMaxPages: 5 });
    expect(err.code).toBe('page_cap_exceeded');
    expect(err.message).toMatch(/15 pages, more than the limit of 5/);
    expect((await runCanonical(pdf, { pdfMaxPages: 5, pageRange: '2-4' })).pages.map((p) => p.page_number)).toEqual([2, 3, 4]);
    const truncated = await runCanonical(pdf, { pdfMaxPages: 5, pageCapPolicy: 'truncate' });
    expect(truncated.pages.map((p) => p.page_number)).toEqual([1, 2, 3, 4, 5]);
    expect(truncated.page_count).toBe(15);
  });

  it('invalid_page_range: pages past the end of the document', async () => {
    const err = await failure(readData('invoice2data/compare/oyo.pdf'), { pageRange: '2-3' });
    expect(err.code).toBe('invalid_page_range');
  });

  it('cancelled and timeout: checked between pages', async () => {
    const pdf = readData('pdf-realworld/pdfs/chelsea_pdta.pdf'); // 65 pages
    const controller = new AbortController();
    const cancelled = await failure(pdf, { signal: controller.signal, onProgress: (done) => done === 3 && controller.abort() });
    expect(cancelled.code).toBe('cancelled');
    expect((await failure(pdf, { signal: AbortSignal.timeout(1) })).code).toBe('timeout');
  });
});

describe('pages without a text layer', () => {
  it('marks scanned pages needs_ocr instead of returning them empty', async () => {
    const doc = await runCanonical(readData('pdf-realworld/pdfs/issue-203-decimalize.pdf'));
    expect(doc.pages.length).toBeGreaterThan(0);
    for (const page of doc.pages) expect(page.source).toBe('needs_ocr');
    expect(doc.markdown).toMatch(/needs OCR/);
  });

  it('keeps the few real characters of a scan with a stamp, and still asks for OCR', async () => {
    const doc = await runCanonical(readData('pdf-realworld/pdfs/malformed-from-issue-932.pdf'));
    expect(doc.pages[0].source).toBe('needs_ocr');
    expect(doc.text).toMatch(/2021/);
  });

  it('turns image uploads into pages that need OCR, sized in points', async () => {
    const doc = await runCanonical(readData('invoice2data/compare/oyo.png'));
    expect(doc.format).toBe('png');
    expect(doc.pages).toHaveLength(1);
    expect(doc.pages[0]).toMatchObject({ source: 'needs_ocr', blocks: [] });
    expect(doc.pages[0].width).toBeGreaterThan(100);
  });
});

describe('pages the PDF parser cannot load', () => {
  const onePage = (count: number) => pdfWithContent('BT /F1 12 Tf 72 700 Td (The one real page) Tj ET', count);

  it('keeps them as failed pages, listed, and reads the others (a page tree claiming 5 pages of 1)', async () => {
    const doc = await runCanonical(onePage(5), { ocr: {} });
    expect(doc.page_count).toBe(5);
    expect(doc.pages.map((p) => p.source)).toEqual(['text_layer', 'ocr_failed', 'ocr_failed', 'ocr_failed', 'ocr_failed']);
    expect(doc.text).toContain('The one real page');
    expect(doc.ocr?.failed_pages.map((f) => [f.page_number, f.reason])).toEqual([2, 3, 4, 5].map((n) => [n, 'page_unreadable']));
  });

  it('fails corrupt_document only when no page can be read', async () => {
    const err = await failure(onePage(3), { ocr: {}, pageRange: '2-3' });
    expect(err.code).toBe('corrupt_document');
    expect(err.message).toMatch(/no page can be read/);
  });

  it('checks a page count over the cap against the pages that exist (/Count 1000000 on a file of one)', async () => {
    const doc = await runCanonical(onePage(1_000_000), { pdfMaxPages: 200 });
    expect(doc.page_count).toBe(1);
    expect(doc.text).toContain('The one real page');
  });
});

describe('the PDF parser stopping', () => {
  const abort = () => new WebAssembly.RuntimeError('Aborted(native code called abort())');

  it('calls an abort after PDFium was refused memory resource_limit, not a corrupt file', () => {
    const err = asPipelineError(abort(), true);
    expect(err.code).toBe('resource_limit');
    expect(err.message).toMatch(/needed more than its 384 MB of memory/);
    expect(err.message).not.toMatch(/Re-export/);
  });

  it('still calls a trap with memory to spare a corrupt file', () => {
    expect(asPipelineError(abort(), false).code).toBe('corrupt_document');
  });

  it('calls a PDF larger than the parser may hold resource_limit, not a corrupt file', async () => {
    setPdfiumMemoryLimit(64);
    try {
      // A real page with 80 MB of comment lines in its content stream.
      const big = pdfWithContent(`${'%'.padEnd(79, ' ')}\n`.repeat(1_000_000) + 'BT /F1 12 Tf 72 700 Td (Big) Tj ET');
      expect(await failure(big)).toMatchObject({ code: 'resource_limit', message: expect.stringMatching(/larger than the PDF parser's 64 MB of memory/) });
    } finally {
      setPdfiumMemoryLimit(DEFAULT_PDFIUM_MEMORY_MB);
    }
  });

  it('draws pages again after a page image ran PDFium out of memory', async () => {
    // An aborted PDFium fails every later call: the process that draws page images on demand
    // would draw none until restarted.
    setPdfiumMemoryLimit(64);
    try {
      const err = await renderPagePng(pdfWithNestedForms(5, 10), 1, { dpi: 72 }).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'resource_limit', message: expect.stringMatching(/more than its 64 MB/) });
      const png = await renderPagePng(readData('pdf-realworld/pdfs/chelsea_pdta.pdf'), 1, { dpi: 72 });
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      setPdfiumMemoryLimit(DEFAULT_PDFIUM_MEMORY_MB);
    }
  });
});

describe('the page count of a failed run', () => {
  it('is recorded whenever it was known before the failure', async () => {
    expect(await failure(Buffer.from('one\ftwo\fthree'), { pageRange: '5' })).toMatchObject({ code: 'invalid_page_range', pageCount: 3 });
    const deck3 = deck([slide(sp('1')), slide(sp('2')), slide(sp('3'))]);
    expect(await failure(deck3, { pageRange: '4-9' })).toMatchObject({ code: 'invalid_page_range', pageCount: 3 });
    expect(await failure(deck([slide(sp('1')), slide(sp('2'))], { omit: ['ppt/slides/slide1.xml', 'ppt/slides/slide2.xml'] }))).toMatchObject({ code: 'corrupt_document', pageCount: 2 });
    expect(await failure(pdfWithContent(''))).toMatchObject({ code: 'empty_document', pageCount: 1 });
    expect(await failure(pdfWithContent('BT /F1 12 Tf 72 700 Td (x) Tj ET', 3), { ocr: {}, pageRange: '2-3' })).toMatchObject({ code: 'corrupt_document', pageCount: 3 });
  });
});
