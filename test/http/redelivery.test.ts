// What a destination receives when a job ends again: after a review is approved or overridden,
// and after a reprocess, the job is delivered once more, with the result the job now has; what
// arrives is the job exactly as GET /v1/documents/{id} shows it (less its deliveries).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, upload, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { type WebhookReceiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const AZURE = data('invoice2data/compare/AzureInterior.pdf');
const SECRET = 'whsec_redelivery_0123456789';
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-redelivery-root-'));
let h: Harness;
let admin: string;
let receiver: WebhookReceiver;
let hook: string;
let folder: string;
/** Needs review on every run: a `required` rule on a field the invoice does not have. */
let strict: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET);
  h = await startHarness({ localRoot, extraCaCerts: receiver.caFile, allowPrivateNetwork: true, deliveryRetryBaseMs: 100 }, { workers: 2 });
  admin = await h.adminToken();
  const created = async (body: Record<string, unknown>) => {
    const res = await h.request('POST', '/v1/admin/connections', { token: admin, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  hook = await created({ name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
  folder = await created({ name: 'folder', protocol: 'local', direction: 'destination', config: { path: 'out' }, credentials: {} });
  const tpl = await h.request('POST', '/v1/templates', {
    token: admin,
    body: {
      name: 'strict',
      json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number', 'x-aliases': ['amount', 'total amount'] }, po_number: { type: 'string' } } },
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error', message: 'The purchase order number is missing.' }],
    },
  });
  expect(tpl.status, JSON.stringify(tpl.body)).toBe(201);
  strict = tpl.body.id;
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

/** The job as the API shows it, without its deliveries (what a destination is sent). */
async function shown(jobId: string) {
  const res = await h.request('GET', `/v1/documents/${jobId}`, { token: admin });
  const { deliveries: _deliveries, ...job } = res.body;
  return job;
}

async function deliveredCount(jobId: string, n: number) {
  return waitFor(`${n} deliveries of ${jobId}`, async () => {
    const res = await h.request('GET', `/v1/documents/${jobId}`, { token: admin });
    const rows = res.body.deliveries as any[];
    return rows.length === n && rows.every((d) => d.status === 'delivered') ? rows : undefined;
  }, 60_000, 100);
}

const postsOf = (jobId: string) => receiver.received.filter((r) => r.body.job?.job_id === jobId && r.answered === 200);

async function reviewOf(jobId: string) {
  const res = await h.request('GET', `/v1/reviews?job_id=${jobId}`, { token: admin });
  return res.body.items[0];
}

describe('re-delivery', () => {
  it('sends the approved job once more, as the API shows it, to a webhook', async () => {
    const res = await upload(h, admin, AZURE, { template_id: strict, destination_connection_id: hook });
    const job = await waitForJob(h, admin, res.body.job_id);
    expect(job.status).toBe('needs_review');
    await deliveredCount(job.job_id, 1);
    expect(postsOf(job.job_id).map((r) => [r.event, r.body.job.status, r.signatureValid])).toEqual([['job.needs_review', 'needs_review', true]]);
    expect(postsOf(job.job_id)[0]!.body.job).toEqual(await shown(job.job_id));

    const review = await reviewOf(job.job_id);
    expect((await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { token: admin, body: { note: 'fine' } })).status).toBe(200);
    await deliveredCount(job.job_id, 2);
    const posts = postsOf(job.job_id);
    expect(posts.map((r) => [r.event, r.body.job.status])).toEqual([['job.needs_review', 'needs_review'], ['job.completed', 'completed']]);
    expect(posts[1]!.body.job).toEqual(await shown(job.job_id));
  });

  it('writes the overridden result, then the reprocessed one, over <job_id>.json in a folder', async () => {
    const res = await upload(h, admin, AZURE, { template_id: strict, destination_connection_id: folder });
    const job = await waitForJob(h, admin, res.body.job_id);
    await deliveredCount(job.job_id, 1);
    const file = path.join(localRoot, DEFAULT_TENANT_ID, 'out', `${job.job_id}.json`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(await shown(job.job_id));

    const review = await reviewOf(job.job_id);
    const over = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: admin, body: { patch: { po_number: 'PO-4711' } } });
    expect(over.status, JSON.stringify(over.body)).toBe(200);
    await deliveredCount(job.job_id, 2);
    const overridden = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(overridden).toEqual(await shown(job.job_id));
    expect(overridden).toMatchObject({ status: 'completed', result: { extraction: { data: { po_number: 'PO-4711' } } } });

    const again = await h.request('POST', `/v1/documents/${job.job_id}/reprocess`, { token: admin, body: { processing_mode: 'canonical', template_id: null } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await waitForJob(h, admin, job.job_id, ['completed']);
    await deliveredCount(job.job_id, 3);
    const reprocessed = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(reprocessed).toEqual(await shown(job.job_id));
    expect(reprocessed.processing_mode).toBe('canonical');
    expect(reprocessed.result.extraction).toBeUndefined();
  });

  it('sends a job again only once its earlier delivery to the same place has finished, so the newest state arrives last', async () => {
    const res = await upload(h, admin, AZURE, { template_id: strict, destination_connection_id: hook });
    // The receiver holds every answer: the needs_review delivery stays in flight while the review is approved.
    receiver.hold();
    try {
      const job = await waitForJob(h, admin, res.body.job_id);
      const first = await waitFor('the needs_review delivery to arrive', async () => {
        const rows = await h.db.selectFrom('deliveries').select('id').where('job_id', '=', job.job_id).execute();
        return rows.length === 1 && receiver.arrivals.includes(rows[0]!.id) ? rows[0]! : undefined;
      });
      const review = await reviewOf(job.job_id);
      expect((await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { token: admin })).status).toBe(200);
      const second = await waitFor('the completed delivery to exist', async () => {
        const rows = await h.db.selectFrom('deliveries').select(['id', 'status']).where('job_id', '=', job.job_id).where('id', '<>', first.id).execute();
        return rows[0];
      });
      // Free delivery loops are there to take it; it waits for the first. A delivery made after it
      // (of another job, to the folder) going out shows the loops have claimed past it: they take
      // the oldest claimable first, so it was claimed and gave way.
      const other = await h.db.selectFrom('jobs').select('id').where('status', '=', 'completed').where('destination_connection_id', '=', folder).executeTakeFirstOrThrow();
      const { rows } = await sql<{ id: string }>`
        INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, job_id) VALUES (quire_delivery_id(), ${DEFAULT_TENANT_ID}, ${folder}, 'job', 'job.completed', ${other.id}) RETURNING id`.execute(h.db);
      await sql`SELECT pg_notify('quire_deliveries', '')`.execute(h.db);
      await waitFor('the later delivery to go out', async () => (await h.db.selectFrom('deliveries').select('status').where('id', '=', rows[0]!.id).executeTakeFirstOrThrow()).status === 'delivered', 60_000, 100);
      await waitFor('the second delivery to be waiting, unattempted', async () => {
        const row = await h.db.selectFrom('deliveries').select(['status', 'attempts']).where('id', '=', second.id).executeTakeFirstOrThrow();
        return row.status === 'pending' && row.attempts === 0;
      });
      expect(receiver.arrivals).not.toContain(second.id);
      receiver.release();
      await deliveredCount(job.job_id, 2);
      const mine = receiver.events.filter((e) => e.endsWith(first.id) || e.endsWith(second.id));
      expect(mine).toEqual([`arrive ${first.id}`, `answer ${first.id}`, `arrive ${second.id}`, `answer ${second.id}`]);
      const last = postsOf(job.job_id).at(-1)!;
      expect(last.body.job).toEqual(await shown(job.job_id));
      expect(last.body.job.status).toBe('completed');
    } finally {
      receiver.release();
    }
  });
});
