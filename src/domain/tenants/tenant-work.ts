// What deleting a tenant does to its work, in the transaction that deletes it. A deleted tenant can
// never be activated again, so its work is ended rather than left waiting: every state reached
// here is one the tenant's own users could have reached (a cancel, an abort, a delete), and the
// history says so.
// - Its connections are deleted: sources stop being polled. This comes first: a poll in progress
//   takes each file under a share lock on its connection (poll-source.ts), so the deletion waits
//   for a file being taken, and the jobs made meanwhile are found by the cancellations below.
// - Queued jobs fail `cancelled` at once; processing jobs get their cancel requested (and their
//   worker the cancel notice) and end `cancelled` at their next checkpoint, as a cancel does, with
//   this message rather than a cancel's (queue/lease.ts reads the tenant's deleted_at).
// - Batches still running end `cancelled` once their last job has; their counts are recounted.
// - Open reviews close `closed_by_delete`, as a deleted job's do.
// - Queued forge jobs are aborted; running ones stop at their next checkpoint (or at once, when
//   their worker is gone).
// - Deliveries waiting to go out fail, saying why. A delivery being sent right now finishes; one
//   that still follows (a retry of it, or the cancellation result of a job that was running) is
//   taken by a delivery worker and fails at once, its connection being deleted.
import { sql } from 'kysely';
import type { Tx } from '../../db/database.js';
import { OPEN_REVIEW_STATUSES } from '../../db/reviews-schema.js';
import { refreshBatch, setBatchCancelRequested } from '../batches/batches.repository.js';
import { notifyCancel } from '../../queue/notify.js';

export const TENANT_DELETED_JOB = 'Cancelled: the tenant was deleted.';
export const TENANT_DELETED_FORGE = 'Aborted: the tenant was deleted.';
export const TENANT_DELETED_DELIVERY = 'The tenant was deleted before this delivery was sent.';

export interface EndedWork {
  connections: number;
  jobs_cancelled: number;
  jobs_cancel_requested: number;
  batches: number;
  reviews: number;
  forge_jobs: number;
  deliveries: number;
}

const count = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows);

export async function endTenantWork(tx: Tx, tenantId: string, actor: string | null): Promise<EndedWork> {
  const connections = await tx
    .updateTable('connections')
    .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();

  const detail = JSON.stringify({ reason: 'tenant_deleted' });
  const cancelled = await sql<{ id: string }>`
    WITH cancelled AS (
      UPDATE jobs
         SET status = 'failed', failure_code = 'cancelled', failure_message = ${TENANT_DELETED_JOB},
             cancel_requested = true, finished_at = now(), updated_at = now()
       WHERE tenant_id = ${tenantId} AND status = 'queued'
      RETURNING id),
    event AS (
      INSERT INTO job_events (tenant_id, job_id, kind, from_status, to_status, actor, detail)
      SELECT ${tenantId}, id, 'cancelled', 'queued', 'failed', ${actor}, ${detail}::jsonb FROM cancelled)
    SELECT id FROM cancelled`.execute(tx);

  const running = await sql<{ id: string }>`
    WITH requested AS (
      UPDATE jobs SET cancel_requested = true, updated_at = now()
       WHERE tenant_id = ${tenantId} AND status = 'processing' AND NOT cancel_requested
      RETURNING id),
    event AS (
      INSERT INTO job_events (tenant_id, job_id, kind, from_status, to_status, actor, detail)
      SELECT ${tenantId}, id, 'cancel_requested', 'processing', 'processing', ${actor}, ${detail}::jsonb FROM requested)
    SELECT id FROM requested`.execute(tx);
  for (const { id } of running.rows) await notifyCancel(tx, id);

  const batches = await tx.selectFrom('batches').select('id').where('tenant_id', '=', tenantId).where('finished_at', 'is', null).orderBy('id').execute();
  for (const { id } of batches) {
    await setBatchCancelRequested(tx, tenantId, id, true);
    await refreshBatch(tx, tenantId, id);
  }

  const reviews = await tx
    .updateTable('reviews')
    .set({ status: 'closed_by_delete', resolved_at: sql`now()`, resolved_by: actor, resolution: 'closed_by_delete', resolution_note: 'The tenant was deleted.', updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('status', 'in', OPEN_REVIEW_STATUSES)
    .executeTakeFirst();

  // Queued, or running under a lease that lapsed (no worker holds it): aborted now. Running under
  // a live lease: its worker stops at the next checkpoint.
  const forgeEnded = await tx
    .updateTable('forge_jobs')
    .set({ status: 'aborted', failure_message: TENANT_DELETED_FORGE, abort_requested: true, lease_owner: null, lease_expires_at: null, finished_at: sql`now()`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', sql<Date>`now()`)])]))
    .executeTakeFirst();
  const forgeStopping = await tx
    .updateTable('forge_jobs')
    .set({ abort_requested: true, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'running')
    .where('abort_requested', '=', false)
    .executeTakeFirst();

  // Last: the cancellations above may have owed a destination a result or a manifest.
  const deliveries = await tx
    .updateTable('deliveries')
    .set({ status: 'failed', last_error: TENANT_DELETED_DELIVERY, lease_owner: null, lease_expires_at: null, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'delivering'), eb('lease_expires_at', '<', sql<Date>`now()`)])]))
    .executeTakeFirst();

  return {
    connections: count(connections),
    jobs_cancelled: cancelled.rows.length,
    jobs_cancel_requested: running.rows.length,
    batches: batches.length,
    reviews: count(reviews),
    forge_jobs: count(forgeEnded) + count(forgeStopping),
    deliveries: count(deliveries),
  };
}
