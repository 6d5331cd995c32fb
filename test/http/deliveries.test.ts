// Delivery of finished jobs and batches to real destinations on loopback: a signed HTTPS webhook
// (that fails once, then accepts), an S3-compatible server through the AWS SDK, and a local
// folder; the job's deliveries, the per-attempt log, and reconcile re-sending what never arrived.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload, uploadBatch, waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { S3RVER_CREDENTIALS, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { type WebhookReceiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'whsec_deliveries_0123456789';
let h: Harness;
let admin: string;
let receiver: WebhookReceiver;
let s3: S3Server;
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-deliveries-root-'));
const note = (name: string, text: string) => ({ name, bytes: Buffer.from(text) });

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET);
  s3 = await startS3Server();
  h = await startHarness({ localRoot, extraCaCerts: receiver.caFile, allowPrivateNetwork: true, deliveryRetryBaseMs: 100 }, { workers: 1 });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
});
afterAll(async () => {
  await h.close();
  await receiver.close();
  await s3.close();
});

async function connection(body: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/v1/admin/connections', { token: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function settledDeliveries(batchId: string, expected: number) {
  return waitFor(`${expected} deliveries of ${batchId} to settle`, async () => {
    const rows = await h.db.selectFrom('deliveries').selectAll().where('batch_id', '=', batchId).execute();
    return rows.length === expected && rows.every((r) => r.status === 'delivered' || r.status === 'failed') ? rows : undefined;
  }, 60_000, 100);
}

