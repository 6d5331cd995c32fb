// A cancel or a delete that finds a job processing answers at once (200 processing, or 204) and
// asks the worker to stop. A run already past its last checkpoint settles anyway: that settle
// must honour the request (the job ends failed/cancelled, decisions.md "cancel"), and a deleted
// job must never get an open review (or a review that could complete it while nobody sees it).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockJob, requestCancel, setDeleted } from '../../src/domain/documents/jobs.repository.js';
import { newId } from '../../src/lib/ids.js';
import { claimJob } from '../../src/queue/claim.js';
import { release, settle } from '../../src/queue/lease.js';
import { waitFor } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;
beforeAll(async () => {
  h = await startHarness();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

/** A job claimed by worker `w`, as a run has it. */
async function claimed() {
  const id = newId('job');
  await h.db
    .insertInto('jobs')
    .values({ id, tenant_id: DEFAULT_TENANT_ID, status: 'queued', processing_mode: 'extraction', size_bytes: 1, sha256: 'a'.repeat(64), metadata: '{}' } as never)
    .execute();
  const job = (await claimJob(h.db, 'w', 30))!;
  expect(job.id).toBe(id);
  return job;
}

const NEEDS_REVIEW = { status: 'needs_review' as const, result: { extraction: { data: {} } }, review_reasons: ['warn_count'] };
const jobRow = (id: string) => h.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const reviewsOf = (id: string) => h.db.selectFrom('reviews').selectAll().where('job_id', '=', id).execute();
const eventsOf = async (id: string) =>
  (await h.db.selectFrom('job_events').select(['kind', 'to_status']).where('job_id', '=', id).orderBy('id').execute()).map((e) => `${e.kind}:${e.to_status}`);

describe('a settle after a cancel or a delete', () => {
  it('cancel answered 200 processing: the run settling completed ends the job cancelled instead', async () => {
    const job = await claimed();
    const res = await h.request('POST', `/v1/documents/${job.id}/cancel`, { token: member });
    expect(res.body).toMatchObject({ status: 'processing' });
    expect(await settle(h.db, job, 'w', { status: 'completed', result: { ok: true } })).toBe(true);
    expect(await jobRow(job.id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', result: null, lease_owner: null, finished_at: expect.any(Date) });
    expect(await eventsOf(job.id)).toEqual(['claimed:processing', 'cancel_requested:processing', 'failed:failed']);
  });

  it('a delete committed while the settle waits for the job: no review opens, the job ends cancelled and stays hidden', async () => {
    const job = await claimed();
    let settling!: Promise<boolean>;
    // What DELETE does to a processing job (jobs.service deleteJob), held open until the settle waits on it.
    await h.db.transaction().execute(async (tx) => {
      await lockJob(tx, DEFAULT_TENANT_ID, job.id);
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
      settling = settle(h.db, job, 'w', NEEDS_REVIEW);
      await waitFor('the settle to wait for the job lock', async () => {
        const blocked = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${rows[0]!.pid}::int = ANY(pg_blocking_pids(pid))`.execute(h.db);
        return blocked.rows[0]!.n > 0;
      });
      await requestCancel(tx, DEFAULT_TENANT_ID, job.id);
      await setDeleted(tx, DEFAULT_TENANT_ID, job.id, true);
    });
    expect(await settling).toBe(true);
    expect(await jobRow(job.id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', deleted_at: expect.any(Date) });
    expect(await reviewsOf(job.id)).toEqual([]);
    expect((await h.request('GET', '/v1/reviews?status=pending', { token: member })).body.items).toEqual([]);
  });

  it('through the API: DELETE of a processing job, then its run settles needs_review: nothing to review', async () => {
    const job = await claimed();
    expect((await h.request('DELETE', `/v1/documents/${job.id}`, { token: member })).status).toBe(204);
    expect(await settle(h.db, job, 'w', NEEDS_REVIEW)).toBe(true);
    expect(await jobRow(job.id)).toMatchObject({ status: 'failed', failure_code: 'cancelled' });
    expect(await reviewsOf(job.id)).toEqual([]);
    expect(await eventsOf(job.id)).toEqual(['claimed:processing', 'cancel_requested:processing', 'deleted:processing', 'failed:failed']);
  });

  it('a deleted job settling needs_review without a cancel gets its review closed_by_delete; restore opens it again', async () => {
    const job = await claimed();
    await h.db.updateTable('jobs').set({ deleted_at: new Date() }).where('id', '=', job.id).execute();
    expect(await settle(h.db, job, 'w', NEEDS_REVIEW)).toBe(true);
    expect(await reviewsOf(job.id)).toEqual([expect.objectContaining({ status: 'closed_by_delete', resolution: 'closed_by_delete', resolved_at: expect.any(Date) })]);
    expect((await h.request('POST', `/v1/documents/${job.id}/restore`, { token: member })).status).toBe(200);
    const open = (await reviewsOf(job.id)).filter((r) => r.status === 'pending');
    expect(open).toEqual([expect.objectContaining({ reasons: ['warn_count'] })]);
  });

  it('an open review of a deleted job (left by an older version) is 409 job_deleted and changes nothing', async () => {
    const job = await claimed();
    expect(await settle(h.db, job, 'w', NEEDS_REVIEW)).toBe(true);
    await h.db.updateTable('jobs').set({ deleted_at: new Date() }).where('id', '=', job.id).execute();
    const [review] = await reviewsOf(job.id);
    for (const [action, body] of [['approve', {}], ['override', { patch: { total: 2 } }], ['reprocess', {}]] as const) {
      const res = await h.request('POST', `/v1/reviews/${review!.id}/${action}`, { token: member, body });
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.code).toBe('job_deleted');
    }
    expect((await reviewsOf(job.id))[0]).toMatchObject({ status: 'pending' });
    expect(await jobRow(job.id)).toMatchObject({ status: 'needs_review' });
  });

  it('a transient failure after a cancel does not send the job back to the queue: it ends cancelled', async () => {
    const job = await claimed();
    expect((await h.request('POST', `/v1/documents/${job.id}/cancel`, { token: member })).status).toBe(200);
    expect(await release(h.db, job, 'w', 0, 'transient')).toBe(true);
    expect(await jobRow(job.id)).toMatchObject({ status: 'failed', failure_code: 'cancelled', lease_owner: null });
  });
});
