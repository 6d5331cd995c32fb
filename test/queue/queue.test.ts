// The queue on a real PostgreSQL: the one-statement claim under concurrency, leases and the
// lease-holder rule, recovery, release, NOTIFY, and purge.
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/documents.js';
import { newId } from '../../src/lib/ids.js';
import { claimJob } from '../../src/queue/claim.js';
import { findBatch, insertBatch, refreshBatch } from '../../src/domain/batches/batches.repository.js';
import { heartbeat, release, settle } from '../../src/queue/lease.js';
import { recoverStale } from '../../src/queue/recover.js';
import { notifyQueued, queueListener } from '../../src/queue/notify.js';
import { purge } from '../../src/queue/maintenance.js';
import { createBlobStore } from '../../src/storage/index.js';
import { registerBlob, storeBytes } from '../../src/storage/blob-registry.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const SHA = 'a'.repeat(64);

async function queued(values: Record<string, unknown> = {}): Promise<string> {
  const id = newId('job');
  await h.db
    .insertInto('jobs')
    .values({ id, tenant_id: DEFAULT_TENANT_ID, status: 'queued', processing_mode: 'canonical', size_bytes: 1, sha256: SHA, metadata: '{}', ...values } as never)
    .execute();
  return id;
}

async function drain(): Promise<void> {
  await h.db.updateTable('jobs').set({ status: 'failed', finished_at: new Date(), lease_owner: null, lease_expires_at: null }).where('status', 'in', ['queued', 'processing']).execute();
}

const row = (id: string) => h.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('claim', () => {
  it('hands every job to exactly one of many concurrent claimers', async () => {
    await drain();
    const ids = await Promise.all(Array.from({ length: 20 }, () => queued()));
    const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => claimJob(h.db, `w${i}`, 30)));
    const claimed = claims.filter((c) => c !== null).map((c) => c!.id);
    expect(claimed.sort()).toEqual([...ids].sort());
    const rows = await h.db.selectFrom('jobs').select(['status', 'attempts', 'lease_owner', 'lease_expires_at']).where('id', 'in', ids).execute();
    expect(rows.every((r) => r.status === 'processing' && r.attempts === 1 && r.lease_owner && r.lease_expires_at)).toBe(true);
  });

  it('takes the lowest priority number first, oldest first, and skips jobs not due yet', async () => {
    await drain();
    const later = await queued({ run_after: new Date(Date.now() + 60_000) });
    const batchJob = await queued({ priority: 5 });
    const single = await queued({ priority: 0 });
    expect((await claimJob(h.db, 'w', 30))!.id).toBe(single);
    expect((await claimJob(h.db, 'w', 30))!.id).toBe(batchJob);
    expect(await claimJob(h.db, 'w', 30)).toBeNull();
    expect((await row(later)).status).toBe('queued');
  });
});

