// Stale-lease recovery: a processing job whose lease expired belongs to a worker that died or
// stalled. It goes back to the queue, up to max_attempts; then it fails with worker_lost. Only
// runs that started count: a job claimed but never started (started_at null) has the claim's
// attempt given back, however often the process holding it died. A job
// whose cancel was requested fails as cancelled instead of running again. One statement decides
// every stale job (FOR UPDATE SKIP LOCKED: a job being settled right now is left alone), and its
// events, batch counts and the wake-up commit with it.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { refreshBatch } from '../domain/batches/batches.repository.js';
import { recordEvent } from '../domain/documents/jobs.repository.js';
import { CANCELLED_MESSAGE, cancelledMessage } from './lease.js';
import { notifyQueued } from './notify.js';

export interface RecoveryReport {
  recovered: number;
  requeued: number;
  failed: number;
  job_ids: string[];
}

/** Advisory lock key of the periodic recovery (one sweeper at a time across every process). */
export const RECOVERY_LOCK = 0x51554952_01; // "QUIR" + 1

const WORKER_LOST = 'The worker processing this job stopped responding too many times. Retry the job; if it keeps failing, the document may crash the worker: report the job id.';

export async function recoverStale(db: Db, options: { tenantId?: string; lock?: boolean } = {}): Promise<RecoveryReport | null> {
  return db.transaction().execute(async (tx) => {
    if (options.lock) {
      const { rows } = await sql<{ got: boolean }>`SELECT pg_try_advisory_xact_lock(${RECOVERY_LOCK}) AS got`.execute(tx);
      if (!rows[0]?.got) return null;
    }
    const tenantFilter = options.tenantId ? sql`AND tenant_id = ${options.tenantId}` : sql``;
    // Only a run that started (a pipeline thread took the job) can have been what killed the
    // worker; a job that was only claimed (ahead, or waiting for a thread) has its attempt back.
    const lost = sql`(j.started_at IS NOT NULL AND j.attempts >= j.max_attempts)`;
    const { rows } = await sql<{ id: string; tenant_id: string; batch_id: string | null; status: string; attempts: number; lost_worker: string | null; run_started: boolean }>`
      WITH stale AS (
        SELECT id, lease_owner AS lost_worker FROM jobs
         WHERE status = 'processing' AND lease_expires_at < now() ${tenantFilter}
         ORDER BY id
         FOR UPDATE SKIP LOCKED)
      UPDATE jobs j
         SET status = CASE WHEN j.cancel_requested OR ${lost} THEN 'failed' ELSE 'queued' END,
             failure_code = CASE WHEN j.cancel_requested THEN 'cancelled' WHEN ${lost} THEN 'worker_lost' END,
             failure_message = CASE WHEN j.cancel_requested THEN ${cancelledMessage(sql<string>`j.tenant_id`, CANCELLED_MESSAGE)} WHEN ${lost} THEN ${WORKER_LOST}::text END,
             finished_at = CASE WHEN j.cancel_requested OR ${lost} THEN now() END,
             attempts = CASE WHEN j.started_at IS NULL THEN greatest(j.attempts - 1, 0) ELSE j.attempts END,
             run_after = now(),
             lease_owner = NULL,
             lease_expires_at = NULL,
             heartbeat_at = NULL,
             updated_at = now()
        FROM stale
       WHERE j.id = stale.id
      RETURNING j.id, j.tenant_id, j.batch_id, j.status, j.attempts, stale.lost_worker, j.started_at IS NOT NULL AS run_started`.execute(tx);
    const batches = new Map<string, string>();
    for (const row of rows) {
      await recordEvent(tx, {
        tenantId: row.tenant_id,
        jobId: row.id,
        kind: 'recovered',
        from: 'processing',
        to: row.status,
        attempt: row.attempts,
        detail: { lost_worker: row.lost_worker, run_started: row.run_started },
      });
      if (row.batch_id) batches.set(row.batch_id, row.tenant_id);
    }
    for (const [batchId, tenantId] of [...batches].sort()) await refreshBatch(tx, tenantId, batchId);
    const requeued = rows.filter((r) => r.status === 'queued').length;
    if (requeued) await notifyQueued(tx);
    return { recovered: rows.length, requeued, failed: rows.length - requeued, job_ids: rows.map((r) => r.id) };
  });
}
