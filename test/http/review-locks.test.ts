// Review actions racing changes to their job. Every job change locks the job, then its reviews;
// a review action must take the same order, or the two deadlock (40P01, answered 500). Each race
// is made deterministic: the test holds the job's lock in its own transaction (as a delete or a
// reprocess does), lets the review action block, then changes the reviews and commits.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/db/database.js';
import { lockJob, requeueTerminal, setDeleted } from '../../src/domain/documents/jobs.repository.js';
import { resolveOpen } from '../../src/domain/reviews/reviews.repository.js';
import { newId } from '../../src/lib/ids.js';
import { waitFor } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;
beforeAll(async () => {
  h = await startHarness();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

/** A job settled needs_review with its pending review, straight in the database. */
async function inReview(values: Record<string, unknown> = {}): Promise<{ jobId: string; reviewId: string }> {
  const jobId = newId('job');
  const reviewId = newId('rev');
  const result = { canonical: { pages: [], text: '', markdown: '' }, extraction: { template_id: null, template_version: null, data: { total: 1 }, fields: {}, validation: [], review_reasons: ['warn_count'] } };
  await h.db
    .insertInto('jobs')
    .values({ id: jobId, tenant_id: DEFAULT_TENANT_ID, status: 'needs_review', processing_mode: 'extraction', size_bytes: 1, sha256: 'a'.repeat(64), metadata: '{}', result: JSON.stringify(result), finished_at: new Date(), ...values } as never)
    .execute();
  await h.db.insertInto('reviews').values({ id: reviewId, tenant_id: DEFAULT_TENANT_ID, job_id: jobId, reasons: ['warn_count'] }).execute();
  return { jobId, reviewId };
}

/**
 * Holds the job's row lock in a transaction of its own, starts `action`, waits until the action
 * is blocked behind that lock, then runs `change` (which updates the job's reviews, as the job
 * changes do) and commits. Answers what the action answered.
 */
async function whileJobLocked<T>(jobId: string, action: () => Promise<T>, change: (tx: Tx) => Promise<void>): Promise<T> {
  let pending!: Promise<T>;
  await h.db.transaction().execute(async (tx) => {
    await lockJob(tx, DEFAULT_TENANT_ID, jobId);
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
    pending = action();
    await waitFor('the action to wait for the job lock', async () => {
      const blocked = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${rows[0]!.pid}::int = ANY(pg_blocking_pids(pid))`.execute(h.db);
      return blocked.rows[0]!.n > 0;
    });
    await change(tx);
  });
  return pending;
}

const reviewRow = (id: string) => h.db.selectFrom('reviews').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const jobRow = (id: string) => h.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('review actions racing job changes', () => {
  for (const action of ['approve', 'override'] as const) {
    it(`${action} racing a delete: the delete wins and the ${action} is 409, never a deadlock`, async () => {
      const { jobId, reviewId } = await inReview();
      const body = action === 'override' ? { patch: { total: 2 } } : {};
      const res = await whileJobLocked(
        jobId,
        () => h.request('POST', `/v1/reviews/${reviewId}/${action}`, { token: member, body }),
        async (tx) => {
          await setDeleted(tx, DEFAULT_TENANT_ID, jobId, true);
          await resolveOpen(tx, DEFAULT_TENANT_ID, jobId, { status: 'closed_by_delete', resolvedBy: null, resolution: 'closed_by_delete', note: 'The job was deleted.' });
        },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.code).toBe('review_resolved');
      expect(await reviewRow(reviewId)).toMatchObject({ status: 'closed_by_delete' });
      expect(await jobRow(jobId)).toMatchObject({ status: 'needs_review', deleted_at: expect.any(Date) });
    });
  }

  it('a review reprocess racing the job reprocess: the job reprocess wins and the review action is 409', async () => {
    const { jobId, reviewId } = await inReview();
    const res = await whileJobLocked(
      jobId,
      () => h.request('POST', `/v1/reviews/${reviewId}/reprocess`, { token: member, body: {} }),
      async (tx) => {
        expect(await requeueTerminal(tx, DEFAULT_TENANT_ID, jobId, {})).toBeTruthy();
        await resolveOpen(tx, DEFAULT_TENANT_ID, jobId, { status: 'reprocessed', resolvedBy: null, resolution: 'superseded', note: 'The job was sent to run again.' });
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe('review_resolved');
    expect(await reviewRow(reviewId)).toMatchObject({ status: 'reprocessed', resolution: 'superseded' });
    expect(await jobRow(jobId)).toMatchObject({ status: 'queued' });
  });
});
