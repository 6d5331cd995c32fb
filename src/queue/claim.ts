// Claiming a job: ONE statement, safe with any number of workers in any number of processes
// (architecture.md, "The queue is the jobs table"). SKIP LOCKED lets concurrent claimers pass over
// a row another claimer is taking instead of waiting on it; the outer UPDATE makes the claim and
// the lease one atomic change.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Job } from '../db/documents-schema.js';
import { recordEvent } from '../domain/documents/jobs.repository.js';
import { refreshBatch } from '../domain/batches/batches.repository.js';

export async function claimJob(db: Db, workerId: string, leaseSeconds: number): Promise<Job | null> {
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql<Job>`
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
      RETURNING *`.execute(tx);
    const job = rows[0];
    if (!job) return null;
    await recordEvent(tx, { tenantId: job.tenant_id, jobId: job.id, kind: 'claimed', from: 'queued', to: 'processing', attempt: job.attempts, worker: workerId });
    if (job.batch_id) await refreshBatch(tx, job.tenant_id, job.batch_id);
    return job;
  });
}