describe('batch counts on the hot path', () => {
  async function batchOf(n: number): Promise<{ batchId: string; ids: string[] }> {
    const batchId = newId('bat');
    const ids = await h.db.transaction().execute(async (tx) => {
      await insertBatch(tx, { id: batchId, tenant_id: DEFAULT_TENANT_ID, name: null, template_id: null, processing_mode: 'canonical', page_range: null, page_cap_policy: 'fail', destination_connection_id: null, destination_config: null, created_by: null });
      const jobIds = Array.from({ length: n }, () => newId('job'));
      await tx
        .insertInto('jobs')
        .values(jobIds.map((id) => ({ id, tenant_id: DEFAULT_TENANT_ID, batch_id: batchId, status: 'queued', processing_mode: 'canonical', size_bytes: 1, sha256: SHA, metadata: '{}' })) as never)
        .execute();
      await refreshBatch(tx, DEFAULT_TENANT_ID, batchId);
      return jobIds;
    });
    return { batchId, ids };
  }

  /** What a full recount says, without storing it. */
  async function recount(batchId: string) {
    const rows = await h.db.selectFrom('jobs').select(['status', sql<number>`count(*)::int`.as('n')]).where('batch_id', '=', batchId).where('deleted_at', 'is', null).groupBy('status').execute();
    const counts: Record<string, number> = { total: 0, queued: 0, processing: 0, completed: 0, needs_review: 0, rejected: 0, failed: 0 };
    for (const r of rows) (counts[r.status] += r.n), (counts.total += r.n);
    return counts;
  }

  it('claims, settles and releases by many workers at once keep the counts equal to a recount', async () => {
    await drain();
    const { batchId, ids } = await batchOf(12);
    expect(await findBatch(h.db, DEFAULT_TENANT_ID, batchId)).toMatchObject({ status: 'queued', counts: await recount(batchId) });
    const claims = (await Promise.all(Array.from({ length: 16 }, (_, i) => claimJob(h.db, `w${i}`, 30)))).filter((c) => c !== null);
    expect(claims.map((c) => c!.id).sort()).toEqual([...ids].sort());
    expect(await findBatch(h.db, DEFAULT_TENANT_ID, batchId)).toMatchObject({ status: 'processing', counts: { queued: 0, processing: 12 } });
    await Promise.all(
      claims.map((job, i) =>
        i < 3 ? release(h.db, job!, job!.lease_owner!, 0, 'test') : settle(h.db, job!, job!.lease_owner!, { status: i % 2 ? 'completed' : 'failed', result: null }),
      ),
    );
    expect(await findBatch(h.db, DEFAULT_TENANT_ID, batchId)).toMatchObject({ status: 'processing', counts: { ...(await recount(batchId)), queued: 3 } });
    const again = (await Promise.all(Array.from({ length: 4 }, (_, i) => claimJob(h.db, `v${i}`, 30)))).filter((c) => c !== null);
    expect(again).toHaveLength(3);
    await Promise.all(again.map((job) => settle(h.db, job!, job!.lease_owner!, { status: 'completed', result: null })));
    const done = await findBatch(h.db, DEFAULT_TENANT_ID, batchId);
    expect(done).toMatchObject({ status: 'completed_with_errors', counts: { ...(await recount(batchId)), completed: 8, failed: 4 } });
    expect(done!.finished_at).not.toBeNull();
  });

  it('leaves out a job deleted while it ran when that job settles', async () => {
    await drain();
    const { batchId, ids } = await batchOf(2);
    const first = (await claimJob(h.db, 'w', 30))!;
    const second = (await claimJob(h.db, 'w', 30))!;
    await h.db.transaction().execute(async (tx) => {
      await tx.updateTable('jobs').set({ deleted_at: new Date(), cancel_requested: true }).where('id', '=', first.id).execute();
      await refreshBatch(tx, DEFAULT_TENANT_ID, batchId);
    });
    await settle(h.db, first, 'w', { status: 'failed', result: null, failure_code: 'cancelled' });
    await settle(h.db, second, 'w', { status: 'completed', result: null });
    expect(ids).toContain(second.id);
    expect(await findBatch(h.db, DEFAULT_TENANT_ID, batchId)).toMatchObject({ status: 'completed', counts: { ...(await recount(batchId)), total: 1, completed: 1, failed: 0 } });
  });
});

