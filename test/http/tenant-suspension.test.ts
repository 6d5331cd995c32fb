// A suspended tenant's background work waits: its queued document and forge jobs are not run, its sources are
// not polled, its pending deliveries do not go out; activating the tenant resumes all of it. The
// other tenant (globex) keeps working throughout and shows the worker passed the paused work by:
// every queue is taken oldest first, so a later globex item done means the earlier acme one was
// skipped, not merely not reached yet.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { upload, waitFor, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type WebhookReceiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'whsec_suspension_0123456789';
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-suspension-root-'));
const note = (name: string, text: string) => ({ name, bytes: Buffer.from(text) });

let h: Harness;
let root: string;
let acme: string;
let globex: string;
let receiver: WebhookReceiver;
/** A finished job of each tenant, samples for the forge. */
const finished: Record<string, string> = {};

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET);
  // Retries wait a minute unless the test makes them due: nothing is resent behind its back.
  h = await startHarness({ localRoot, extraCaCerts: receiver.caFile, allowPrivateNetwork: true, deliveryRetryBaseMs: 60_000 }, { workers: 1 });
  root = await h.adminToken();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  acme = (await h.seedUser('acme', 'admin')).token!;
  globex = (await h.seedUser('globex', 'admin')).token!;
});
// A test that failed half way leaves the next one an active tenant.
afterEach(async () => {
  await h.db.updateTable('tenants').set({ status: 'active' }).where('id', '=', 'acme').execute();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

async function tenantAction(action: 'suspend' | 'activate') {
  const res = await h.request('POST', `/v1/platform/tenants/acme/${action}`, { token: root });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function connection(token: string, body: Record<string, unknown>, tenant?: string): Promise<string> {
  const res = await h.request('POST', '/v1/admin/connections', { token, body, tenant });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const jobStatus = async (id: string) => (await h.db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

describe('a suspended tenant', () => {
  it('keeps its queued jobs queued until it is activated', async () => {
    await tenantAction('suspend');
    // A platform admin may still act in a suspended tenant.
    const held = await upload(h, root, note('held.txt', 'Invoice held total 10.00'), { processing_mode: 'canonical' }, { 'x-tenant-id': 'acme' });
    expect(held.status, JSON.stringify(held.body)).toBe(202);
    const later = await upload(h, globex, note('later.txt', 'Invoice later total 20.00'), { processing_mode: 'canonical' });
    await waitForJob(h, globex, later.body.job_id);
    expect(await jobStatus(held.body.job_id)).toBe('queued');
    // The queue depth health reports is work a worker can take: the paused job is not in it.
    const depth = async () => (await h.request('GET', '/v1/health')).body.queue.queued as number;
    expect(await depth()).toBe(0);

    await tenantAction('activate');
    const done = await waitForJob(h, acme, held.body.job_id);
    expect(done.status).toBe('completed');
    finished.acme = held.body.job_id;
    finished.globex = later.body.job_id;
  });

  it('keeps its queued forge jobs queued until it is activated', async () => {
    expect(Object.keys(finished)).toEqual(['acme', 'globex']);
    await tenantAction('suspend');
    const forge = (token: string, sample: string, tenant?: string) => h.request('POST', '/v1/templates/forge/jobs', { token, tenant, body: { sample_job_ids: [sample] } });
    const held = await forge(root, finished.acme!, 'acme');
    expect(held.status, JSON.stringify(held.body)).toBe(202);
    const later = await forge(globex, finished.globex!);
    expect(later.status, JSON.stringify(later.body)).toBe(202);
    const statusOf = async (id: string) => (await h.db.selectFrom('forge_jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    await waitFor('the globex forge job run', async () => ['succeeded', 'failed'].includes(await statusOf(later.body.id)));
    expect(await statusOf(held.body.id)).toBe('queued');

    await tenantAction('activate');
    await waitFor('the acme forge job run', async () => ['succeeded', 'failed'].includes(await statusOf(held.body.id)));
  });

  it('has its sources left unpolled until it is activated', async () => {
    for (const tenant of ['acme', 'globex']) {
      fs.mkdirSync(path.join(localRoot, tenant, 'inbox'), { recursive: true });
      fs.writeFileSync(path.join(localRoot, tenant, 'inbox', 'note.txt'), `Delivery note for ${tenant}`);
    }
    await tenantAction('suspend');
    const suspendedAt = new Date();
    const body = { name: 'inbox', protocol: 'local', direction: 'source', config: { settle_seconds: 0, path: 'inbox', poll_seconds: 3600, processing_mode: 'canonical' }, credentials: {} };
    const acmeSource = await connection(root, body, 'acme');
    const globexSource = await connection(globex, body);
    // Both due, acme's first.
    await sql`UPDATE connections SET next_poll_at = now() - interval '1 minute' WHERE id = ${acmeSource}`.execute(h.db);
    await sql`UPDATE connections SET next_poll_at = now() WHERE id = ${globexSource}`.execute(h.db);
    await waitFor('the globex source polled', async () => {
      const row = await h.db.selectFrom('connections').select('last_polled_at').where('id', '=', globexSource).executeTakeFirstOrThrow();
      return row.last_polled_at && row.last_polled_at >= suspendedAt;
    });
    const acmeRow = await h.db.selectFrom('connections').select('last_polled_at').where('id', '=', acmeSource).executeTakeFirstOrThrow();
    expect(acmeRow.last_polled_at === null || acmeRow.last_polled_at < suspendedAt).toBe(true);
    expect(await h.db.selectFrom('source_files').select('id').where('connection_id', '=', acmeSource).execute()).toHaveLength(0);

    await tenantAction('activate');
    await waitFor('the acme file taken', async () => (await h.db.selectFrom('source_files').select('id').where('connection_id', '=', acmeSource).execute()).length === 1);
  });

  it('holds its pending deliveries until it is activated', async () => {
    const acmeHook = await connection(acme, { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
    const globexHook = await connection(globex, { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
    receiver.script = [500];
    const job = await upload(h, acme, note('hooked.txt', 'Invoice hooked total 30.00'), { processing_mode: 'canonical', destination_connection_id: acmeHook });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    const pending = await waitFor('the first attempt refused', async () => {
      const row = await h.db.selectFrom('deliveries').selectAll().where('job_id', '=', job.body.job_id).executeTakeFirst();
      return row && row.status === 'pending' && row.attempts === 1 ? row : undefined;
    });
    await tenantAction('suspend');
    await sql`UPDATE deliveries SET run_after = now() - interval '1 minute' WHERE id = ${pending.id}`.execute(h.db);

    const other = await upload(h, globex, note('other.txt', 'Invoice other total 40.00'), { processing_mode: 'canonical', destination_connection_id: globexHook });
    await waitFor('the globex delivery', async () => {
      const row = await h.db.selectFrom('deliveries').select('status').where('job_id', '=', other.body.job_id).executeTakeFirst();
      return row?.status === 'delivered';
    });
    const held = await h.db.selectFrom('deliveries').selectAll().where('id', '=', pending.id).executeTakeFirstOrThrow();
    expect({ status: held.status, attempts: held.attempts }).toEqual({ status: 'pending', attempts: 1 });

    await tenantAction('activate');
    await waitFor('the acme delivery', async () => {
      const row = await h.db.selectFrom('deliveries').select('status').where('id', '=', pending.id).executeTakeFirstOrThrow();
      return row.status === 'delivered';
    });
  });
});
