// Claiming jobs: ONE statement, safe with any number of workers in any number of processes
// (architecture.md, "The queue is the jobs table"). SKIP LOCKED lets concurrent claimers pass over
// rows another claimer is taking instead of waiting on them; the UPDATE makes the claim and the
// lease one atomic change, and the same statement records the `claimed` events and moves the jobs
// from their batch's `queued` count to `processing` (domain/batches: a batch with a job running is
// `processing`), so a claim costs one round trip. Its commit does not wait for the WAL flush
// (db/no-flush-wait.ts): a claim lost in a database crash only returns its jobs to the queue.
// The claim counts an attempt, but the run starts only when a pipeline thread takes the job
// (lease.ts startRun sets started_at): a job claimed ahead, or waiting for a thread, whose process
// dies has not run, and recovery gives its attempt back (recover.ts).
// A suspended or deleted tenant's jobs wait: the jobs_claim index leaves out the queued jobs marked
// tenant_paused (migration 0017), so their backlog costs a claim nothing, and `tenant_id NOT IN`
// the paused tenants passes over the few that entered the queue unmarked (paused-tenants.ts).
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Job } from '../db/documents-schema.js';
import { noFlushWait } from '../db/no-flush-wait.js';
import { executePrepared } from '../db/prepared-statements.js';
import { pausedTenantIds } from '../domain/tenants/paused-tenants.js';

/**
 * Claims up to `max` jobs, in queue order, but only one unless at least `deepAt` jobs are due:
 * a process takes several at once only when there are plenty left for the others.
 */
export async function claimJobs(db: Db, workerId: string, leaseSeconds: number, max = 1, deepAt = 2 * max): Promise<Job[]> {
  const limit =
    max <= 1
      ? sql`1`
      : sql`(SELECT CASE WHEN count(*) >= ${deepAt}::int THEN ${max}::int ELSE 1 END
               FROM (SELECT 1 FROM jobs WHERE status = 'queued' AND NOT tenant_paused AND run_after <= now() AND tenant_id NOT IN ${pausedTenantIds} LIMIT ${deepAt}::int) due)`;
  const { rows } = await executePrepared(
    db,
    sql<Job>`
    WITH picked AS MATERIALIZED (
      SELECT id FROM jobs
       WHERE status = 'queued' AND NOT tenant_paused AND run_after <= now()
         AND tenant_id NOT IN ${pausedTenantIds}
       ORDER BY priority, created_at, id
       FOR UPDATE SKIP LOCKED
       LIMIT ${limit}),
    claimed AS (
      UPDATE jobs
         SET status = 'processing',
             lease_owner = ${workerId},
             lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
             heartbeat_at = now(),
             attempts = attempts + 1,
             started_at = NULL,
             pages_processed = 0,
             updated_at = now()
       -- An array, not IN (SELECT …): the planner guesses 50 picked rows for a LIMIT it cannot
       -- see, and below about 9,000 jobs it then read the whole table for a hash join.
       WHERE id = ANY (ARRAY(SELECT id FROM picked))
         AND ${noFlushWait}
      RETURNING *),
    event AS (
      INSERT INTO job_events (tenant_id, job_id, kind, from_status, to_status, attempt, worker)
      SELECT tenant_id, id, 'claimed', 'queued', 'processing', attempts, ${workerId} FROM claimed),
    per_batch AS (
      SELECT batch_id, tenant_id, count(*)::int AS n FROM claimed
       WHERE batch_id IS NOT NULL AND deleted_at IS NULL GROUP BY batch_id, tenant_id),
    batch AS (
      UPDATE batches b
         SET counts = b.counts || jsonb_build_object('queued', (b.counts->>'queued')::int - c.n, 'processing', (b.counts->>'processing')::int + c.n),
             status = 'processing',
             finished_at = NULL,
             updated_at = now()
        FROM per_batch c
       WHERE b.id = c.batch_id AND b.tenant_id = c.tenant_id AND b.counts ? 'total')
    SELECT * FROM claimed ORDER BY priority, created_at, id`,
  );
  return rows;
}

export async function claimJob(db: Db, workerId: string, leaseSeconds: number): Promise<Job | null> {
  return (await claimJobs(db, workerId, leaseSeconds, 1))[0] ?? null;
}
