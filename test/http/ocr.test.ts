// OCR end to end: scans and photos uploaded through the real API, read by both real engines in
// the workers' pipeline threads, under each tenant ocr_selection_mode. Real files from shared/data.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, upload, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { buildPdf } from '../helpers/mixed-pdf.js';

/** OCR of a page takes seconds (both engines, 2 cores shared with the other test files). */
const OCR_WAIT_MS = 150_000;
const SLOW = 240_000;

const SCAN_PDF = data('docling/ocr/sources/ocr_test.pdf');
const ROTATED_180_PDF = data('docling/ocr/sources/ocr_test_rotated_180.pdf');
const PHOTOTEST = data('ocr-text/phototest.tif');
const EUROTEXT = data('ocr-text/eurotext.tif');
const RECEIPT = data('sroie/img/000.jpg');
const DOCLING_LINE = /Docling bundles PDF document conversion/;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({}, { workers: 2 });
});
afterAll(() => h.close());

async function tenant(id: string, policy: Record<string, unknown>): Promise<string> {
  await h.seedTenant(id);
  const admin = (await h.seedUser(id, 'admin')).token!;
  if (Object.keys(policy).length) {
    const res = await h.request('PATCH', `/v1/admin/tenant-policy/${id}`, { token: admin, body: policy });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return admin;
}

async function process(token: string, file: Parameters<typeof upload>[2], fields: Record<string, string> = {}) {
  const res = await upload(h, token, file, { processing_mode: 'canonical', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, token, res.body.job_id, undefined, OCR_WAIT_MS);
}

async function pageImage(token: string, job: { artifacts: { kind: string; page_number: number | null; url: string }[] }, page: number) {
  const artifact = job.artifacts.find((a) => a.kind === 'page_image' && a.page_number === page)!;
  const res = await fetch(`${h.baseUrl}${artifact.url}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return sharp(Buffer.from(await res.arrayBuffer())).metadata();
}

describe('OCR in jobs', () => {
  it(
    'reads a scanned PDF with confidence_based (the default): both engines, the decision in the result',
    async () => {
      const admin = await tenant('ocr-default', {});
      const job = await process(admin, SCAN_PDF);
      expect(job.status).toBe('completed');
      const [page] = job.result.canonical.pages;
      expect(['ocr_tesseract', 'ocr_paddle', 'ocr_mixed']).toContain(page.source);
      expect(job.result.canonical.text).toMatch(DOCLING_LINE);
      // OCR words go through layout like text-layer words: blocks with lines and word boxes.
      const words = page.blocks.flatMap((b: any) => b.lines.flatMap((l: any) => l.words));
      expect(words.length).toBeGreaterThan(5);
      for (const w of words) {
        expect(w.confidence).toBeGreaterThan(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
        expect(w.bbox[2]).toBeLessThanOrEqual(page.width + 0.5);
        expect(w.bbox[3]).toBeLessThanOrEqual(page.height + 0.5);
      }
      const engine = job.result.engine;
      expect(engine.stages).toEqual(['ingest', 'ocr', 'layout', 'canonical']);
      expect(engine.ocr).toMatchObject({ mode: 'confidence_based', languages: ['eng'], failed_pages: [] });
      expect(engine.ocr.pages).toEqual([
        expect.objectContaining({
          page_number: 1,
          mode: 'confidence_based',
          engine_used: page.source.replace('ocr_', ''),
          confidences: { tesseract: expect.any(Number), paddle: expect.any(Number) },
          preprocessing: expect.objectContaining({ rotation_degrees: 0 }),
        }),
      ]);
      expect(engine.page_images).toBe(1);
    },
    SLOW,
  );

  it(
    'tesseract_priority keeps tesseract on a clean page without consulting paddle',
    async () => {
      const admin = await tenant('ocr-tess', { ocr_selection_mode: 'tesseract_priority' });
      const job = await process(admin, PHOTOTEST);
      expect(job).toMatchObject({ status: 'completed', page_count: 1 });
      const [page] = job.result.canonical.pages;
      expect(page.source).toBe('ocr_tesseract');
      expect(job.result.canonical.text).toMatch(/quick brown dog jumped over\s+the lazy fox/);
      const [decision] = job.result.engine.ocr.pages;
      expect(decision).toMatchObject({ mode: 'tesseract_priority', engine_used: 'tesseract', confidences: { tesseract: expect.any(Number), paddle: null } });
      // An image upload gets a page image too, the size of its page at the console's 100 dpi.
      const image = await pageImage(admin, job, 1);
      expect(image.width).toBe(Math.round((page.width * 100) / 72));
    },
    SLOW,
  );

  it(
    'paddle_priority reads a receipt photo, and extraction finds its total on the OCR words',
    async () => {
      const admin = await tenant('ocr-paddle', { ocr_selection_mode: 'paddle_priority' });
      const template = await h.request('POST', '/v1/templates', {
        token: admin,
        body: { name: 'receipt', json_schema: { type: 'object', properties: { total: { type: 'number', 'x-aliases': ['total', 'total rounded'] }, date: { type: 'string', format: 'date' } } } },
      });
      expect(template.status, JSON.stringify(template.body)).toBe(201);
      const job = await process(admin, RECEIPT, { processing_mode: 'extraction', template_id: template.body.id });
      expect(['completed', 'needs_review']).toContain(job.status);
      const [decision] = job.result.engine.ocr.pages;
      expect(decision.mode).toBe('paddle_priority');
      expect(decision.confidences.paddle).toEqual(expect.any(Number));
      expect(job.result.canonical.pages[0].source).toBe(`ocr_${decision.engine_used}`);
      expect(job.result.canonical.text).toMatch(/TAMAN DAYA/i);
      const { data: values, fields } = job.result.extraction;
      expect(values.total).toBe(9);
      expect(values.date).toBe('2018-12-25');
      expect(fields.total.evidence[0]).toMatchObject({ page: 1, bbox: expect.any(Array) });
    },
    SLOW,
  );

  it(
    'turns an upside-down scanned page upright, and its page image with it',
    async () => {
      const admin = await tenant('ocr-rotated', {});
      const job = await process(admin, ROTATED_180_PDF);
      expect(job.status).toBe('completed');
      expect(job.result.canonical.text).toMatch(DOCLING_LINE);
      const [page] = job.result.canonical.pages;
      expect(job.result.engine.ocr.pages[0].preprocessing.rotation_degrees).toBe(180);
      const image = await pageImage(admin, job, 1);
      expect(image.width).toBe(Math.round((page.width * 100) / 72));
    },
    SLOW,
  );

  it(
    'reads each frame of a multi-page TIFF as a page, and a page_range selects frames',
    async () => {
      const admin = await tenant('ocr-tiff', { ocr_selection_mode: 'tesseract_priority', language_policy: { ocr_languages: ['deu', 'eng'] } });
      const tiff = await sharp([PHOTOTEST, EUROTEXT], { join: { animated: true } }).tiff().toBuffer();
      const job = await process(admin, { name: 'two-pages.tiff', bytes: tiff });
      expect(job).toMatchObject({ status: 'completed', page_count: 2, pages_processed: 2 });
      const [first, second] = job.result.canonical.pages;
      expect(first.blocks.map((b: any) => b.text).join(' ')).toMatch(/quick brown dog/);
      expect(second.blocks.map((b: any) => b.text).join(' ')).toMatch(/über den faulen Hund/);
      expect(job.result.engine.ocr.languages).toEqual(['deu', 'eng']);

      const only = await process(admin, { name: 'two-pages.tiff', bytes: tiff }, { page_range: '2' });
      expect(only).toMatchObject({ status: 'completed', page_count: 2, pages_processed: 1 });
      expect(only.result.canonical.pages.map((p: any) => p.page_number)).toEqual([2]);
    },
    SLOW,
  );

  it('fails with ocr_failed naming the missing language package when the policy asks for one that is not installed', async () => {
    const admin = await tenant('ocr-jpn', { language_policy: { ocr_languages: ['jpn'] } });
    const job = await process(admin, PHOTOTEST);
    expect(job).toMatchObject({ status: 'failed', failure_code: 'ocr_failed', result: null });
    expect(job.failure_message).toMatch(/page 1/);
    expect(job.failure_message).toMatch(/@tesseract\.js-data\/jpn/);
    expect(job.failure_message).toMatch(/language_policy/);
  });
});

describe('text in images of digital pages', () => {
  const SAECO = data('invoice2data/compare/saeco.pdf');
  const ibans = (job: any) => (job.result.entities ?? []).filter((e: any) => e.type === 'iban').map((e: any) => e.value);
  it(
    'is read in an entities job, not in a canonical one, and not when the tenant turns it off',
    async () => {
      const admin = await tenant('ocr-images', {});
      const entities = await process(admin, SAECO, { processing_mode: 'entities' });
      expect(entities.status).toBe('completed');
      expect(entities.result.canonical.pages[0].source).toBe('text_layer');
      expect(entities.result.canonical.text).toMatch(/Badweg 48/);
      expect(ibans(entities)).toContain('NL58RABO0198723202');
      expect(entities.result.engine.ocr.image_regions.length).toBeGreaterThanOrEqual(1);

      const canonical = await process(admin, SAECO);
      expect(canonical.result.canonical.text).not.toMatch(/Badweg/);
      expect(canonical.result.engine.ocr ?? null).toBeNull();

      const off = await tenant('ocr-images-off', { layout_policy: { read_text_in_images: false } });
      const skipped = await process(off, SAECO, { processing_mode: 'entities' });
      expect(skipped.result.canonical.text).not.toMatch(/Badweg/);
      expect(ibans(skipped)).toEqual([]);
    },
    SLOW,
  );
});

describe('the per-page OCR time limit', () => {
  let tight: Harness;
  beforeAll(async () => {
    // 50 ms: no engine reads a page that fast, so every OCR page overruns.
    tight = await startHarness({ ocrPageTimeoutSeconds: 0.05 }, { workers: 1 });
  });
  afterAll(() => tight.close());

  it('fails a scan-only document with ocr_failed and the page number', async () => {
    const token = await tight.adminToken();
    const res = await upload(tight, token, SCAN_PDF, { processing_mode: 'canonical' });
    const job = await waitForJob(tight, token, res.body.job_id, undefined, OCR_WAIT_MS);
    expect(job).toMatchObject({ status: 'failed', failure_code: 'ocr_failed' });
    expect(job.failure_message).toMatch(/OCR failed on page 1: OCR did not finish within/);
  });

  it('keeps the text pages of a mixed document and marks the overrun page ocr_failed', async () => {
    const token = await tight.adminToken();
    const mixed = await mixedPdf();
    const res = await upload(tight, token, { name: 'mixed.pdf', bytes: mixed }, { processing_mode: 'canonical' });
    const job = await waitForJob(tight, token, res.body.job_id, undefined, OCR_WAIT_MS);
    expect(job).toMatchObject({ status: 'completed', page_count: 2 });
    const [text, scan] = job.result.canonical.pages;
    expect(text.source).toBe('text_layer');
    expect(text.blocks.length).toBeGreaterThan(0);
    expect(scan).toMatchObject({ source: 'ocr_failed', blocks: [] });
    expect(job.result.engine.ocr.failed_pages).toEqual([{ page_number: 2, reason: 'time_limit', message: expect.stringMatching(/did not finish/) }]);
    expect(job.result.canonical.markdown).toContain('<!-- page 2: OCR failed, no text -->');
  });
});

/** A digital page followed by a scanned one (phototest, a 200 dpi scan, drawn full-page). */
function mixedPdf(): Promise<Buffer> {
  return buildPdf([{ text: ['Invoice 2024-117', 'Total due: 1,250.00 EUR'] }, { scan: PHOTOTEST, dpi: 200 }]);
}

describe('judge mode', () => {
  // The receipt photo as a "sandwich" PDF whose invisible text layer says the total is 90.00
  // while the printed receipt says 9.00: the text layer alone is believed, the judge is not fooled.
  const sandwich = () =>
    buildPdf([{ scan: RECEIPT, dpi: 150, hiddenText: ['BOOK TA .K (TAMAN DAYA) SDN BHD', 'NO.53 55,57 & 59, JALAN SAGU 18', 'TOTAL 90.00'] }]);
  const receiptTemplate = { name: 'receipt-total', json_schema: { type: 'object', properties: { total: { type: 'number' } } } };

  async function run(tenantId: string, judge: boolean) {
    const admin = await tenant(tenantId, { judge_mode_enabled: judge });
    const template = await h.request('POST', '/v1/templates', { token: admin, body: receiptTemplate });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const job = await process(admin, { name: 'receipt.pdf', bytes: await sandwich() }, { processing_mode: 'extraction', template_id: template.body.id });
    return { admin, job };
  }

  it(
    'without the judge, the text layer is believed',
    async () => {
      const { job } = await run('judge-off', false);
      expect(job.result.canonical.pages[0].source).toBe('text_layer');
      expect(job.result.extraction.data.total).toBe(90);
      expect(job.result.engine.stages).not.toContain('judge');
      expect(job.result.extraction.review_reasons.filter((r: string) => r.startsWith('low_agreement'))).toEqual([]);
    },
    SLOW,
  );

  it(
    'with the judge, an OCR reading of the rendered page disagrees on the total and the job waits for review',
    async () => {
      const { admin, job } = await run('judge-on', true);
      expect(job.status).toBe('needs_review');
      expect(job.result.extraction.data.total).toBe(90);
      expect(job.result.extraction.review_reasons).toContain('low_agreement:total');
      expect(job.result.engine.stages).toContain('judge');
      expect(job.result.engine.judge).toMatchObject({
        method: 'second_reading',
        agreement: { total: 0 },
        disagreements: { total: { value: 90, judge_value: 9, agreement: 0 } },
      });
      expect(job.result.engine.ocr.judge).toEqual([{ page_number: 1, reading: expect.stringMatching(/^ocr_/) }]);
      const reviews = await h.request('GET', `/v1/reviews?status=pending`, { token: admin });
      expect(reviews.body.items.map((r: any) => r.job_id)).toContain(job.job_id);
    },
    SLOW,
  );
});
