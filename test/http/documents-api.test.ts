// The documents API without workers: every job stays where the test puts it, so each rule
// (auth, validation, cross-tenant 404, state 409, the reprocess rules, delete/restore, lists,
// recovery) is checked deterministically. Job states the test is not about are set in SQL.
import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStatus } from '../../src/db/documents-schema.js';
import { FILES, createTemplate, upload, uploadBatch } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;
let admin: string;
let other: string; // a member of another tenant
let otherAdmin: string;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme', 'Acme');
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = (await h.seedUser(DEFAULT_TENANT_ID, 'admin')).token!;
  other = (await h.seedUser('acme', 'member')).token!;
  otherAdmin = (await h.seedUser('acme', 'admin')).token!;
});
afterAll(() => h.close());

async function newJob(fields: Record<string, string> = {}, token = member): Promise<string> {
  const res = await upload(h, token, FILES.invoice, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.job_id;
}

async function setStatus(jobId: string, status: JobStatus, extra: Record<string, unknown> = {}): Promise<void> {
  const terminal = !['queued', 'processing'].includes(status);
  await h.db
    .updateTable('jobs')
    .set({
      status,
      finished_at: terminal ? new Date() : null,
      ...(status === 'processing' ? { lease_owner: 'test-worker', lease_expires_at: new Date(Date.now() + 60_000), attempts: 1, started_at: new Date() } : {}),
      ...(status === 'failed' ? { failure_code: 'corrupt_document', failure_message: 'broken' } : {}),
      ...extra,
    } as never)
    .where('id', '=', jobId)
    .execute();
}

const row = (jobId: string) => h.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

describe('POST /v1/documents', () => {
  it('needs a credential', async () => {
    const res = await fetch(`${h.baseUrl}/v1/documents`, { method: 'POST', body: new FormData() });
    expect(res.status).toBe(401);
  });

  it('queues the upload and answers 202 with the job (type sniffed from the bytes)', async () => {
    const res = await upload(h, member, { name: 'looks-like-an-image.png', bytes: fs.readFileSync(FILES.invoice) }, { metadata: '{"ref":"A-1"}', page_range: '1' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      tenant_id: DEFAULT_TENANT_ID,
      status: 'queued',
      processing_mode: 'extraction',
      original_filename: 'looks-like-an-image.png',
      content_type: 'application/pdf',
      page_range: '1',
      metadata: { ref: 'A-1' },
      result: null,
      finished_at: null,
    });
    expect(res.body.artifacts).toEqual([expect.objectContaining({ kind: 'source', content_type: 'application/pdf', url: expect.stringMatching(/^\/v1\/artifacts\/art_/) })]);
    expect((await h.request('GET', '/v1/health')).body.queue.queued).toBeGreaterThanOrEqual(1);
  });

  it('answers 422 in the validation shape for a missing file and bad fields', async () => {
    const res = await h.request('POST', '/v1/documents', { token: member, raw: Buffer.from('--x--\r\n'), headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], type: 'missing' })]);
    const bad = await upload(h, member, FILES.invoice, { processing_mode: 'everything', page_range: '3-1', metadata: '[1]' });
    expect(bad.status).toBe(422);
    const locs = bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.processing_mode', 'body.page_range', 'body.metadata']));
  });

  it('answers 415 for a JSON body and for a file Quire cannot read', async () => {
    expect((await h.request('POST', '/v1/documents', { token: member, body: { file: 'x' } })).status).toBe(415);
    const zip = await upload(h, member, FILES.zip);
    expect(zip.status).toBe(415);
    expect(zip.body).toMatchObject({ code: 'unsupported_media_type', detail: expect.stringContaining('ZIP') });
    const gif = await upload(h, member, { name: 'x.pdf', bytes: Buffer.from('GIF89a\x01\x00\x01\x00\x00\xff\x00,', 'binary') });
    expect(gif.status).toBe(415);
  });

  it('answers 400 for a template with a mode that does not extract, 404 for an unknown destination', async () => {
    const res = await upload(h, member, FILES.invoice, { processing_mode: 'canonical', template_id: 'tpl_x' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'template_requires_extraction', detail: expect.stringContaining('extraction') });
    const dest = await upload(h, member, FILES.invoice, { destination_connection_id: 'con_nope' });
    expect(dest.status).toBe(404);
    const unknown = await upload(h, member, FILES.invoice, { template_id: 'tpl_nope' });
    expect(unknown.status).toBe(404);
    const recorded = await createTemplate(h, admin, 'recorded');
    const withTemplate = await upload(h, member, FILES.invoice, { template_id: recorded });
    expect(withTemplate.body).toMatchObject({ status: 'queued', template_id: recorded });
  });

  it('answers 400 connection_not_destination for a source-only destination, upload and batch alike; a destination or both connection is taken', async () => {
    const connection = async (name: string, direction: string) => {
      const res = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name, protocol: 'local', direction, config: { path: name }, credentials: {} } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const source = await connection('contract-b-inbox', 'source');
    const single = await upload(h, member, FILES.invoice, { destination_connection_id: source });
    expect(single.status, JSON.stringify(single.body)).toBe(400);
    expect(single.body).toMatchObject({ code: 'connection_not_destination', detail: expect.stringContaining(source) });
    const batch = await uploadBatch(h, member, [FILES.invoice], { destination_connection_id: source });
    expect(batch.status, JSON.stringify(batch.body)).toBe(400);
    expect(batch.body.code).toBe('connection_not_destination');
    // Nothing was created for the refused requests.
    expect((await h.request('GET', `/v1/documents?q=${encodeURIComponent('camelot-example.pdf')}&limit=200`, { token: member })).body.items.filter((j: { destination_connection_id: string | null }) => j.destination_connection_id === source)).toEqual([]);
    for (const direction of ['destination', 'both']) {
      const id = await connection(`contract-b-${direction}`, direction);
      const ok = await upload(h, member, FILES.invoice, { destination_connection_id: id });
      expect(ok.status, JSON.stringify(ok.body)).toBe(202);
      expect(ok.body.destination_connection_id).toBe(id);
    }
  });

  it('answers the first job again for the same Idempotency-Key and request, 409 for a different request', async () => {
    const headers = { 'idempotency-key': 'upload-1' };
    const first = await upload(h, member, FILES.invoice, { page_range: '1' }, headers);
    const again = await upload(h, member, FILES.invoice, { page_range: '1' }, headers);
    expect(again.status).toBe(202);
    expect(again.body.job_id).toBe(first.body.job_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const different = await upload(h, member, FILES.bol, { page_range: '1' }, headers);
    expect(different.status).toBe(409);
    expect(different.body.code).toBe('idempotency_key_reused');
    // Keys are per tenant.
    const elsewhere = await upload(h, other, FILES.invoice, { page_range: '1' }, headers);
    expect(elsewhere.body.job_id).not.toBe(first.body.job_id);
    // Concurrent identical requests create one job.
    const key = { 'idempotency-key': 'upload-race' };
    const racing = await Promise.all([1, 2, 3].map(() => upload(h, member, FILES.notes, {}, key)));
    expect(new Set(racing.map((r) => r.body.job_id)).size).toBe(1);
  });
});

