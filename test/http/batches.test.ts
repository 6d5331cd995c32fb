// Batches through the API with in-process workers: creation from the multipart form, per-status
// counts and the batch status, the bulk actions, page_cap_policy, and the upload limits.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, uploadBatch, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

const MAX_UPLOAD = 200_000;
let h: Harness;
let member: string;
let other: string;

beforeAll(async () => {
  h = await startHarness({ maxUploadBytes: MAX_UPLOAD }, { workers: 2 });
  await h.seedTenant('acme');
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  other = (await h.seedUser('acme', 'member')).token!;
});
afterAll(() => h.close());

const TERMINAL = ['completed', 'completed_with_errors', 'cancelled'];

async function waitForBatch(batchId: string, token = member, statuses = TERMINAL) {
  return waitFor(`batch ${batchId} to finish`, async () => {
    const res = await h.request('GET', `/v1/batches/${batchId}`, { token });
    return statuses.includes(res.body.status) ? res.body : undefined;
  });
}

describe('POST /v1/batches', () => {
  it('refuses bad requests: 401, 422, 400, 404, 413', async () => {
    expect((await fetch(`${h.baseUrl}/v1/batches`, { method: 'POST', body: new FormData() })).status).toBe(401);
    const none = await h.request('POST', '/v1/batches', { token: member, raw: Buffer.from('--x--\r\n'), headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expect(none.status).toBe(422);
    expect(none.body.detail[0]).toMatchObject({ loc: ['body', 'files'], type: 'too_short' });
    const badPolicy = await uploadBatch(h, member, [FILES.invoice], { page_cap_policy: 'sometimes', destination_config: 'not json' });
    expect(badPolicy.status).toBe(422);
    expect(badPolicy.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.page_cap_policy', 'body.destination_config']));
    const rule = await uploadBatch(h, member, [FILES.invoice], { processing_mode: 'entities', template_id: 'tpl_a' });
    expect(rule.status).toBe(400);
    const dest = await uploadBatch(h, member, [FILES.invoice], { destination_connection_id: 'con_unknown', destination_config: '{"include_original":true}' });
    expect(dest.status).toBe(404);
    // destination_config holds only what a destination can do, and only beside a destination.
    const loose = await uploadBatch(h, member, [FILES.invoice], { destination_connection_id: 'con_unknown', destination_config: '{"include_original":"yes","prefix":"out/"}' });
    expect(loose.status).toBe(422);
    expect(loose.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.destination_config.include_original', 'body.destination_config.prefix']);
    const alone = await uploadBatch(h, member, [FILES.invoice], { destination_config: '{"include_original":true}' });
    expect(alone.status).toBe(422);
    expect(alone.body.detail[0].loc).toEqual(['body', 'destination_config']);
    const big = await uploadBatch(h, member, [FILES.invoice, FILES.long]);
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const tooMany = await uploadBatch(h, member, Array.from({ length: 501 }, (_, i) => ({ name: `n${i}.txt`, bytes: Buffer.from(`note ${i}`) })));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail[0]).toMatchObject({ loc: ['body', 'files'], type: 'too_long' });
    const single = await upload(h, member, FILES.long);
    expect(single.status).toBe(413);
    // Nothing was created by the refused requests.
    expect((await h.request('GET', '/v1/batches', { token: member })).body.items).toEqual([]);
  });

  it('creates one job per file, fails unreadable files at once, and counts them to a final status', async () => {
    const res = await uploadBatch(h, member, [FILES.invoice, FILES.encrypted, FILES.zip], { name: 'March invoices', processing_mode: 'canonical' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ batch_id: expect.stringMatching(/^bat_/), name: 'March invoices', processing_mode: 'canonical', page_cap_policy: 'fail', destination: null });
    expect(res.body.counts.total).toBe(3);
    expect(res.body.jobs).toHaveLength(3);
    const zip = res.body.jobs.find((j: { original_filename: string }) => j.original_filename === 'issue-948.zip');
    expect(zip).toMatchObject({ status: 'failed', failure_code: 'unsupported_format' });

    const batch = await waitForBatch(res.body.batch_id);
    expect(batch).toMatchObject({ status: 'completed_with_errors', counts: { total: 3, queued: 0, processing: 0, completed: 1, needs_review: 0, rejected: 0, failed: 2 } });
    expect(batch.finished_at).not.toBeNull();

    const jobs = await h.request('GET', `/v1/batches/${res.body.batch_id}/jobs`, { token: member });
    expect(jobs.body.items).toHaveLength(3);
    expect(jobs.body.items.every((j: { batch_id: string }) => j.batch_id === res.body.batch_id)).toBe(true);
    const failed = await h.request('GET', `/v1/batches/${res.body.batch_id}/jobs?status=failed`, { token: member });
    expect(failed.body.items.map((j: { failure_code: string }) => j.failure_code).sort()).toEqual(['encrypted_document', 'unsupported_format']);
    const listed = await h.request('GET', `/v1/documents?batch_id=${res.body.batch_id}`, { token: member });
    expect(listed.body.items).toHaveLength(3);

    // Another tenant sees nothing of it.
    expect((await h.request('GET', `/v1/batches/${res.body.batch_id}`, { token: other })).status).toBe(404);
    expect((await h.request('GET', `/v1/batches/${res.body.batch_id}/jobs`, { token: other })).status).toBe(404);
    expect((await h.request('GET', '/v1/batches', { token: other })).body.items).toEqual([]);
    const mine = await h.request('GET', '/v1/batches?status=completed_with_errors&q=march', { token: member });
    expect(mine.body.items.map((b: { batch_id: string }) => b.batch_id)).toContain(res.body.batch_id);

    // retry-failed runs the failed jobs again (they fail again: same files).
    const retried = await h.request('POST', `/v1/batches/${res.body.batch_id}/retry-failed`, { token: member });
    expect(retried.status).toBe(200);
    expect(retried.body.affected_job_ids).toHaveLength(2);
    expect((await waitForBatch(res.body.batch_id)).counts).toMatchObject({ completed: 1, failed: 2 });
    expect((await h.request('POST', `/v1/batches/${res.body.batch_id}/retry-failed`, { token: other })).status).toBe(404);

    // reprocess takes the job reprocess body, with the same rules.
    expect((await h.request('POST', `/v1/batches/${res.body.batch_id}/reprocess`, { token: member, body: { clear_template: true, template_id: 'tpl_a' } })).status).toBe(422);
    expect((await h.request('POST', `/v1/batches/${res.body.batch_id}/reprocess`, { token: member, body: { template_id: 'tpl_a' } })).status).toBe(400);
    const again = await h.request('POST', `/v1/batches/${res.body.batch_id}/reprocess`, { token: member, body: { processing_mode: 'extraction' } });
    expect(again.body.affected_job_ids).toHaveLength(3);
    await waitForBatch(res.body.batch_id);
    const after = await h.request('GET', `/v1/batches/${res.body.batch_id}/jobs?status=completed`, { token: member });
    expect(after.body.items[0].processing_mode).toBe('extraction');

    // A finished batch has nothing to cancel.
    const cancel = await h.request('POST', `/v1/batches/${res.body.batch_id}/cancel`, { token: member });
    expect(cancel.status).toBe(409);
  });

  it('answers the first batch again for the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'batch-key-1' };
    const first = await uploadBatch(h, member, [FILES.invoice], { name: 'once' }, headers);
    const again = await uploadBatch(h, member, [FILES.invoice], { name: 'once' }, headers);
    expect(again.body.batch_id).toBe(first.body.batch_id);
    expect((await uploadBatch(h, member, [FILES.invoice], { name: 'twice' }, headers)).status).toBe(409);
  });

  it('cancels every job not yet finished; the batch ends cancelled', async () => {
    const files = Array.from({ length: 12 }, (_, i) => ({ name: `doc-${i}.pdf`, bytes: fs.readFileSync(FILES.multipage) }));
    const res = await uploadBatch(h, member, files, { processing_mode: 'canonical' });
    const cancel = await h.request('POST', `/v1/batches/${res.body.batch_id}/cancel`, { token: member });
    expect(cancel.status).toBe(200);
    expect(cancel.body.affected_job_ids.length).toBeGreaterThan(0);
    const batch = await waitForBatch(res.body.batch_id);
    expect(batch.status).toBe('cancelled');
    expect(batch.counts.failed).toBeGreaterThan(0);
    expect(batch.counts.failed + batch.counts.completed).toBe(12);
    const cancelled = await h.request('GET', `/v1/batches/${res.body.batch_id}/jobs?status=failed&limit=200`, { token: member });
    expect(cancelled.body.items.every((j: { failure_code: string }) => j.failure_code === 'cancelled')).toBe(true);
    expect((await h.request('POST', `/v1/batches/${res.body.batch_id}/cancel`, { token: other })).status).toBe(404);
  });

  it('a job of a cancelled batch sent to run again reopens the batch, which then ends as its jobs say', async () => {
    const files = Array.from({ length: 6 }, (_, i) => ({ name: `again-${i}.pdf`, bytes: fs.readFileSync(FILES.multipage) }));
    const res = await uploadBatch(h, member, files, { processing_mode: 'canonical' });
    const batchId = res.body.batch_id;
    expect((await h.request('POST', `/v1/batches/${batchId}/cancel`, { token: member })).status).toBe(200);
    const cancelled = await waitForBatch(batchId);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancel_requested: true });
    const failed = (await h.request('GET', `/v1/batches/${batchId}/jobs?status=failed&limit=200`, { token: member })).body.items;
    expect(failed.length).toBeGreaterThan(0);

    const retried = await h.request('POST', `/v1/documents/${failed[0].job_id}/retry`, { token: member });
    expect(retried.status).toBe(200);
    const reopened = (await h.request('GET', `/v1/batches/${batchId}`, { token: member })).body;
    // Processing again (or, had the run already ended, finished as its jobs say): never cancelled.
    expect(reopened.cancel_requested).toBe(false);
    expect(reopened.status).not.toBe('cancelled');
    expect(reopened.counts.failed).toBe(cancelled.counts.failed - 1);
    expect(reopened.counts.queued + reopened.counts.processing + reopened.counts.completed).toBe(cancelled.counts.completed + 1);

    expect((await waitForJob(h, member, failed[0].job_id)).status).toBe('completed');
    const ended = await waitForBatch(batchId);
    // Derived as everywhere: the jobs still cancelled are failures of the batch, no cancel is pending.
    const expected = failed.length > 1 ? 'completed_with_errors' : 'completed';
    expect(ended).toMatchObject({ status: expected, cancel_requested: false, counts: { total: 6, completed: cancelled.counts.completed + 1, failed: cancelled.counts.failed - 1, queued: 0, processing: 0 } });
    expect(ended.finished_at).toEqual(expect.any(String));
    // The stored counts and status are what a recount from the jobs makes of them.
    const recount = await h.request('POST', `/v1/batches/${batchId}/reconcile`, { token: member });
    expect(recount.body).toMatchObject({ status: expected, counts: ended.counts });

    // Reprocessing a finished job of a cancelled batch reopens it the same way.
    const again = await uploadBatch(h, member, files.slice(0, 2), { processing_mode: 'canonical' });
    expect((await h.request('POST', `/v1/batches/${again.body.batch_id}/cancel`, { token: member })).status).toBe(200);
    await waitForBatch(again.body.batch_id);
    const job = (await h.request('GET', `/v1/batches/${again.body.batch_id}/jobs?limit=200`, { token: member })).body.items[0];
    expect((await h.request('POST', `/v1/documents/${job.job_id}/reprocess`, { token: member, body: {} })).status).toBe(200);
    expect((await h.request('GET', `/v1/batches/${again.body.batch_id}`, { token: member })).body.cancel_requested).toBe(false);
    await waitForJob(h, member, job.job_id);
    expect((await waitForBatch(again.body.batch_id)).status).not.toBe('cancelled');
  });

  it('applies page_cap_policy: fail fails over-cap files, truncate processes the first pdf_max_pages pages', async () => {
    await h.seedTenant('capped');
    const admin = (await h.seedUser('capped', 'admin')).token!;
    expect((await h.request('PATCH', '/v1/admin/tenant-policy/capped', { token: await h.adminToken(), body: { pdf_max_pages: 2 } })).status).toBe(200);
    const fail = await uploadBatch(h, admin, [FILES.multipage, FILES.invoice], { processing_mode: 'canonical' });
    expect((await waitForBatch(fail.body.batch_id, admin)).counts).toMatchObject({ completed: 1, failed: 1 });
    const truncate = await uploadBatch(h, admin, [FILES.multipage], { processing_mode: 'canonical', page_cap_policy: 'truncate' });
    expect(truncate.body.page_cap_policy).toBe('truncate');
    await waitForBatch(truncate.body.batch_id, admin);
    const job = await waitForJob(h, admin, truncate.body.jobs[0].job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 5, pages_processed: 2, page_cap_policy: 'truncate' });
  });

  it('reconciles counts from the jobs', async () => {
    const res = await uploadBatch(h, member, [FILES.invoice], { processing_mode: 'canonical' });
    await waitForBatch(res.body.batch_id);
    await h.db.updateTable('batches').set({ counts: JSON.stringify({ total: 99 }), status: 'processing' }).where('id', '=', res.body.batch_id).execute();
    const fixed = await h.request('POST', `/v1/batches/${res.body.batch_id}/reconcile`, { token: member });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ status: 'completed', counts: { total: 1, completed: 1 }, deliveries: { pending: 0, resent: 0 } });
    expect(fixed.body.deliveries.detail).toMatch(/no destination/);
    expect((await h.request('POST', `/v1/batches/${res.body.batch_id}/reconcile`, { token: other })).status).toBe(404);
    expect((await h.request('POST', '/v1/batches/bat_missing/reconcile', { token: member })).status).toBe(404);
  });
});
