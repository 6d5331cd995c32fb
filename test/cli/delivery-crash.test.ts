// Delivery crash safety with the real binary: two `quire worker` processes deliver a batch to an
// HTTPS webhook that holds each request for a moment; one worker is SIGKILLed while a delivery is
// in flight. After recovery every job (and the manifest) has arrived, and whatever arrived twice
// arrived under the same delivery id, so the receiver can drop the repeat.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { type WorkerProcess, exited, killAll, startWorkerProcess, workerStarted } from '../helpers/worker-process.js';
import { uploadBatch, waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type WebhookReceiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-delivery-crash-'));
const SECRET = 'whsec_crash_test_0123456789';
let h: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  await ensureBuilt();
  receiver = await startWebhookReceiver(SECRET);
  h = await startHarness({ dataDir, allowPrivateNetwork: true, extraCaCerts: receiver.caFile });
}, 300_000);

afterAll(async () => {
  killAll();
  await h?.close();
  await receiver?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function startWorker(): WorkerProcess {
  return startWorkerProcess({
    DATABASE_URL: h.databaseUrl,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_ALLOW_PRIVATE_NETWORK: '1',
    QUIRE_EXTRA_CA_CERTS: receiver.caFile,
    // A worker killed mid-job must not hold its documents for the default 30 s lease plus a
    // 60 s recovery interval: short leases and a fast sweep keep the recovery inside the test.
    QUIRE_JOB_LEASE_SECONDS: '5',
    QUIRE_RECOVERY_INTERVAL_SECONDS: '2',
    QUIRE_DELIVERY_LEASE_SECONDS: '3',
    QUIRE_DELIVERY_RETRY_BASE_MS: '200',
  });
}

it('delivers every job of a batch after a worker dies mid-delivery, repeats only under the same id', async () => {
  await h.seedTenant('acme');
  const admin = (await h.seedUser('acme', 'admin')).token!;
  const created = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  receiver.delayMs = 1_500;

  const files = Array.from({ length: 6 }, (_, i) => ({ name: `note-${i}.txt`, bytes: Buffer.from(`Delivery note ${i}`) }));
  const batch = await uploadBatch(h, admin, files, { processing_mode: 'canonical', destination_connection_id: created.body.id });
  expect(batch.status).toBe(202);
  const batchId = batch.body.batch_id;

  const a = startWorker();
  const b = startWorker();
  for (const w of [a, b]) await workerStarted(w);

  // The moment a delivery is on the wire (the receiver holds it), its worker dies.
  const inFlight = await waitFor(
    'a delivery in flight',
    async () => {
      const row = await h.db.selectFrom('deliveries').select(['id', 'lease_owner']).where('batch_id', '=', batchId).where('status', '=', 'delivering').executeTakeFirst();
      return row && receiver.arrivals.includes(row.id) ? row : undefined;
    },
    60_000,
    10,
  );
  const victim = [a, b].find((w) => inFlight.lease_owner!.includes(`:${w.child.pid}:`))!;
  expect(victim).toBeDefined();
  victim.child.kill('SIGKILL');
  await exited(victim.child);

  let standing = '';
  const rows = await waitFor(
    'every delivery of the batch to arrive',
    async () => {
      const all = await h.db.selectFrom('deliveries').selectAll().where('batch_id', '=', batchId).execute();
      if (all.length === 7 && all.every((d) => d.status === 'delivered')) return all;
      const jobs = await h.db.selectFrom('jobs').select('status').where('batch_id', '=', batchId).execute();
      standing = JSON.stringify({ jobs: jobs.map((j) => j.status), deliveries: all.map((d) => [d.kind, d.status, d.attempts]) });
      return undefined;
    },
    150_000,
    100,
  ).catch((err: Error) => Promise.reject(new Error(`${err.message}; the batch stood at ${standing}`)));
  const jobIds = rows.filter((r) => r.kind === 'job').map((r) => r.job_id);
  expect(new Set(jobIds).size).toBe(6);
  expect(rows.filter((r) => r.kind === 'manifest')).toHaveLength(1);

  // Every arrival carries a known delivery id and a valid signature; per job, one delivery id only.
  const ours = receiver.received.filter((r) => rows.some((d) => d.id === r.deliveryId));
  expect(ours.every((r) => r.signatureValid)).toBe(true);
  const idsPerJob = new Map<string, Set<string>>();
  for (const r of ours.filter((x) => x.event.startsWith('job.'))) {
    const set = idsPerJob.get(r.body.job.job_id) ?? new Set();
    set.add(r.deliveryId);
    idsPerJob.set(r.body.job.job_id, set);
  }
  expect([...idsPerJob.keys()].sort()).toEqual([...jobIds].sort());
  expect([...idsPerJob.values()].every((ids) => ids.size === 1)).toBe(true);
  // The interrupted delivery was taken over and sent again under its own id.
  const retaken = rows.find((r) => r.id === inFlight.id)!;
  expect(retaken.attempts).toBeGreaterThanOrEqual(2);
  expect(receiver.arrivals.filter((id) => id === inFlight.id).length).toBeGreaterThanOrEqual(2);

  const survivor = victim === a ? b : a;
  survivor.child.kill('SIGTERM');
  expect(await exited(survivor.child)).toBe(0);
}, 300_000);