describe('leases', () => {
  it('lets only the lease holder heartbeat and settle', async () => {
    await drain();
    await queued();
    const job = (await claimJob(h.db, 'holder', 30))!;
    expect(await heartbeat(h.db, job.id, 'intruder', 30, 3)).toEqual({ held: false, cancelRequested: false });
    expect(await settle(h.db, job, 'intruder', { status: 'completed', result: {} })).toBe(false);
    await h.db.updateTable('jobs').set({ cancel_requested: true }).where('id', '=', job.id).execute();
    expect(await heartbeat(h.db, job.id, 'holder', 30, 3)).toEqual({ held: true, cancelRequested: true });
    expect((await row(job.id)).pages_processed).toBe(3);
    // The cancel asked for before the settle wins over the run's outcome (test/queue/settle-cancel.test.ts).
    expect(await settle(h.db, job, 'holder', { status: 'completed', result: { ok: true } })).toBe(true);
    expect(await settle(h.db, job, 'holder', { status: 'failed', result: null, failure_code: 'internal_error' })).toBe(false);
    expect(await row(job.id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', result: null, lease_owner: null, finished_at: expect.any(Date) });
    const events = await h.db.selectFrom('job_events').select(['kind', 'worker']).where('job_id', '=', job.id).orderBy('id').execute();
    expect(events).toEqual([
      { kind: 'claimed', worker: 'holder' },
      { kind: 'failed', worker: 'holder' },
    ]);
  });

  it('replaces the previous run\'s artifacts on settle and keeps the source; a lost lease writes none', async () => {
    await drain();
    const id = await queued();
    const art = (kind: string, page: number | null, sha: string | null) => ({ id: newId('art'), tenant_id: DEFAULT_TENANT_ID, job_id: id, kind, page_number: page, filename: `${kind}.bin`, content_type: 'application/octet-stream', size_bytes: sha ? 1 : null, sha256: sha, render: sha ? null : JSON.stringify({ dpi: 100, quarter_turns: 0, width_pt: 612 }) });
    await h.db.insertInto('artifacts').values([art('source', null, SHA), art('markdown', null, 'b'.repeat(64))] as never).execute();
    const job = (await claimJob(h.db, 'w', 30))!;
    const run = [
      { kind: 'canonical_json' as const, page_number: null, filename: 'doc.canonical.json', content_type: 'application/json', size_bytes: 10, sha256: 'c'.repeat(64) },
      { kind: 'page_image' as const, page_number: 1, filename: 'doc.page-0001.png', content_type: 'image/png', size_bytes: null, sha256: null, render: { dpi: 100, quarter_turns: 1, width_pt: 612 } },
    ];
    expect(await settle(h.db, job, 'intruder', { status: 'completed', result: {}, artifacts: run })).toBe(false);
    expect(await settle(h.db, job, 'w', { status: 'completed', result: {}, artifacts: run })).toBe(true);
    const rows = await h.db.selectFrom('artifacts').select(['kind', 'page_number', 'sha256', 'render']).where('job_id', '=', id).orderBy('kind').execute();
    expect(rows).toEqual([
      { kind: 'canonical_json', page_number: null, sha256: 'c'.repeat(64), render: null },
      { kind: 'page_image', page_number: 1, sha256: null, render: { dpi: 100, quarter_turns: 1, width_pt: 612 } },
      { kind: 'source', page_number: null, sha256: SHA, render: null },
    ]);
    const events = await h.db.selectFrom('job_events').select(['kind', 'to_status', 'attempt']).where('job_id', '=', id).orderBy('id').execute();
    expect(events.at(-1)).toEqual({ kind: 'completed', to_status: 'completed', attempt: 1 });
    expect(events).toHaveLength(2);
  });

  it('releases a job for a later retry, optionally without counting the attempt', async () => {
    await drain();
    await queued();
    const job = (await claimJob(h.db, 'w', 30))!;
    expect(await release(h.db, job, 'w', 60, 'transient')).toBe(true);
    const after = await row(job.id);
    expect(after).toMatchObject({ status: 'queued', attempts: 1, lease_owner: null });
    expect(after.run_after.getTime()).toBeGreaterThan(Date.now() + 30_000);
    await h.db.updateTable('jobs').set({ run_after: new Date() }).where('id', '=', job.id).execute();
    const again = (await claimJob(h.db, 'w', 30))!;
    expect(again.attempts).toBe(2);
    await release(h.db, again, 'w', 0, 'shutdown', false);
    expect((await row(job.id)).attempts).toBe(1);
  });
});

describe('stale recovery', () => {
  it('re-queues expired leases, fails them with worker_lost after max_attempts, and honours a pending cancel', async () => {
    await drain();
    const expired = new Date(Date.now() - 1000);
    const lease = { status: 'processing', lease_owner: 'dead', lease_expires_at: expired, started_at: new Date() };
    const again = await queued({ ...lease, attempts: 1, max_attempts: 3 });
    const lost = await queued({ ...lease, attempts: 3, max_attempts: 3 });
    const cancelled = await queued({ ...lease, attempts: 1, cancel_requested: true });
    const alive = await queued({ ...lease, lease_expires_at: new Date(Date.now() + 60_000), attempts: 1 });
    const report = await recoverStale(h.db, { lock: true });
    expect(report).toMatchObject({ recovered: 3, requeued: 1, failed: 2 });
    expect(await row(again)).toMatchObject({ status: 'queued', attempts: 1, lease_owner: null, finished_at: null });
    expect(await row(lost)).toMatchObject({ status: 'failed', failure_code: 'worker_lost', finished_at: expect.any(Date) });
    expect(await row(cancelled)).toMatchObject({ status: 'failed', failure_code: 'cancelled' });
    expect((await row(alive)).status).toBe('processing');
    const event = await h.db.selectFrom('job_events').selectAll().where('job_id', '=', again).executeTakeFirstOrThrow();
    expect(event).toMatchObject({ kind: 'recovered', to_status: 'queued', detail: { lost_worker: 'dead' } });
  });
});

describe('LISTEN/NOTIFY', () => {
  it('wakes a listener when a job is queued, on commit', async () => {
    let wakes = 0;
    const cancels: string[] = [];
    const url = await currentUrl();
    const listener = queueListener(url, { onWake: () => wakes++, onCancel: (id: string) => cancels.push(id) }, pino({ level: 'silent' }));
    await listener.start();
    const before = wakes;
    await h.db.transaction().execute(async (tx) => {
      await notifyQueued(tx);
      await sql`SELECT pg_notify('quire_job_cancel', 'job_x')`.execute(tx);
    });
    await waitFor('the notifications', async () => wakes > before && cancels.includes('job_x'), 5_000, 10);
    await listener.stop();
  });
});

async function currentUrl(): Promise<string> {
  const { rows } = await sql<{ db: string }>`SELECT current_database() AS db`.execute(h.db);
  const { inject } = await import('vitest');
  const u = new URL(inject('serverUrl'));
  u.pathname = `/${rows[0]!.db}`;
  return u.toString();
}

describe('purge', () => {
  it('removes expired idempotency keys, jobs deleted over 30 days ago, then blobs nothing references', async () => {
    const store = createBlobStore(h.config);
    const kept = await storeBytes(h.db, store, Buffer.from('referenced by a job'));
    const orphan = await storeBytes(h.db, store, Buffer.from('referenced by nothing'));
    const fresh = await storeBytes(h.db, store, Buffer.from('just uploaded, no job yet'));
    const purgedJobBlob = await storeBytes(h.db, store, Buffer.from('job deleted long ago'));
    await queued({ sha256: kept.sha256, status: 'failed', finished_at: new Date() });
    const old = await queued({ sha256: purgedJobBlob.sha256, status: 'failed', finished_at: new Date(), deleted_at: sql`now() - interval '31 days'` });
    const recent = await queued({ status: 'failed', finished_at: new Date(), deleted_at: sql`now() - interval '29 days'` });
    await h.db.insertInto('idempotency_keys').values([
      { tenant_id: DEFAULT_TENANT_ID, scope: 'documents', key: 'old', request_hash: 'x', resource_id: old, created_at: sql`now() - interval '25 hours'` as never },
      { tenant_id: DEFAULT_TENANT_ID, scope: 'documents', key: 'new', request_hash: 'x', resource_id: recent },
    ]).execute();
    // Everything but `fresh` is past the grace period.
    await h.db.updateTable('blobs').set({ touched_at: sql`now() - interval '2 hours'` }).where('sha256', '!=', fresh.sha256).execute();

    const report = await purge(h.db, store);
    expect(report).toMatchObject({ idempotency_keys: 1, jobs: 1, blobs: 2 });
    expect(await store.exists(kept.sha256)).toBe(true);
    expect(await store.exists(fresh.sha256)).toBe(true);
    expect(await store.exists(orphan.sha256)).toBe(false);
    expect(await store.exists(purgedJobBlob.sha256)).toBe(false);
    expect(await h.db.selectFrom('jobs').select('id').where('id', 'in', [old, recent]).execute()).toEqual([{ id: recent }]);
    const left = await h.db.selectFrom('blobs').select('sha256').where('sha256', 'in', [kept.sha256, orphan.sha256, fresh.sha256]).execute();
    expect(left.map((b) => b.sha256).sort()).toEqual([kept.sha256, fresh.sha256].sort());
    // An upload of purged content registers it again before writing it.
    await registerBlob(h.db, orphan.sha256, 21);
    expect((await h.db.selectFrom('blobs').select('sha256').where('sha256', '=', orphan.sha256).execute()).length).toBe(1);
  });
});
