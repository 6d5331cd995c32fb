// POST /v1/batches/{id}/reconcile, delivery part: re-sends what never arrived. A failed delivery
// goes back on the queue under its own id (receivers deduplicate on it) with a fresh set of
// attempts, unless a later delivery of the same job already succeeded; a finished job or batch
// that has no delivery at all (it ended before its destination could take it) gets one.
import { sql } from 'kysely';
import type { Tx } from '../db/database.js';
import type { Batch } from '../db/documents-schema.js';
import { DELIVERIES_CHANNEL } from '../queue/notify.js';

export interface ReconcileDeliveries {
  pending: number;
  resent: number;
  detail: string;
}

export async function resendBatchDeliveries(tx: Tx, batch: Batch): Promise<ReconcileDeliveries> {
  if (!batch.destination_connection_id) return { pending: 0, resent: 0, detail: 'Counts recomputed. This batch has no destination, so there is nothing to deliver.' };
  const reset = await sql<{ id: string }>`
    UPDATE deliveries d
       SET status = 'pending', run_after = now(), max_attempts = d.attempts + 8, updated_at = now()
     WHERE d.tenant_id = ${batch.tenant_id} AND d.batch_id = ${batch.id} AND d.status = 'failed'
       AND NOT EXISTS (SELECT 1 FROM deliveries later
                        WHERE later.tenant_id = d.tenant_id AND later.kind = d.kind AND later.batch_id = d.batch_id
                          AND later.job_id IS NOT DISTINCT FROM d.job_id AND later.id > d.id AND later.status <> 'failed')
    RETURNING d.id`.execute(tx);
  const missingJobs = await sql<{ id: string }>`
    INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, job_id, batch_id)
    SELECT quire_delivery_id(), j.tenant_id, j.destination_connection_id, 'job',
           CASE j.status WHEN 'completed' THEN 'job.completed' WHEN 'needs_review' THEN 'job.needs_review' ELSE 'job.failed' END,
           j.id, j.batch_id
      FROM jobs j
     WHERE j.tenant_id = ${batch.tenant_id} AND j.batch_id = ${batch.id} AND j.deleted_at IS NULL
       AND j.destination_connection_id IS NOT NULL
       AND j.status IN ('completed', 'needs_review', 'rejected', 'failed')
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.tenant_id = j.tenant_id AND d.job_id = j.id AND d.kind = 'job')
    RETURNING id`.execute(tx);
  const missingManifest = batch.finished_at
    ? await sql<{ id: string }>`
        INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, batch_id)
        SELECT quire_delivery_id(), ${batch.tenant_id}, ${batch.destination_connection_id}, 'manifest', 'batch.finished', ${batch.id}
         WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.tenant_id = ${batch.tenant_id} AND d.batch_id = ${batch.id} AND d.kind = 'manifest')
        RETURNING id`.execute(tx)
    : { rows: [] };
  const resent = reset.rows.length + missingJobs.rows.length + missingManifest.rows.length;
  if (resent) await sql`SELECT pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(tx);
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM deliveries WHERE tenant_id = ${batch.tenant_id} AND batch_id = ${batch.id} AND status IN ('pending', 'delivering')`.execute(tx);
  const pending = rows[0]?.n ?? 0;
  return {
    pending,
    resent,
    detail: resent ? `Counts recomputed; ${resent} deliver${resent === 1 ? 'y' : 'ies'} that had not arrived will be sent again.` : 'Counts recomputed; every delivery owed so far has arrived or is still on its way.',
  };
}