describe('reading jobs', () => {
  it('gets a job; another tenant gets 404', async () => {
    const id = await newJob();
    expect((await h.request('GET', `/v1/documents/${id}`, { token: member })).body.job_id).toBe(id);
    expect((await h.request('GET', `/v1/documents/${id}`)).status).toBe(401);
    const foreign = await h.request('GET', `/v1/documents/${id}`, { token: other });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect((await h.request('GET', '/v1/documents/job_missing', { token: member })).status).toBe(404);
  });

  it('lists newest first with filters and a cursor, never another tenant\'s jobs', async () => {
    const a = await newJob();
    const b = await newJob();
    await setStatus(a, 'failed');
    const page1 = await h.request('GET', '/v1/documents?limit=1', { token: member });
    expect(page1.body.items).toHaveLength(1);
    expect(page1.body.items[0].job_id).toBe(b);
    expect(page1.body.items[0]).not.toHaveProperty('result');
    const page2 = await h.request('GET', `/v1/documents?limit=1&cursor=${page1.body.next_cursor}`, { token: member });
    expect(page2.body.items[0].job_id).toBe(a);
    const failed = await h.request('GET', '/v1/documents?status=failed', { token: member });
    expect(failed.body.items.map((j: { job_id: string }) => j.job_id)).toContain(a);
    expect(failed.body.items.every((j: { status: string }) => j.status === 'failed')).toBe(true);
    const byName = await h.request('GET', '/v1/documents?q=camelot-ex', { token: member });
    expect(byName.body.items.length).toBeGreaterThan(0);
    const later = await h.request('GET', `/v1/documents?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: member });
    expect(later.body.items).toEqual([]);
    const theirs = await h.request('GET', '/v1/documents', { token: other });
    expect(theirs.body.items.some((j: { job_id: string }) => j.job_id === a)).toBe(false);
    expect((await h.request('GET', '/v1/documents?limit=0', { token: member })).status).toBe(422);
    expect((await h.request('GET', '/v1/documents?status=done', { token: member })).status).toBe(422);
    expect((await h.request('GET', '/v1/documents?cursor=nonsense', { token: member })).status).toBe(422);
  });
});

describe('cancel and retry', () => {
  it('cancels a queued job at once, asks a processing one to stop, and refuses a finished one', async () => {
    const queued = await newJob();
    const res = await h.request('POST', `/v1/documents/${queued}/cancel`, { token: member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ job_id: queued, status: 'failed', failure_code: 'cancelled', failure_message: expect.any(String) });
    expect((await row(queued)).finished_at).not.toBeNull();
    expect((await h.request('POST', `/v1/documents/${queued}/cancel`, { token: member })).status).toBe(409);

    const running = await newJob();
    await setStatus(running, 'processing');
    const asked = await h.request('POST', `/v1/documents/${running}/cancel`, { token: member });
    expect(asked.body).toMatchObject({ status: 'processing' });
    expect((await row(running)).cancel_requested).toBe(true);
    // Asked again while it stops: the same answer, and nothing recorded twice.
    const again = await h.request('POST', `/v1/documents/${running}/cancel`, { token: member });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'processing' });
    const asks = await h.db.selectFrom('job_events').select('kind').where('job_id', '=', running).where('kind', '=', 'cancel_requested').execute();
    expect(asks).toHaveLength(1);
    expect((await h.request('POST', `/v1/documents/${running}/cancel`, { token: other })).status).toBe(404);
    expect((await h.request('POST', `/v1/documents/${running}/cancel`)).status).toBe(401);
  });

  it('retries failed and rejected jobs with the same settings; anything else is 409', async () => {
    const id = await newJob({ page_range: '1', processing_mode: 'canonical' });
    expect((await h.request('POST', `/v1/documents/${id}/retry`, { token: member })).status).toBe(409);
    await setStatus(id, 'failed');
    const res = await h.request('POST', `/v1/documents/${id}/retry`, { token: member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ job_id: id, status: 'queued', failure_code: null, failure_message: null });
    expect(await row(id)).toMatchObject({ page_range: '1', processing_mode: 'canonical', attempts: 0, finished_at: null, result: null });
    await setStatus(id, 'rejected');
    expect((await h.request('POST', `/v1/documents/${id}/retry`, { token: member })).status).toBe(200);
    await setStatus(id, 'completed');
    const done = await h.request('POST', `/v1/documents/${id}/retry`, { token: member });
    expect(done.status).toBe(409);
    expect(done.body.detail).toContain('reprocess');
    expect((await h.request('POST', `/v1/documents/${id}/retry`, { token: other })).status).toBe(404);
  });
});

describe('reprocess (interface.md rules)', () => {
  it('rejects clear_template with a template_id by validation (422)', async () => {
    const id = await newJob();
    await setStatus(id, 'completed');
    const res = await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { clear_template: true, template_id: 'tpl_a' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'value_error' });
    const long = await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { template_id: 'x'.repeat(65), page_range: 'p'.repeat(256) } });
    expect(long.status).toBe(422);
    expect(long.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.template_id', 'body.page_range']));
    expect((await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { processing_mode: 'fast' } })).status).toBe(422);
    expect((await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { page_range: 'one' } })).status).toBe(422);
  });

  it('rejects a canonical or entities mode with a template_id with 400 and an actionable message', async () => {
    const id = await newJob();
    await setStatus(id, 'completed');
    for (const mode of ['canonical', 'entities']) {
      const res = await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { processing_mode: mode, template_id: 'tpl_a' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'template_requires_extraction', detail: expect.stringContaining('processing_mode "extraction"') });
    }
  });

  it('keeps, swaps or clears the template and changes mode and page range', async () => {
    const tplFirst = await createTemplate(h, admin, 'first');
    const tplSecond = await createTemplate(h, admin, 'second');
    const id = await newJob({ template_id: tplFirst, page_range: '1' });
    await setStatus(id, 'completed', { result: JSON.stringify({ canonical: {} }) });
    // No body at all: keep everything.
    const kept = await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member });
    expect(kept.body).toEqual({ job_id: id, status: 'queued', failure_code: null, failure_message: null });
    expect(await row(id)).toMatchObject({ template_id: tplFirst, processing_mode: 'extraction', page_range: '1', result: null });
    await setStatus(id, 'needs_review');
    await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { template_id: tplSecond } });
    expect((await row(id)).template_id).toBe(tplSecond);
    await setStatus(id, 'rejected');
    await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { clear_template: true, page_range: null } });
    expect(await row(id)).toMatchObject({ template_id: null, page_range: null });
    await setStatus(id, 'failed');
    await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: { processing_mode: 'canonical', page_range: '1-2' } });
    expect(await row(id)).toMatchObject({ processing_mode: 'canonical', page_range: '1-2', status: 'queued' });
    // A job not yet finished cannot be reprocessed; another tenant's is 404.
    expect((await h.request('POST', `/v1/documents/${id}/reprocess`, { token: member, body: {} })).status).toBe(409);
    expect((await h.request('POST', `/v1/documents/${id}/reprocess`, { token: other, body: {} })).status).toBe(404);
    const history = await h.db.selectFrom('job_events').select('kind').where('job_id', '=', id).orderBy('id').execute();
    expect(history.filter((e) => e.kind === 'reprocessed')).toHaveLength(4);
  });
});

describe('reextract', () => {
  it('needs a finished job with stored canonical output', async () => {
    const id = await newJob();
    expect((await h.request('POST', `/v1/documents/${id}/reextract`, { token: member })).status).toBe(409);
    await setStatus(id, 'failed');
    const none = await h.request('POST', `/v1/documents/${id}/reextract`, { token: member });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('no_canonical_output');
    expect((await h.request('POST', `/v1/documents/${id}/reextract`, { token: other })).status).toBe(404);
    expect((await h.request('POST', `/v1/documents/${id}/reextract`, { token: member, body: { template_id: 'x'.repeat(65) } })).status).toBe(422);
  });
});

describe('delete and restore', () => {
  it('soft-deletes (hidden from lists, cancelled if queued) and restores', async () => {
    const id = await newJob();
    const del = await h.request('DELETE', `/v1/documents/${id}`, { token: member });
    expect(del.status).toBe(204);
    expect(await row(id)).toMatchObject({ status: 'failed', failure_code: 'cancelled' });
    const listed = await h.request('GET', '/v1/documents?limit=200', { token: member });
    expect(listed.body.items.some((j: { job_id: string }) => j.job_id === id)).toBe(false);
    const deletedList = await h.request('GET', '/v1/documents?deleted=true', { token: member });
    expect(deletedList.body.items.map((j: { job_id: string }) => j.job_id)).toContain(id);
    const got = await h.request('GET', `/v1/documents/${id}`, { token: member });
    expect(got.body.deleted_at).not.toBeNull();
    expect((await h.request('POST', `/v1/documents/${id}/retry`, { token: member })).status).toBe(409);
    expect((await h.request('DELETE', `/v1/documents/${id}`, { token: member })).status).toBe(204);
    expect((await h.request('POST', `/v1/documents/${id}/restore`, { token: other })).status).toBe(404);
    const restored = await h.request('POST', `/v1/documents/${id}/restore`, { token: member });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ job_id: id, deleted_at: null });
    expect((await h.request('POST', `/v1/documents/${id}/restore`, { token: member })).status).toBe(409);
    expect((await h.request('DELETE', `/v1/documents/${id}`, { token: other })).status).toBe(404);
  });

  it('refuses to restore after 30 days', async () => {
    const id = await newJob();
    await h.request('DELETE', `/v1/documents/${id}`, { token: member });
    await h.db.updateTable('jobs').set({ deleted_at: sql`now() - interval '31 days'` }).where('id', '=', id).execute();
    const res = await h.request('POST', `/v1/documents/${id}/restore`, { token: member });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('restore_window_passed');
  });
});

describe('batch reprocess', () => {
  it('refuses a template with a mode that does not extract (400) before any job of the batch has finished', async () => {
    const batch = await uploadBatch(h, member, [FILES.invoice]);
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const template = await createTemplate(h, admin, 'contract-b-batch-rule');
    const res = await h.request('POST', `/v1/batches/${batch.body.batch_id}/reprocess`, { token: member, body: { processing_mode: 'canonical', template_id: template } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('template_requires_extraction');
    // The same body on one of its jobs answers the same.
    const job = await h.request('POST', `/v1/documents/${batch.body.jobs[0].job_id}/reprocess`, { token: member, body: { processing_mode: 'canonical', template_id: template } });
    expect(job.status).toBe(400);
    expect(job.body.code).toBe('template_requires_extraction');
  });
});

describe('reupload context', () => {
  it('returns the settings to submit a replacement', async () => {
    const id = await newJob({ page_range: '1', processing_mode: 'canonical', metadata: '{"k":1}' });
    const res = await h.request('GET', `/v1/documents/${id}/reupload-context`, { token: member });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      original_filename: 'camelot-example.pdf',
      template_id: null,
      processing_mode: 'canonical',
      page_range: '1',
      batch_id: null,
      upload: { method: 'POST', url: '/v1/documents', fields: { processing_mode: 'canonical', page_range: '1', metadata: '{"k":1}' } },
    });
    expect((await h.request('GET', `/v1/documents/${id}/reupload-context`, { token: other })).status).toBe(404);
  });

  it('carries page_cap_policy, so a replacement of a truncated job is truncated too', async () => {
    const id = await newJob({ processing_mode: 'canonical', page_cap_policy: 'truncate' });
    const res = await h.request('GET', `/v1/documents/${id}/reupload-context`, { token: member });
    expect(res.status).toBe(200);
    expect(res.body.page_cap_policy).toBe('truncate');
    expect(res.body.upload.fields).toEqual({ processing_mode: 'canonical', page_cap_policy: 'truncate' });
    // Sending the fields as given makes a job with the same settings.
    const again = await upload(h, member, FILES.invoice, res.body.upload.fields);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.body).toMatchObject({ processing_mode: 'canonical', page_cap_policy: 'truncate' });
  });
});

describe('artifacts', () => {
  it('downloads the source with its content type and ranges; another tenant gets 404', async () => {
    const res = await upload(h, member, FILES.invoice);
    const art = res.body.artifacts[0];
    const whole = await fetch(`${h.baseUrl}${art.url}`, { headers: { authorization: `Bearer ${member}` } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('application/pdf');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    // Tenant data never enters a cache, the browser's included (docs/reliability.md).
    expect(whole.headers.get('cache-control')).toBe('no-store');
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.length).toBe(art.size_bytes);
    const part = await fetch(`${h.baseUrl}${art.url}`, { headers: { authorization: `Bearer ${member}`, range: 'bytes=0-4' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-4/${art.size_bytes}`);
    expect(Buffer.from(await part.arrayBuffer()).toString()).toBe('%PDF-');
    const tail = await fetch(`${h.baseUrl}${art.url}`, { headers: { authorization: `Bearer ${member}`, range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10));
    const outside = await fetch(`${h.baseUrl}${art.url}`, { headers: { authorization: `Bearer ${member}`, range: `bytes=${art.size_bytes}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${art.size_bytes}`);
    const cached = await fetch(`${h.baseUrl}${art.url}`, { headers: { authorization: `Bearer ${member}`, 'if-none-match': whole.headers.get('etag')! } });
    expect(cached.status).toBe(304);
    expect((await h.request('GET', art.url, { token: other })).status).toBe(404);
    expect((await h.request('GET', art.url)).status).toBe(401);
    expect((await h.request('GET', '/v1/artifacts/art_nothing', { token: member })).status).toBe(404);
  });

  it('revalidates with the weak form of its tag, a list holding it or *, and names the file exactly (RFC 8187)', async () => {
    const bytes = fs.readFileSync(FILES.invoice);
    const res = await upload(h, member, { name: "Rechnung (März) 'final'*.pdf", bytes });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const art = res.body.artifacts[0];
    const get = (headers: Record<string, string> = {}) => fetch(`${h.baseUrl}${art.url}`, { headers: { authorization: `Bearer ${member}`, ...headers } });
    const whole = await get();
    const etag = whole.headers.get('etag')!;
    expect(whole.headers.get('content-disposition')).toBe(`attachment; filename="Rechnung (M_rz) 'final'*.pdf"; filename*=UTF-8''Rechnung%20%28M%C3%A4rz%29%20%27final%27%2A.pdf`);
    for (const tag of [`W/${etag}`, `"other", ${etag}`, '*']) expect((await get({ 'if-none-match': tag })).status, tag).toBe(304);
    expect((await get({ 'if-none-match': '"other"' })).status).toBe(200);
  });
});

describe('POST /v1/admin/jobs/recover-stale', () => {
  it('is for tenant admins only, and recovers only their tenant\'s jobs', async () => {
    expect((await h.request('POST', '/v1/admin/jobs/recover-stale', { token: member })).status).toBe(403);
    expect((await h.request('POST', '/v1/admin/jobs/recover-stale')).status).toBe(401);
    const mine = await newJob();
    const last = await newJob();
    const theirs = await newJob({}, other);
    const expired = { lease_expires_at: new Date(Date.now() - 1000) };
    await setStatus(mine, 'processing', expired);
    await setStatus(last, 'processing', { ...expired, attempts: 3, max_attempts: 3 });
    await setStatus(theirs, 'processing', expired);
    const res = await h.request('POST', '/v1/admin/jobs/recover-stale', { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ recovered: 2, requeued: 1, failed: 1 });
    expect(res.body.job_ids.sort()).toEqual([mine, last].sort());
    expect(await row(mine)).toMatchObject({ status: 'queued', lease_owner: null });
    expect(await row(last)).toMatchObject({ status: 'failed', failure_code: 'worker_lost', finished_at: expect.any(Date) });
    expect((await row(last)).failure_message).toMatch(/Retry/);
    expect((await row(theirs)).status).toBe('processing');
    expect((await h.request('POST', '/v1/admin/jobs/recover-stale', { token: otherAdmin })).body.recovered).toBe(1);
    // A platform admin acts on a tenant with X-Tenant-Id.
    const platform = await h.request('POST', '/v1/admin/jobs/recover-stale', { token: await h.adminToken(), tenant: 'acme' });
    expect(platform.body.recovered).toBe(0);
  });
});
