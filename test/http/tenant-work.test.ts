// What suspending, activating and deleting a tenant does to the work it has in the queues. No
// workers run here: the test claims and settles as a worker would, so every state is looked at
// exactly when it matters.
// - Suspended: its queued jobs leave the claim's way (marked tenant_paused, out of the claim's
//   index), including jobs that enter the queue while it is suspended; activated, they are taken
//   again in queue order. So do its deliveries, forge jobs and sources, each out of its own claim's
//   index, including a delivery or forge run whose worker died while it was suspended; deleted,
//   what is left of its deliveries and forge runs is taken again, to end at once.
// - Deleted: in the deleting transaction its queued jobs are cancelled, its running jobs asked to
//   stop (with the cancel notice), its batches cancelled with right counts, its open reviews
//   closed, its forge jobs aborted or asked to stop, its connections deleted and its waiting
//   deliveries failed; another tenant's work is untouched. What a run in progress leaves behind
//   (a retry of a delivery being sent, a forge run whose worker died) is taken and ends at once. A
//   source poll that was running when the tenant was deleted takes no further file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDelivery, settleDelivery } from '../../src/delivery/deliveries.repository.js';
import { deliver } from '../../src/delivery/deliver.js';
import { TENANT_DELETED_DELIVERY, TENANT_DELETED_FORGE, TENANT_DELETED_JOB } from '../../src/domain/tenants/tenant-work.js';
import { insertForgeJob } from '../../src/domain/forge/forge.repository.js';
import { newId } from '../../src/lib/ids.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { guardOptionsFromConfig } from '../../src/lib/ssrf-guard.js';
import { claimJob } from '../../src/queue/claim.js';
import { claimForgeJob, forgeHeartbeat, settleForgeJob } from '../../src/queue/forge-lease.js';
import { CANCELLED_MESSAGE, settleRun } from '../../src/queue/lease.js';
import { recoverStale } from '../../src/queue/recover.js';
import { CANCEL_CHANNEL } from '../../src/queue/notify.js';
import { pollSource } from '../../src/sources/poll-source.js';
import { claimDueSource, endPoll } from '../../src/sources/source-files.repository.js';
import { createBlobStore } from '../../src/storage/index.js';
import { FILES, upload, uploadBatch, waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-tenant-work-root-'));

let h: Harness;
let root: string;
let rootId: string;
const admins: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness({ localRoot });
  root = await h.adminToken();
  rootId = (await h.db.selectFrom('users').select('id').where('role', '=', 'platform_admin').executeTakeFirstOrThrow()).id;
  for (const tenant of ['initech', 'acme', 'globex', 'umbrella', 'hooli', 'stark', 'wayne']) {
    await h.seedTenant(tenant);
    admins[tenant] = (await h.seedUser(tenant, 'admin')).token!;
  }
});
afterAll(() => h?.close());

