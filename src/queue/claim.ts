// Claiming a job: ONE statement, safe with any number of workers in any number of processes
// (architecture.md, "The queue is the jobs table"). SKIP LOCKED lets concurrent claimers pass over
// a row another claimer is taking instead of waiting on it; the UPDATE makes the claim and the
// lease one atomic change, and the same statement records the `claimed` event and moves the job
// from its batch's `queued` count to `processing` (domain/batches: a batch with a job running is
// `processing`), so a claim costs one round trip. Its commit does not wait for the WAL flush
// (db/no-flush-wait.ts): a claim lost in a database crash only returns its job to the queue.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { noFlushWait } from '../db/no-flush-wait.js';
import type { Job } from '../db/documents-schema.js';

export async function claimJob(db: Db, workerId: string, leaseSeconds: number): Promise<Job | null> {
  const { rows } = await sql<Job>`
    WITH claimed AS (
      UPDATE jobs
         SET status = 'processing',
             lease_owner = ${workerId},
             lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
             heartbeat_at = now(),
             attempts = attempts + 1,
             started_at = now(),
             pages_processed = 0,
             updated_at = now()
       WHERE id = (
             SELECT id FROM jobs
              WHERE status = 'queued' AND run_after <= now()
              ORDER BY priority, created_at, id
              FOR UPDATE SKIP LOCKED
              LIMIT 1)
         AND ${noFlushWait}
      RETURNING *),
    event AS (
      INSERT INTO job_events (tenant_id, job_id, kind, from_status, to_status, attempt, worker)
      SELECT tenant_id, id, 'claimed', 'queued', 'processing', attempts, ${workerId} FROM claimed),
    batch AS (
      UPDATE batches b
         SET counts = b.counts || jsonb_build_object('queued', (b.counts->>'queued')::int - 1, 'processing', (b.counts->>'processing')::int + 1),
             status = 'processing',
             finished_at = NULL,
             updated_at = now()
        FROM claimed c
       WHERE b.id = c.batch_id AND b.tenant_id = c.tenant_id AND c.deleted_at IS NULL AND b.counts ? 'total')
    SELECT * FROM claimed`.execute(db);
  return rows[0] ?? null;
}
