// Documents end to end: uploads through the API, processed by in-process workers (the pipeline in
// worker threads), results and artifacts read back through the API. Real files from shared/data.
import fs from 'node:fs';
import path from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, createTemplate, data, upload, uploadBatch, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;

beforeAll(async () => {
  h = await startHarness({}, { workers: 2 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

async function process(file: Parameters<typeof upload>[2], fields: Record<string, string> = {}, token = member) {
  const res = await upload(h, token, file, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, token, res.body.job_id);
}

async function download(url: string, token = member): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(`${h.baseUrl}${url}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

async function tenantWithPolicy(id: string, policy: Record<string, unknown>): Promise<string> {
  await h.seedTenant(id);
  const admin = (await h.seedUser(id, 'admin')).token!;
  const res = await h.request('PATCH', `/v1/admin/tenant-policy/${id}`, { token: await h.adminToken(), body: policy });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return admin;
}

describe('processing', () => {
  it('reports its workers in health', async () => {
    expect((await h.request('GET', '/v1/health')).body.workers).toBe(2);
  });

  it('turns a PDF into a canonical document with JSON, Markdown and page-image artifacts', async () => {
    const job = await process(FILES.invoice, { processing_mode: 'canonical' });
    expect(job).toMatchObject({ status: 'completed', processing_mode: 'canonical', page_count: 1, pages_processed: 1, attempts: 1, failure_code: null, classification: null });
    expect(job.finished_at).not.toBeNull();
    const canonical = job.result.canonical;
    expect(canonical.text).toContain('Efficient Invoice Processor');
    expect(canonical.pages[0]).toMatchObject({ page_number: 1, source: 'text_layer', width: expect.any(Number), height: expect.any(Number) });
    expect(canonical.pages[0].blocks.length).toBeGreaterThan(0);
    expect(canonical.markdown.length).toBeGreaterThan(0);
    expect(job.result.engine).toMatchObject({ name: 'quire', format: 'pdf', page_count: 1, pages_processed: 1, page_images: 1 });
    expect(job.result).not.toHaveProperty('entities');
    expect(job.result.engine).not.toHaveProperty('unavailable');

    const kinds = Object.fromEntries(job.artifacts.map((a: { kind: string }) => [a.kind, a]));
    expect(Object.keys(kinds).sort()).toEqual(['canonical_json', 'markdown', 'page_image', 'source']);
    const json = await download(kinds.canonical_json.url);
    expect(json.type).toBe('application/json');
    expect(JSON.parse(json.bytes.toString())).toEqual(canonical);
    const md = await download(kinds.markdown.url);
    expect(md.type).toBe('text/markdown; charset=utf-8');
    expect(md.bytes.toString()).toBe(canonical.markdown);
    const png = await download(kinds.page_image.url);
    expect(png.type).toBe('image/png');
    expect(png.bytes.subarray(1, 4).toString()).toBe('PNG');
  });

  it('reads PPTX speaker notes by the tenant\'s pptx_notes_mode, and plain text', async () => {
    const margin = await process(FILES.notes, { processing_mode: 'canonical' });
    expect(margin).toMatchObject({ status: 'completed', content_type: expect.stringContaining('presentationml') });
    expect(margin.result.canonical.pages[0].blocks).toEqual([expect.objectContaining({ type: 'notes', text: 'Notes' })]);

    const admin = await tenantWithPolicy('notes-off', { pptx_notes_mode: 'pages' });
    const user = (await h.seedUser('notes-off', 'member')).token!;
    const pages = await process(FILES.notes, { processing_mode: 'canonical' }, user);
    expect(pages.result.canonical.pages).toHaveLength(2);
    await h.request('PATCH', '/v1/admin/tenant-policy/notes-off', { token: admin, body: { pptx_notes_mode: 'off' } });
    await h.request('POST', `/v1/documents/${pages.job_id}/reprocess`, { token: user });
    const off = await waitForJob(h, user, pages.job_id);
    expect(off.result.canonical.pages.flatMap((p: { blocks: unknown[] }) => p.blocks)).toEqual([]);

    const text = await process({ name: 'note.txt', bytes: Buffer.from('Quire reads plain text.\n\nSecond paragraph.\n') }, { processing_mode: 'canonical' });
    expect(text).toMatchObject({ status: 'completed', content_type: 'text/plain; charset=utf-8' });
    expect(text.result.canonical.text).toContain('Second paragraph.');
  });

  it('completes extraction mode without a matching template with canonical and entity output, unmatched, and the classification says why', async () => {
    const job = await process(FILES.invoice);
    expect(job).toMatchObject({ status: 'completed', processing_mode: 'extraction', template_version: null, classification: { matched: false, template_id: null } });
    expect(job.result.canonical.pages).toHaveLength(1);
    expect(Array.isArray(job.result.entities)).toBe(true);
    expect(job.result).not.toHaveProperty('extraction');
    expect(job.result.engine.stages).toContain('classification');
    expect(job.result.engine).not.toHaveProperty('unavailable');
  });
});

describe('failure codes, each from a real file', () => {
  const truncated = (file: string, bytes: number, name: string) => ({ name, bytes: fs.readFileSync(file).subarray(0, bytes) });
  it.each([
    ['encrypted_document', FILES.encrypted],
    ['empty_document', FILES.empty],
    ['corrupt_document', truncated(FILES.multipage, 3000, 'truncated.pdf')],
    ['corrupt_document', truncated(FILES.notes, 20_000, 'truncated.pptx')],
  ] as const)('%s', async (code, file) => {
    const job = await process(file);
    expect(job).toMatchObject({ status: 'failed', failure_code: code, attempts: 1, result: null });
    expect(job.failure_message.length).toBeGreaterThan(20);
    expect(job.finished_at).not.toBeNull();
  });

  it('page_cap_exceeded when every page is selected; a page range within the cap succeeds on reprocess', async () => {
    await tenantWithPolicy('capped', { pdf_max_pages: 2 });
    const user = (await h.seedUser('capped', 'member')).token!;
    const job = await process(FILES.multipage, { processing_mode: 'canonical' }, user);
    expect(job).toMatchObject({ status: 'failed', failure_code: 'page_cap_exceeded', page_count: 5 });
    expect(job.failure_message).toMatch(/page_range/);
    const again = await h.request('POST', `/v1/documents/${job.job_id}/reprocess`, { token: user, body: { page_range: '2-3' } });
    expect(again.body).toMatchObject({ status: 'queued', failure_code: null });
    const done = await waitForJob(h, user, job.job_id);
    expect(done).toMatchObject({ status: 'completed', page_range: '2-3', page_count: 5, pages_processed: 2 });
    expect(done.result.canonical.pages.map((p: { page_number: number }) => p.page_number)).toEqual([2, 3]);
    expect(done.artifacts.filter((a: { kind: string }) => a.kind === 'page_image')).toHaveLength(2);

    // A single upload takes page_cap_policy too, as the failure message offers it.
    const truncated = await process(FILES.multipage, { processing_mode: 'canonical', page_cap_policy: 'truncate' }, user);
    expect(truncated).toMatchObject({ status: 'completed', page_cap_policy: 'truncate', pages_processed: 2 });
    const bad = await upload(h, user, FILES.multipage, { page_cap_policy: 'sometimes' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'page_cap_policy']);
  });
});

describe('reextract', () => {
  it('runs extraction again on the stored canonical output without re-reading the file', async () => {
    const first = await process(FILES.invoice, { processing_mode: 'canonical' });
    const later = await createTemplate(h, await h.adminToken(), 'later');
    const res = await h.request('POST', `/v1/documents/${first.job_id}/reextract`, { token: member, body: { template_id: later } });
    expect(res.body).toMatchObject({ status: 'queued' });
    const job = await waitForJob(h, member, first.job_id);
    expect(job).toMatchObject({ processing_mode: 'extraction', template_id: later });
    // The decision settles it: completed, or needs_review when a found field is below the policy's confidence floor.
    expect(['completed', 'needs_review']).toContain(job.status);
    expect(job.result.engine).toMatchObject({ reused_canonical: true, format: first.result.engine.format });
    expect(first.result.engine.format).toBe('pdf');
    // The page images of the run before are still the job's, and the result counts them.
    expect(first.result.engine.page_images).toBeGreaterThan(0);
    expect(job.result.engine.page_images).toBe(first.result.engine.page_images);
    expect(job.result.canonical).toEqual(first.result.canonical);
    expect(job.result.extraction).toMatchObject({ template_id: later, template_version: 1 });
    expect(job.template_version).toBe(1);
    expect(job.artifacts.map((a: { id: string }) => a.id).sort()).toEqual(first.artifacts.map((a: { id: string }) => a.id).sort());
  });

  it('repeats how the reused canonical output was read: unreadable pages and parts, again and again', async () => {
    // A real two-slide deck whose second slide and first slide's speaker notes are broken.
    const files = unzipSync(fs.readFileSync(data('pptx-python-pptx/files/sld-notes.pptx')));
    files['ppt/slides/slide2.xml'] = strToU8('<p:sld><p:cSld>');
    files['ppt/notesSlides/notesSlide1.xml'] = strToU8('<p:notes><p:cSld>');
    const first = await process({ name: 'broken.pptx', bytes: zipSync(files) }, { processing_mode: 'canonical' });
    expect(first.status).toBe('completed');
    expect(first.result.engine.unreadable_pages).toEqual([{ page_number: 2, part: 'ppt/slides/slide2.xml', message: expect.stringMatching(/cannot be read/) }]);
    expect(first.result.engine.unreadable_parts).toEqual([{ part: 'ppt/notesSlides/notesSlide1.xml', page_numbers: [1], message: expect.stringMatching(/speaker notes/) }]);
    for (let run = 0; run < 2; run++) {
      expect((await h.request('POST', `/v1/documents/${first.job_id}/reextract`, { token: member })).status).toBe(200);
      const job = await waitForJob(h, member, first.job_id);
      expect(job.result.engine).toMatchObject({ reused_canonical: true, format: 'pptx' });
      expect(job.result.engine.unreadable_pages).toEqual(first.result.engine.unreadable_pages);
      expect(job.result.engine.unreadable_parts).toEqual(first.result.engine.unreadable_parts);
    }
    // A full run reads the file again and says what it found itself.
    expect((await h.request('POST', `/v1/documents/${first.job_id}/reprocess`, { token: member })).status).toBe(200);
    const again = await waitForJob(h, member, first.job_id);
    expect(again.result.engine).toMatchObject({ reused_canonical: false, unreadable_pages: first.result.engine.unreadable_pages, unreadable_parts: first.result.engine.unreadable_parts });
  });

  it('repeats the OCR report of the run that read a scan', async () => {
    await tenantWithPolicy('reextract-ocr', { ocr_selection_mode: 'tesseract_priority' });
    const user = (await h.seedUser('reextract-ocr', 'member')).token!;
    const res = await upload(h, user, data('ocr-text/phototest.tif'), { processing_mode: 'canonical' });
    const first = await waitForJob(h, user, res.body.job_id, undefined, 150_000);
    expect(first.status).toBe('completed');
    expect(first.result.engine.stages).toContain('ocr');
    expect(first.result.engine.ocr.pages).toEqual([expect.objectContaining({ page_number: 1, engine_used: 'tesseract' })]);
    expect((await h.request('POST', `/v1/documents/${first.job_id}/reextract`, { token: user })).status).toBe(200);
    const job = await waitForJob(h, user, first.job_id);
    expect(job.result.engine.reused_canonical).toBe(true);
    expect(job.result.engine.stages.slice(0, 4)).toEqual(['ingest', 'ocr', 'layout', 'canonical']);
    expect(job.result.engine.ocr).toEqual(first.result.engine.ocr);
  }, 240_000);
});

describe('cancel while processing', () => {
  it('keeps the API answering while a long document processes, and stops it at its next checkpoint', async () => {
    // A two-column scan: OCR keeps it busy for seconds, so the cancel lands mid-run.
    const res = await upload(h, member, data('ocr-text/8087_054.3B.tif'), { processing_mode: 'canonical' });
    await waitForJob(h, member, res.body.job_id, ['processing'], 60_000);
    // The pipeline runs in a worker thread: the API keeps answering meanwhile.
    for (let i = 0; i < 5; i++) expect((await h.request('GET', '/v1/health/live')).status).toBe(200);
    const asked = await h.request('POST', `/v1/documents/${res.body.job_id}/cancel`, { token: member });
    expect(asked.status).toBe(200);
    const job = await waitForJob(h, member, res.body.job_id, ['failed', 'completed'], 90_000);
    expect(job).toMatchObject({ status: 'failed', failure_code: 'cancelled', cancel_requested: true });
    await waitFor('the worker to be free', async () => h.workers!.busy === 0, 60_000);
    // Generous: on a machine running the whole suite the scan may wait for a free worker and OCR
    // runs several times slower; each wait above names what it was waiting for when it gives up.
  }, 240_000);
});

describe('real-world PDFs', () => {
  it('ends every file of pdf-realworld in a terminal status, failing only with a named code', async () => {
    const dir = data('pdf-realworld/pdfs');
    const files = fs.readdirSync(dir).sort().map((name) => path.join(dir, name));
    const res = await uploadBatch(h, member, files, { processing_mode: 'canonical', name: 'pdf-realworld' });
    expect(res.status).toBe(202);
    const batch = await waitFor(
      'the batch to finish',
      async () => {
        const b = await h.request('GET', `/v1/batches/${res.body.batch_id}`, { token: member });
        return ['completed', 'completed_with_errors'].includes(b.body.status) ? b.body : undefined;
      },
      // 54 files on two in-process workers beside the other test files' OCR took 170–190 s on a
      // 2-core AMD EPYC of this machine kind: the bound leaves room for a slower one.
      480_000,
      250,
    );
    expect(batch.counts.total).toBe(files.length);
    const jobs = await h.request('GET', `/v1/batches/${res.body.batch_id}/jobs?limit=200`, { token: member });
    const failed = Object.fromEntries(jobs.body.items.filter((j: { status: string }) => j.status === 'failed').map((j: { original_filename: string; failure_code: string }) => [j.original_filename, j.failure_code]));
    expect(failed).toEqual({
      'empty.pdf': 'empty_document',
      'issue-297-example.pdf': 'empty_document',
      'issue-948.zip': 'unsupported_format',
      'password-example.pdf': 'encrypted_document',
    });
    expect(jobs.body.items.every((j: { finished_at: string | null }) => j.finished_at)).toBe(true);
  }, 540_000);
});