async function submit(tenant: string, file: string, fields: Record<string, string> = {}): Promise<string> {
  const res = await upload(h, admins[tenant]!, file, { processing_mode: 'canonical', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.job_id;
}

async function connection(tenant: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/v1/admin/connections', { token: admins[tenant], body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function tenantAction(tenant: string, action: 'suspend' | 'activate') {
  const res = await h.request('POST', `/v1/platform/tenants/${tenant}/${action}`, { token: root });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function deleteTenant(tenant: string) {
  const res = await h.request('DELETE', `/v1/platform/tenants/${tenant}`, { token: root });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

const job = (id: string) => h.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
type Marked = 'jobs' | 'deliveries' | 'forge_jobs' | 'connections';
/** The tenant_paused marks of the rows, in the order of `ids`. */
async function marks(table: Marked, ids: string[]): Promise<boolean[]> {
  const rows = await h.db.selectFrom(table).select(['id', 'tenant_paused']).where('id', 'in', ids).execute();
  return ids.map((id) => rows.find((r) => r.id === id)!.tenant_paused);
}
const paused = (ids: string[]) => marks('jobs', ids);
/** A mark cleared as the row trigger leaves it when the tenant row is locked: the claim's own tenant filter still passes the row over. */
const unmark = (table: Marked, id: string) => h.db.updateTable(table).set({ tenant_paused: false }).where('id', '=', id).execute();
const destination = (name: string) => ({ name, protocol: 'local', direction: 'destination', config: { path: 'results' }, credentials: {} });
const source = (name: string) => ({ name, protocol: 'local', direction: 'source', config: { path: 'inbox', poll_seconds: 3600, settle_seconds: 0, processing_mode: 'canonical' }, credentials: {} });
const newForgeJob = (tenant: string) =>
  insertForgeJob(h.db, tenant, { id: newId('fgj'), sample_job_ids: [], hint: null, expected_outputs: null, endpoint_id: null, limits: { max_iterations: 3, max_dollars: 1, max_wall_seconds: 60 }, created_by: null });
const lapse = (table: 'deliveries' | 'forge_jobs', id: string) => h.db.updateTable(table).set({ lease_expires_at: sql`now() - interval '1 minute'` }).where('id', '=', id).execute();
const DELIVERED = { outcome: 'delivered' as const, statusCode: null, latencyMs: 1, excerpt: null, error: null };

/** A job of the tenant run to completion, owing `hook` its result: its delivery's id. */
async function finishedWithDelivery(tenant: string, hook: string): Promise<string> {
  const id = await submit(tenant, FILES.invoice, { destination_connection_id: hook });
  const run = (await claimJob(h.db, 'w', 60))!;
  expect(run.id).toBe(id);
  expect(await settleRun(h.db, run, 'w', { status: 'completed', result: {} })).toBe('settled');
  return (await h.db.selectFrom('deliveries').select('id').where('job_id', '=', id).executeTakeFirstOrThrow()).id;
}

/** Claims deliveries until none is left for a worker, each sent at once; the ids in the order taken. */
async function claimAllDeliveries(): Promise<string[]> {
  const taken: string[] = [];
  for (let next = await claimDelivery(h.db, 'dw', 60); next; next = await claimDelivery(h.db, 'dw', 60)) {
    taken.push(next.id);
    expect(await settleDelivery(h.db, next, 'dw', DELIVERED, 0)).toBe(true);
  }
  return taken;
}

/** Claims forge jobs until none is left for a worker, each run at once; the ids in the order taken. */
async function claimAllForgeJobs(): Promise<string[]> {
  const taken: string[] = [];
  for (let next = await claimForgeJob(h.db, 'fw', 60); next; next = await claimForgeJob(h.db, 'fw', 60)) {
    taken.push(next.id);
    expect(await settleForgeJob(h.db, next, 'fw', 'succeeded')).toBe(true);
  }
  return taken;
}

/** Claims due sources until none is left for a poller, each poll ended at once; the ids in the order taken. */
async function claimAllSources(): Promise<string[]> {
  const taken: string[] = [];
  for (let next = await claimDueSource(h.db, 'poller', 60); next; next = await claimDueSource(h.db, 'poller', 60)) {
    taken.push(next.id);
    await endPoll(h.db, next.id, 'poller', null);
  }
  return taken;
}

/** Claims until the queue has nothing more for a worker, answering the jobs in the order taken. */
async function claimAll(): Promise<string[]> {
  const taken: string[] = [];
  for (let next = await claimJob(h.db, 'w', 60); next; next = await claimJob(h.db, 'w', 60)) taken.push(next.id);
  return taken;
}

describe('a suspended tenant', () => {
  it('has its queued jobs kept out of the claim, also those queued while it is suspended, and taken in order once activated', async () => {
    const first = await submit('initech', FILES.invoice);
    const second = await submit('initech', FILES.bol);
    await tenantAction('initech', 'suspend');
    expect(await paused([first, second])).toEqual([true, true]);
    // A platform admin may still submit in a suspended tenant: the job waits with the others.
    const third = await upload(h, root, FILES.multipage, { processing_mode: 'canonical' }, { 'x-tenant-id': 'initech' });
    expect(third.status, JSON.stringify(third.body)).toBe(202);
    expect(await paused([third.body.job_id])).toEqual([true]);
    const other = await submit('globex', FILES.invoice);
    expect(await paused([other])).toEqual([false]);
    expect(await claimAll()).toEqual([other]);
    expect((await job(first)).status).toBe('queued');

    await tenantAction('initech', 'activate');
    expect(await paused([first, second, third.body.job_id])).toEqual([false, false, false]);
    expect(await claimAll()).toEqual([first, second, third.body.job_id]);
  });

  it('has its deliveries kept out of the delivery claim, also those due while it is suspended, and taken in order once activated', async () => {
    const hook = await connection('hooli', destination('results'));
    const globexHook = await connection('globex', destination('results'));
    // Two deliveries being sent, one pending, and a job running whose result will be owed.
    const orphaned = await finishedWithDelivery('hooli', hook);
    const retried = await finishedWithDelivery('hooli', hook);
    const sending = (await claimDelivery(h.db, 'dw1', 60))!;
    const retrying = (await claimDelivery(h.db, 'dw2', 60))!;
    expect([sending.id, retrying.id]).toEqual([orphaned, retried]);
    const pending = await finishedWithDelivery('hooli', hook);
    const owing = await submit('hooli', FILES.bol, { destination_connection_id: hook });
    const run = (await claimJob(h.db, 'w', 60))!;
    expect(run.id).toBe(owing);

    await tenantAction('hooli', 'suspend');
    expect(await marks('deliveries', [orphaned, retried, pending])).toEqual([true, true, true]);
    // While it is suspended: one sender dies (its lease lapses), the other's send is to be retried
    // at once, and the running job ends, owing its result.
    await lapse('deliveries', orphaned);
    const retry = { outcome: 'retry' as const, statusCode: null, latencyMs: 1, excerpt: null, error: 'The store refused the write.' };
    expect(await settleDelivery(h.db, retrying, 'dw2', retry, 0)).toBe(true);
    expect(await settleRun(h.db, run, 'w', { status: 'completed', result: {} })).toBe('settled');
    const owed = (await h.db.selectFrom('deliveries').select('id').where('job_id', '=', owing).executeTakeFirstOrThrow()).id;
    expect(await marks('deliveries', [retried, owed])).toEqual([true, true]);
    const other = await finishedWithDelivery('globex', globexHook);
    expect(await marks('deliveries', [other])).toEqual([false]);
    await unmark('deliveries', pending);
    expect(await claimAllDeliveries()).toEqual([other]);

    await tenantAction('hooli', 'activate');
    expect(await marks('deliveries', [orphaned, retried, pending, owed])).toEqual([false, false, false, false]);
    expect(await claimAllDeliveries()).toEqual([orphaned, pending, retried, owed]);
  });

  it('has its forge jobs kept out of the forge claim, also those queued while it is suspended, and taken in order once activated', async () => {
    const orphaned = await newForgeJob('hooli');
    expect((await claimForgeJob(h.db, 'fw1', 60))!.id).toBe(orphaned.id);
    const queued = await newForgeJob('hooli');

    await tenantAction('hooli', 'suspend');
    expect(await marks('forge_jobs', [orphaned.id, queued.id])).toEqual([true, true]);
    // While it is suspended: the run's worker dies, and a platform admin queues another.
    await lapse('forge_jobs', orphaned.id);
    const later = await newForgeJob('hooli');
    const other = await newForgeJob('globex');
    expect(await marks('forge_jobs', [later.id, other.id])).toEqual([true, false]);
    await unmark('forge_jobs', queued.id);
    expect(await claimAllForgeJobs()).toEqual([other.id]);

    await tenantAction('hooli', 'activate');
    expect(await marks('forge_jobs', [orphaned.id, queued.id, later.id])).toEqual([false, false, false]);
    expect(await claimAllForgeJobs()).toEqual([orphaned.id, queued.id, later.id]);
  });

  it('has its sources kept out of the poll claim, also one made while it is suspended, and claimed in order once activated', async () => {
    const first = await connection('hooli', source('inbox'));
    await tenantAction('hooli', 'suspend');
    expect(await marks('connections', [first])).toEqual([true]);
    // A platform admin may still add a connection in a suspended tenant.
    const made = await h.request('POST', '/v1/admin/connections', { token: root, tenant: 'hooli', body: source('inbox 2') });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const second: string = made.body.id;
    const other = await connection('globex', source('drop'));
    expect(await marks('connections', [second, other])).toEqual([true, false]);
    await unmark('connections', second);
    expect(await claimAllSources()).toEqual([other]);

    await tenantAction('hooli', 'activate');
    expect(await marks('connections', [first, second])).toEqual([false, false]);
    expect(await claimAllSources()).toEqual([first, second]);
  });

  it('that is deleted has the runs left of its deliveries and forge jobs taken over again, to end at once', async () => {
    const hook = await connection('stark', destination('results'));
    const delivery = await finishedWithDelivery('stark', hook);
    expect((await claimDelivery(h.db, 'dw1', 60))!.id).toBe(delivery);
    const forgeJob = await newForgeJob('stark');
    expect((await claimForgeJob(h.db, 'fw1', 60))!.id).toBe(forgeJob.id);
    await tenantAction('stark', 'suspend');
    expect([...(await marks('deliveries', [delivery])), ...(await marks('forge_jobs', [forgeJob.id]))]).toEqual([true, true]);

    await deleteTenant('stark');
    expect([...(await marks('deliveries', [delivery])), ...(await marks('forge_jobs', [forgeJob.id]))]).toEqual([false, false]);
    // Both workers die: the claims take the runs over, and they end at once.
    await lapse('deliveries', delivery);
    await lapse('forge_jobs', forgeJob.id);
    const resent = (await claimDelivery(h.db, 'dw2', 60))!;
    expect(resent.id).toBe(delivery);
    const deliverDeps = { db: h.db, box: SecretBox.fromConfig(h.config), blobs: createBlobStore(h.config), config: h.config, guard: guardOptionsFromConfig(h.config) };
    const result = await deliver(deliverDeps, resent, await h.db.selectFrom('connections').selectAll().where('id', '=', hook).executeTakeFirst());
    expect(result).toMatchObject({ final: true, error: 'The destination connection was deleted.' });
    expect(await settleDelivery(h.db, resent, 'dw2', result, 0, result.final)).toBe(true);
    const rerun = (await claimForgeJob(h.db, 'fw2', 60))!;
    expect(rerun.id).toBe(forgeJob.id);
    expect(await forgeHeartbeat(h.db, rerun.id, 'fw2', 60)).toEqual({ held: true, abortRequested: true });
    expect(await settleForgeJob(h.db, rerun, 'fw2', 'failed', 'stopped')).toBe(true);
    expect(await claimDelivery(h.db, 'dw3', 60)).toBeNull();
    expect(await claimForgeJob(h.db, 'fw3', 60)).toBeNull();
  });
});

describe('deleting a tenant', () => {
  it('ends its work in the transaction that deletes it, and leaves another tenant’s alone', async () => {
    const hook = await connection('acme', { name: 'results', protocol: 'local', direction: 'destination', config: { path: 'results' }, credentials: {} });
    const inbox = { name: 'inbox', protocol: 'local', direction: 'source', config: { path: 'inbox', poll_seconds: 3600, settle_seconds: 0, processing_mode: 'canonical' }, credentials: {} };
    const acmeSource = await connection('acme', inbox);
    const globexSource = await connection('globex', inbox);

    // A finished job whose delivery is being sent at the moment of the deletion.
    const sent = await submit('acme', FILES.multipage, { destination_connection_id: hook });
    const sentRun = (await claimJob(h.db, 'w', 60))!;
    expect(sentRun.id).toBe(sent);
    expect(await settleRun(h.db, sentRun, 'w', { status: 'completed', result: {} })).toBe('settled');
    const sending = (await claimDelivery(h.db, 'dw', 60))!;
    expect(sending).toMatchObject({ job_id: sent, status: 'delivering' });
    // A job in review (its result owed to the destination: a pending delivery).
    const reviewed = await submit('acme', FILES.invoice, { destination_connection_id: hook });
    const reviewedRun = (await claimJob(h.db, 'w', 60))!;
    expect(reviewedRun.id).toBe(reviewed);
    expect(await settleRun(h.db, reviewedRun, 'w', { status: 'needs_review', result: { extraction: { data: {} } }, review_reasons: ['warn_count'] })).toBe('settled');
    expect((await h.db.selectFrom('deliveries').select('status').where('job_id', '=', reviewed).execute()).map((d) => d.status)).toEqual(['pending']);
    // A batch of two, one of them running.
    const batch = await uploadBatch(h, admins.acme!, [FILES.invoice, FILES.bol], { processing_mode: 'canonical' });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const batchId: string = batch.body.batch_id;
    const running = (await claimJob(h.db, 'w', 60))!;
    expect(running.batch_id).toBe(batchId);
    const [waiting] = (await h.db.selectFrom('jobs').select('id').where('batch_id', '=', batchId).where('status', '=', 'queued').execute()).map((r) => r.id);
    // A queued job whose result is owed to the destination.
    const queued = await submit('acme', FILES.bol, { destination_connection_id: hook });
    // Forge jobs: one running, one whose worker is gone (lease lapsed), one queued.
    const forge = (id: string) => insertForgeJob(h.db, 'acme', { id, sample_job_ids: [reviewed], hint: null, expected_outputs: null, endpoint_id: null, limits: { max_iterations: 3, max_dollars: 1, max_wall_seconds: 60 }, created_by: null });
    const forgeRunning = await forge(newId('fgj'));
    expect((await claimForgeJob(h.db, 'fw', 60))!.id).toBe(forgeRunning.id);
    const forgeLapsed = await forge(newId('fgj'));
    expect((await claimForgeJob(h.db, 'fw2', 60))!.id).toBe(forgeLapsed.id);
    await h.db.updateTable('forge_jobs').set({ lease_expires_at: sql`now() - interval '1 minute'` }).where('id', '=', forgeLapsed.id).execute();
    const forgeQueued = await forge(newId('fgj'));
    // Another tenant's waiting job.
    const globexJob = await submit('globex', FILES.bol);

    const listener = new pg.Client({ connectionString: h.databaseUrl });
    await listener.connect();
    const cancelNotices: string[] = [];
    listener.on('notification', (n) => n.payload && cancelNotices.push(n.payload));
    await listener.query(`LISTEN ${CANCEL_CHANNEL}`);
    try {
      await deleteTenant('acme');
      await waitFor('the running job’s cancel notice', async () => cancelNotices.includes(running.id));
    } finally {
      await listener.end();
    }

    // Jobs: queued ones cancelled, the running one asked to stop, the one in review kept.
    for (const id of [queued, waiting!]) {
      expect(await job(id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', failure_message: TENANT_DELETED_JOB });
      const events = await h.db.selectFrom('job_events').select(['kind', 'from_status', 'to_status', 'actor']).where('job_id', '=', id).orderBy('id').execute();
      expect(events.at(-1)).toEqual({ kind: 'cancelled', from_status: 'queued', to_status: 'failed', actor: rootId });
    }
    expect(await job(running.id)).toMatchObject({ status: 'processing', cancel_requested: true });
    const runningEvents = await h.db.selectFrom('job_events').select(['kind', 'actor']).where('job_id', '=', running.id).orderBy('id').execute();
    expect(runningEvents.at(-1)).toEqual({ kind: 'cancel_requested', actor: rootId });
    expect((await job(reviewed)).status).toBe('needs_review');

    // The batch: one job ended, one still running; cancelled once that one settles.
    const batchRow = () => h.db.selectFrom('batches').select(['status', 'counts', 'cancel_requested']).where('id', '=', batchId).executeTakeFirstOrThrow();
    expect(await batchRow()).toMatchObject({ status: 'processing', cancel_requested: true, counts: { total: 2, queued: 0, processing: 1, failed: 1 } });
    expect(await settleRun(h.db, running, 'w', { status: 'completed', result: {} })).toBe('cancelled');
    expect(await job(running.id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', failure_message: TENANT_DELETED_JOB });
    expect(await batchRow()).toMatchObject({ status: 'cancelled', counts: { total: 2, queued: 0, processing: 0, completed: 0, failed: 2 } });

    // The open review closed, as a deleted job's is.
    const review = await h.db.selectFrom('reviews').selectAll().where('job_id', '=', reviewed).executeTakeFirstOrThrow();
    expect(review).toMatchObject({ status: 'closed_by_delete', resolution: 'closed_by_delete', resolved_by: rootId });

    // Forge: queued and orphaned runs aborted, the running one told to stop at its checkpoint.
    const forgeRow = (id: string) => h.db.selectFrom('forge_jobs').select(['status', 'failure_message', 'abort_requested']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await forgeRow(forgeQueued.id)).toMatchObject({ status: 'aborted', failure_message: TENANT_DELETED_FORGE });
    expect(await forgeRow(forgeLapsed.id)).toMatchObject({ status: 'aborted', failure_message: TENANT_DELETED_FORGE });
    expect(await forgeRow(forgeRunning.id)).toMatchObject({ status: 'running', abort_requested: true });
    expect(await forgeHeartbeat(h.db, forgeRunning.id, 'fw', 60)).toEqual({ held: true, abortRequested: true });
    // Its worker dies before that checkpoint: another worker takes the run over and aborts it.
    await h.db.updateTable('forge_jobs').set({ lease_expires_at: sql`now() - interval '1 minute'` }).where('id', '=', forgeRunning.id).execute();
    const takenOver = (await claimForgeJob(h.db, 'fw3', 60))!;
    expect(takenOver.id).toBe(forgeRunning.id);
    expect(await forgeHeartbeat(h.db, takenOver.id, 'fw3', 60)).toEqual({ held: true, abortRequested: true });
    expect(await settleForgeJob(h.db, takenOver, 'fw3', 'failed', 'stopped')).toBe(true);
    expect(await forgeRow(forgeRunning.id)).toMatchObject({ status: 'aborted' });

    // Connections deleted: the source is no longer polled, the other tenant's is.
    const connections = await h.db.selectFrom('connections').select(['id', 'deleted_at']).where('tenant_id', '=', 'acme').execute();
    expect(connections.length).toBe(2);
    expect(connections.every((c) => c.deleted_at !== null)).toBe(true);
    await h.db.updateTable('connections').set({ next_poll_at: sql`now() - interval '1 minute'` }).where('id', 'in', [acmeSource, globexSource]).execute();
    expect((await claimDueSource(h.db, 'poller-1', 60))?.id).toBe(globexSource);
    expect(await claimDueSource(h.db, 'poller-2', 60)).toBeNull();

    // Deliveries: the one pending before and the one the cancellation owed the destination, both
    // failed; the one being sent left to its worker.
    const deliveries = await h.db.selectFrom('deliveries').select(['job_id', 'event', 'status', 'last_error']).where('tenant_id', '=', 'acme').orderBy('id').execute();
    expect(deliveries).toEqual([
      { job_id: sent, event: 'job.completed', status: 'delivering', last_error: null },
      { job_id: reviewed, event: 'job.needs_review', status: 'failed', last_error: TENANT_DELETED_DELIVERY },
      { job_id: queued, event: 'job.failed', status: 'failed', last_error: TENANT_DELETED_DELIVERY },
    ]);
    // That send fails and is to be retried: the retry is taken at once and fails for good.
    const retryIn0 = { outcome: 'retry' as const, statusCode: null, latencyMs: 1, excerpt: null, error: 'The store refused the write.' };
    expect(await settleDelivery(h.db, sending, 'dw', retryIn0, 0)).toBe(true);
    const retry = (await claimDelivery(h.db, 'dw2', 60))!;
    expect(retry.id).toBe(sending.id);
    const deliverDeps = { db: h.db, box: SecretBox.fromConfig(h.config), blobs: createBlobStore(h.config), config: h.config, guard: guardOptionsFromConfig(h.config) };
    const connectionRow = await h.db.selectFrom('connections').selectAll().where('id', '=', hook).executeTakeFirst();
    const result = await deliver(deliverDeps, retry, connectionRow);
    expect(result).toMatchObject({ final: true, error: 'The destination connection was deleted.' });
    expect(await settleDelivery(h.db, retry, 'dw2', result, 0, result.final)).toBe(true);
    expect(await h.db.selectFrom('deliveries').select('status').where('id', '=', sending.id).executeTakeFirstOrThrow()).toEqual({ status: 'failed' });

    // Nothing of acme is left for a worker; globex's job is taken as before.
    expect(await h.db.selectFrom('jobs').select('id').where('tenant_id', '=', 'acme').where('status', '=', 'queued').execute()).toEqual([]);
    expect(await claimAll()).toEqual([globexJob]);

    // The audit entry says what the deletion ended.
    const audit = await waitFor('the audit entry', () => h.db.selectFrom('audit_log').select('details').where('action', '=', 'platform.tenants.delete').where('tenant_id', '=', 'acme').executeTakeFirst());
    expect(audit.details).toMatchObject({ ended: { connections: 2, jobs_cancelled: 2, jobs_cancel_requested: 1, batches: 1, reviews: 1, forge_jobs: 3, deliveries: 2 } });
  });

  it('ends a job that was running saying the tenant was deleted, whether its worker stops it or is gone; a cancel still says it was asked for', async () => {
    const [stopped, lost, asked] = [await submit('wayne', FILES.invoice), await submit('wayne', FILES.bol), await submit('globex', FILES.invoice)];
    const runs = [(await claimJob(h.db, 'w', 60))!, (await claimJob(h.db, 'w2', 60))!, (await claimJob(h.db, 'w3', 60))!];
    expect(runs.map((r) => r.id)).toEqual([stopped, lost, asked]);
    const cancel = await h.request('POST', `/v1/documents/${asked}/cancel`, { token: admins.globex });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    await deleteTenant('wayne');
    // Their workers hear the cancels and stop the runs (run-job.ts).
    for (const run of [runs[0]!, runs[2]!]) {
      expect(await settleRun(h.db, run, run.lease_owner!, { status: 'failed', result: null, failure_code: 'cancelled', failure_message: CANCELLED_MESSAGE })).toBe('cancelled');
    }
    // The other run's worker is gone: recovery ends it.
    await h.db.updateTable('jobs').set({ lease_expires_at: sql`now() - interval '1 minute'` }).where('id', '=', lost).execute();
    expect((await recoverStale(h.db, { tenantId: 'wayne' }))?.job_ids).toEqual([lost]);
    for (const id of [stopped, lost]) expect(await job(id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', failure_message: TENANT_DELETED_JOB });
    expect(await job(asked)).toMatchObject({ status: 'failed', failure_code: 'cancelled', failure_message: CANCELLED_MESSAGE });
  });

  it('stops a source poll that was running: it makes no job after the deletion', async () => {
    const id = await connection('umbrella', { name: 'inbox', protocol: 'local', direction: 'source', config: { path: 'inbox', poll_seconds: 3600, settle_seconds: 0, processing_mode: 'canonical' }, credentials: {} });
    fs.mkdirSync(path.join(localRoot, 'umbrella/inbox'), { recursive: true });
    fs.copyFileSync(FILES.invoice, path.join(localRoot, 'umbrella/inbox/invoice.pdf'));
    // The connection as the poller claimed it, before the deletion.
    const claimed = await h.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await deleteTenant('umbrella');
    const deps = { db: h.db, box: SecretBox.fromConfig(h.config), blobs: createBlobStore(h.config), config: h.config, guard: guardOptionsFromConfig(h.config), log: pino({ level: 'silent' }) };
    const report = await pollSource(deps, claimed);
    expect(report.created).toEqual([]);
    expect(await h.db.selectFrom('jobs').select('id').where('tenant_id', '=', 'umbrella').execute()).toEqual([]);
    expect(await h.db.selectFrom('source_files').select('id').where('connection_id', '=', id).execute()).toEqual([]);
  });
});