describe('webhook destination', () => {
  it('posts each finished job and the manifest, signed, retrying a 500 under the same delivery id', async () => {
    const id = await connection({ name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
    receiver.script = [500];
    const batch = await uploadBatch(h, admin, [note('a.txt', 'Invoice A total 10.00'), note('b.txt', 'Invoice B total 20.00')], { processing_mode: 'canonical', destination_connection_id: id });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const rows = await settledDeliveries(batch.body.batch_id, 3);
    expect(rows.every((r) => r.status === 'delivered')).toBe(true);

    const mine = receiver.received.filter((r) => rows.some((d) => d.id === r.deliveryId));
    expect(mine.every((r) => r.signatureValid)).toBe(true);
    const failedOnce = mine.find((r) => r.answered === 500)!;
    expect(mine.filter((r) => r.deliveryId === failedOnce.deliveryId).map((r) => r.answered)).toEqual([500, 200]);
    expect(mine.filter((r) => r.answered === 200).map((r) => r.event).sort()).toEqual(['batch.finished', 'job.completed', 'job.completed']);
    const jobPost = mine.find((r) => r.event === 'job.completed')!;
    expect(jobPost.body).toMatchObject({ event: 'job.completed', job: { job_id: expect.stringMatching(/^job_/), status: 'completed', result: expect.any(Object) } });
    const manifest = mine.find((r) => r.event === 'batch.finished')!;
    expect(manifest.body).toMatchObject({ event: 'batch.finished', counts: { total: 2, completed: 2 }, jobs: [expect.objectContaining({ status: 'completed', result: expect.stringMatching(/^job_.*\.json$/) }), expect.any(Object)] });

    const retried = rows.find((r) => r.id === failedOnce.deliveryId)!;
    const attempts = await h.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', retried.id).orderBy('id').execute();
    expect(attempts.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([[1, 'retry', 500], [2, 'delivered', 200]]);
    expect(attempts[0]!.response_excerpt).toBe('status 500 from the receiver');
    expect(attempts.every((a) => a.latency_ms >= 0)).toBe(true);

    if (retried.job_id) {
      const job = await h.request('GET', `/v1/documents/${retried.job_id}`, { token: admin });
      expect(job.body.deliveries).toEqual([expect.objectContaining({ delivery_id: retried.id, connection_id: id, status: 'delivered', attempts: 2, last_error: null, delivered_at: retried.delivered_at!.toISOString(), created_at: retried.created_at.toISOString() })]);
    }
  });
});

describe('a job deleted while its delivery waits for a retry', () => {
  it('is not sent: the delivery fails saying the job was deleted', async () => {
    const id = await connection({ name: 'deleted-job', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
    // The receiver refuses every attempt: without the check, the last would fail on its answer.
    receiver.script = Array(8).fill(500);
    try {
      const res = await upload(h, admin, note('d.txt', 'Invoice D total 7.00'), { processing_mode: 'canonical', destination_connection_id: id });
      expect(res.status).toBe(202);
      const jobId = res.body.job_id;
      const first = await waitFor('the first refused attempt', async () => {
        const row = await h.db.selectFrom('deliveries').selectAll().where('job_id', '=', jobId).executeTakeFirst();
        return row && row.attempts >= 1 && row.status === 'pending' ? row : undefined;
      }, 60_000, 20);
      expect((await h.request('DELETE', `/v1/documents/${jobId}`, { token: admin })).status).toBe(204);
      const settled = await waitFor('the delivery to settle', async () => {
        const row = await h.db.selectFrom('deliveries').selectAll().where('id', '=', first.id).executeTakeFirst();
        return row && (row.status === 'delivered' || row.status === 'failed') ? row : undefined;
      }, 60_000, 50);
      expect(settled).toMatchObject({ status: 'failed', last_error: 'The job was deleted before this delivery was sent.' });
    } finally {
      receiver.script = [];
    }
  });
});

describe('a receiver that answers 200 and never finishes its body', () => {
  it('is a delivered attempt once the status is in, however slowly the rest trickles', async () => {
    const id = await connection({ name: 'trickle', protocol: 'webhook', direction: 'destination', config: { url: receiver.url, timeout_seconds: 1 }, credentials: { secret: SECRET } });
    receiver.trickle = true;
    try {
      const res = await upload(h, admin, note('t.txt', 'Invoice T total 5.00'), { processing_mode: 'canonical', destination_connection_id: id });
      expect(res.status).toBe(202);
      const delivered = await waitFor('the trickled delivery to settle', async () => {
        const rows = await h.db.selectFrom('deliveries').selectAll().where('job_id', '=', res.body.job_id).execute();
        return rows.length === 1 && rows[0]!.status !== 'pending' && rows[0]!.status !== 'delivering' ? rows[0] : undefined;
      }, 60_000, 100);
      expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, last_error: null });
      const [attempt] = await h.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', delivered.id).execute();
      expect(attempt).toMatchObject({ outcome: 'delivered', status_code: 200, response_excerpt: expect.stringMatching(/^\.*$/) });
    } finally {
      receiver.trickle = false;
    }
  });
});

describe('store destinations', () => {
  it('writes <prefix>/<job_id>.json, the original and the manifest to an S3-compatible store', async () => {
    const id = await connection({ name: 'bucket', protocol: 's3', direction: 'destination', config: { bucket: s3.bucket, prefix: 'quire/out', endpoint_url: s3.endpoint, force_path_style: true }, credentials: S3RVER_CREDENTIALS });
    const batch = await uploadBatch(h, admin, [note('c.txt', 'Invoice C total 30.00')], { processing_mode: 'canonical', destination_connection_id: id, destination_config: JSON.stringify({ include_original: true }) });
    const rows = await settledDeliveries(batch.body.batch_id, 2);
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    const jobId = rows.find((r) => r.kind === 'job')!.job_id!;
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const read = async (key: string) => (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body!.transformToString();
    expect(JSON.parse(await read(`quire/out/${jobId}.json`))).toMatchObject({ job_id: jobId, status: 'completed' });
    expect(await read(`quire/out/${jobId}/original/c.txt`)).toBe('Invoice C total 30.00');
    expect(JSON.parse(await read(`quire/out/${batch.body.batch_id}/manifest.json`))).toMatchObject({ event: 'batch.finished', counts: { total: 1 } });
    client.destroy();
  });

  it("keeps the original's name in any script, and shortens one too long for a file system", async () => {
    const id = await connection({ name: 'originals', protocol: 'local', direction: 'destination', config: { path: 'originals' }, credentials: {} });
    const long = `${'Lieferschein-'.repeat(25)}.txt`;
    const batch = await uploadBatch(h, admin, [note('Facture été №5 (copie).txt', 'Facture 5'), note(long, 'Lieferschein')], { processing_mode: 'canonical', destination_connection_id: id, destination_config: JSON.stringify({ include_original: true }) });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const rows = await settledDeliveries(batch.body.batch_id, 3);
    expect(rows.map((r) => [r.status, r.last_error])).toEqual([['delivered', null], ['delivered', null], ['delivered', null]]);
    const jobs = (await h.request('GET', `/v1/batches/${batch.body.batch_id}/jobs`, { token: admin })).body.items as { job_id: string; original_filename: string }[];
    const originals = (name: string) => fs.readdirSync(path.join(localRoot, 'acme/originals', jobs.find((j) => j.original_filename === name)!.job_id, 'original'));
    expect(originals('Facture été №5 (copie).txt')).toEqual(['Facture été №5 (copie).txt']);
    const [shortened] = originals(long);
    expect(shortened).toBe(`${long.slice(0, 196)}.txt`);
  });

  it('writes a single job to a local folder', async () => {
    const id = await connection({ name: 'folder', protocol: 'local', direction: 'destination', config: { path: 'results' }, credentials: {} });
    const res = await upload(h, admin, note('d.txt', 'Invoice D total 40.00'), { processing_mode: 'canonical', destination_connection_id: id });
    expect(res.status).toBe(202);
    const file = path.join(localRoot, 'acme/results', `${res.body.job_id}.json`);
    await waitFor('the local result file', async () => fs.existsSync(file), 60_000, 100);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ job_id: res.body.job_id, status: 'completed' });
  });
});

describe('reconcile', () => {
  it('re-sends failed and missing deliveries, a failed one under its own id', async () => {
    const id = await connection({ name: 'hook2', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
    const batch = await uploadBatch(h, admin, [note('e.txt', 'E'), note('f.txt', 'F')], { processing_mode: 'canonical', destination_connection_id: id });
    const rows = await settledDeliveries(batch.body.batch_id, 3);
    const [first, second] = rows.filter((r) => r.kind === 'job');
    await h.db.updateTable('deliveries').set({ status: 'failed', last_error: 'simulated' }).where('id', '=', first!.id).execute();
    await h.db.deleteFrom('deliveries').where('id', '=', second!.id).execute();
    const before = receiver.received.length;
    const res = await h.request('POST', `/v1/batches/${batch.body.batch_id}/reconcile`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.deliveries).toMatchObject({ resent: 2 });
    await settledDeliveries(batch.body.batch_id, 3);
    const again = receiver.received.slice(before);
    expect(again.map((r) => r.deliveryId)).toContain(first!.id);
    expect(again.map((r) => r.body.job?.job_id).sort()).toEqual([first!.job_id, second!.job_id].sort());
    const quiet = await h.request('POST', `/v1/batches/${batch.body.batch_id}/reconcile`, { token: admin });
    expect(quiet.body.deliveries).toMatchObject({ resent: 0, pending: 0 });
  });
});
