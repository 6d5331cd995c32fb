// SQL of the deliveries queue: the jobs' claim/lease pattern (src/queue/claim.ts, lease.ts) on
// its own table. The claim is one statement that also takes over deliveries whose lease lapsed
// (their worker died mid-send), so recovery needs no sweeper; only the lease holder may settle.
// A suspended tenant's deliveries wait: the deliveries_claim index leaves out those marked
// tenant_paused (migration 0020), so their backlog costs a claim nothing, and `tenant_id NOT IN`
// the suspended tenants passes over the few that became due unmarked (paused-tenants.ts).
import { sql } from 'kysely';
import type { Db, Tx } from '../db/database.js';
import type { Delivery, DeliveryAttempt } from '../db/connections-schema.js';
import { suspendedTenantIds } from '../domain/tenants/paused-tenants.js';

export async function claimDelivery(db: Db, workerId: string, leaseSeconds: number): Promise<Delivery | null> {
  const { rows } = await sql<Delivery>`
    UPDATE deliveries
       SET status = 'delivering',
           lease_owner = ${workerId},
           lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
           attempts = attempts + 1,
           updated_at = now()
     WHERE id = (
           SELECT id FROM deliveries
            WHERE ((status = 'pending' AND run_after <= now())
               OR (status = 'delivering' AND lease_expires_at < now()))
              AND NOT tenant_paused AND tenant_id NOT IN ${suspendedTenantIds}
            ORDER BY run_after, id
            FOR UPDATE SKIP LOCKED
            LIMIT 1)
    RETURNING *`.execute(db);
  return rows[0] ?? null;
}

/** How long a delivery that gave way to an earlier one in flight waits before it is claimed again. */
const GIVE_WAY_SECONDS = 1;

/**
 * Deliveries of one job (or one batch's manifest) to one connection go out one at a time. Each
 * sends the job as it is when it is sent, so a newer delivery sent beside an older one still in
 * flight could finish first and then be overwritten by the older state. A claimed delivery with an
 * older one of the same job and connection in flight (live lease) goes back to pending, uncounted,
 * for a moment: the older one goes first. Checked after the claim, on the job's own deliveries
 * (an index lookup), so the claim itself stays one cheap statement.
 */
export async function giveWayToEarlier(db: Db, delivery: Delivery, workerId: string): Promise<boolean> {
  const same =
    delivery.kind === 'job'
      ? sql`busy.job_id = ${delivery.job_id} AND busy.kind = 'job'`
      : sql`busy.batch_id = ${delivery.batch_id} AND busy.kind = 'manifest'`;
  const updated = await sql`
    UPDATE deliveries
       SET status = 'pending', attempts = attempts - 1, run_after = now() + make_interval(secs => ${GIVE_WAY_SECONDS}),
           lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     WHERE id = ${delivery.id} AND lease_owner = ${workerId} AND status = 'delivering'
       AND EXISTS (SELECT 1 FROM deliveries busy
                    WHERE busy.tenant_id = ${delivery.tenant_id} AND ${same} AND busy.connection_id = ${delivery.connection_id}
                      AND busy.id < ${delivery.id} AND busy.status = 'delivering' AND busy.lease_expires_at >= now())`.execute(db);
  return Number(updated.numAffectedRows ?? 0) > 0;
}

export interface AttemptRecord {
  outcome: DeliveryAttempt['outcome'];
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
}

async function logAttempt(tx: Tx, delivery: Delivery, workerId: string, attempt: AttemptRecord): Promise<void> {
  await tx
    .insertInto('delivery_attempts')
    .values({
      delivery_id: delivery.id,
      tenant_id: delivery.tenant_id,
      attempt: delivery.attempts,
      worker: workerId,
      outcome: attempt.outcome,
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      response_excerpt: attempt.excerpt,
      error: attempt.error,
    })
    .execute();
}

/**
 * Settles an attempt: delivered, retried after `retryInMs`, or given up (no retry left, or
 * `final`). Returns false when this worker no longer holds the lease (another one took over).
 */
export async function settleDelivery(db: Db, delivery: Delivery, workerId: string, attempt: AttemptRecord, retryInMs: number, final = false): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const givingUp = attempt.outcome !== 'delivered' && (final || delivery.attempts >= delivery.max_attempts);
    const outcome = attempt.outcome === 'delivered' ? 'delivered' : givingUp ? 'failed' : 'retry';
    const updated = await tx
      .updateTable('deliveries')
      .set({
        status: outcome === 'delivered' ? 'delivered' : outcome === 'failed' ? 'failed' : 'pending',
        delivered_at: outcome === 'delivered' ? sql`now()` : null,
        last_error: attempt.error,
        run_after: outcome === 'retry' ? sql`now() + make_interval(secs => ${retryInMs / 1000})` : sql`run_after`,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: sql`now()`,
      })
      .where('id', '=', delivery.id)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'delivering')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await logAttempt(tx, delivery, workerId, { ...attempt, outcome });
    return true;
  });
}

export async function deliveriesOfJob(db: Db, tenantId: string, jobId: string): Promise<Delivery[]> {
  return db.selectFrom('deliveries').selectAll().where('tenant_id', '=', tenantId).where('job_id', '=', jobId).where('kind', '=', 'job').orderBy('id').execute();
}

export async function attemptsOf(db: Db, tenantId: string, deliveryId: string): Promise<DeliveryAttempt[]> {
  return db.selectFrom('delivery_attempts').selectAll().where('tenant_id', '=', tenantId).where('delivery_id', '=', deliveryId).orderBy('id').execute();
}
