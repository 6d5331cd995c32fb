// The forge queue: forge_jobs rows claimed, leased and settled like document jobs (claim.ts,
// lease.ts): one SKIP LOCKED statement claims, heartbeats extend the lease and read the abort
// flag, and only the lease holder may record an iteration or settle. A claim also takes over a
// run whose lease lapsed (its worker died), up to max_attempts; past that it fails.
// A suspended tenant's forge jobs wait: the forge_jobs_claim index leaves out those marked
// tenant_paused (migration 0020), and `tenant_id NOT IN` the suspended tenants passes over the
// few queued unmarked (paused-tenants.ts).
import { type UpdateObject, sql } from 'kysely';
import type { Db, Tx } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { ForgeJobRow, ForgeStatus } from '../db/classification-schema.js';
import { newId } from '../lib/ids.js';
import { addModelUsage } from '../models/usage.js';
import { suspendedTenantIds } from '../domain/tenants/paused-tenants.js';
import type { ModelUsage } from '../pipeline/model-usage.js';

export async function claimForgeJob(db: Db, workerId: string, leaseSeconds: number): Promise<ForgeJobRow | null> {
  const { rows } = await sql<ForgeJobRow>`
    UPDATE forge_jobs
       SET status = 'running',
           lease_owner = ${workerId},
           lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
           attempts = attempts + 1,
           started_at = coalesce(started_at, now()),
           updated_at = now()
     WHERE id = (
           SELECT id FROM forge_jobs
            WHERE (status = 'queued' OR (status = 'running' AND lease_expires_at < now()))
              AND attempts < max_attempts
              AND NOT tenant_paused AND tenant_id NOT IN ${suspendedTenantIds}
            ORDER BY created_at, id
            FOR UPDATE SKIP LOCKED
            LIMIT 1)
    RETURNING *`.execute(db);
  return rows[0] ?? null;
}

/** Runs whose lease lapsed after their last attempt: failed, with the reason. */
export async function failExhaustedForgeJobs(db: Db): Promise<number> {
  const res = await db
    .updateTable('forge_jobs')
    .set({
      status: 'failed',
      failure_message: 'The forge worker stopped responding on every attempt. Submit the forge job again.',
      lease_owner: null,
      lease_expires_at: null,
      finished_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('status', '=', 'running')
    .where('lease_expires_at', '<', sql<Date>`now()`)
    .where(sql<boolean>`attempts >= max_attempts`)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function forgeHeartbeat(db: Db, id: string, workerId: string, leaseSeconds: number): Promise<{ held: boolean; abortRequested: boolean }> {
  const row = await db
    .updateTable('forge_jobs')
    .set({ lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where('id', '=', id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .returning('abort_requested')
    .executeTakeFirst();
  return { held: !!row, abortRequested: row?.abort_requested ?? false };
}

/** Changes the job's row while this worker's lease on the running job holds; false once it does not. */
async function updateHeldRun(tx: Tx, job: ForgeJobRow, workerId: string, changes: UpdateObject<Database, 'forge_jobs'>): Promise<boolean> {
  const held = await tx
    .updateTable('forge_jobs')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', job.id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .returning('id')
    .executeTakeFirst();
  return !!held;
}

/**
 * A taken-over run starts over (each iteration is asked afresh): the iterations an earlier attempt
 * recorded go, so that the job's iterations and best are those of the run that finishes. What
 * they spent stays in the job's tokens and dollars. Only while the lease is held.
 */
export async function clearEarlierAttempts(db: Db, job: ForgeJobRow, workerId: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    if (!(await updateHeldRun(tx, job, workerId, { iterations_count: 0, best_iteration_id: null, best_score: null }))) return false;
    await tx.deleteFrom('forge_iterations').where('forge_job_id', '=', job.id).execute();
    return true;
  });
}

export interface IterationRecord {
  number: number;
  candidate: Record<string, unknown>;
  scores: Record<string, number>;
  tokens: number;
  dollars: number;
  notes: string;
  isBest: boolean;
  /** A model-driven iteration's calls, added to the tenant's monthly model usage with it. */
  usage?: ModelUsage;
}

/** Records an iteration and the job's running totals, only while the lease is held. */
export async function recordIteration(db: Db, job: ForgeJobRow, workerId: string, it: IterationRecord): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const id = newId('fgi');
    const held = await updateHeldRun(tx, job, workerId, {
      iterations_count: it.number,
      tokens: sql`tokens + ${it.tokens}`,
      dollars: sql`dollars + ${it.dollars}`,
      ...(it.isBest ? { best_iteration_id: id, best_score: it.scores.overall ?? 0 } : {}),
    });
    if (!held) return false;
    await tx
      .insertInto('forge_iterations')
      .values({ id, tenant_id: job.tenant_id, forge_job_id: job.id, number: it.number, candidate: JSON.stringify(it.candidate), scores: JSON.stringify(it.scores), tokens: it.tokens, dollars: it.dollars, notes: it.notes })
      .onConflict((oc) => oc.columns(['forge_job_id', 'number']).doUpdateSet({ id, candidate: JSON.stringify(it.candidate), scores: JSON.stringify(it.scores), tokens: it.tokens, dollars: it.dollars, notes: it.notes }))
      .execute();
    if (it.usage) await addModelUsage(tx, job.tenant_id, [it.usage]);
    return true;
  });
}

/**
 * What a proposal that produced no iteration was billed (answers that came but could not be
 * used): added to the job's totals and the tenant's monthly usage, only while the lease is held.
 */
export async function recordUnusedSpend(db: Db, job: ForgeJobRow, workerId: string, usage: ModelUsage): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const held = await updateHeldRun(tx, job, workerId, { tokens: sql`tokens + ${usage.input_tokens + usage.output_tokens}`, dollars: sql`dollars + ${usage.cost_usd}` });
    if (held) await addModelUsage(tx, job.tenant_id, [usage]);
  });
}

/** Adds a sentence to an iteration's notes (why the run stopped after it), while the lease is held. */
export async function appendIterationNote(db: Db, job: ForgeJobRow, workerId: string, number: number, note: string): Promise<void> {
  await db
    .updateTable('forge_iterations')
    .set({ notes: sql`concat_ws(' ', notes, ${note}::text)` })
    .where('forge_job_id', '=', job.id)
    .where('number', '=', number)
    .where(({ exists, selectFrom }) => exists(selectFrom('forge_jobs').select('id').where('id', '=', job.id).where('lease_owner', '=', workerId).where('status', '=', 'running')))
    .execute();
}

export const ABORTED_MESSAGE = 'Aborted at your request.';

/**
 * Ends a running job, while the lease is held. An abort requested after the run's last checkpoint
 * still wins: the caller was told the job would stop, so it ends `aborted`, not with its result.
 */
export async function settleForgeJob(db: Db, job: ForgeJobRow, workerId: string, status: ForgeStatus, failureMessage: string | null = null): Promise<boolean> {
  const row = await db
    .updateTable('forge_jobs')
    .set({
      status: sql<ForgeStatus>`CASE WHEN abort_requested THEN 'aborted' ELSE ${status}::text END`,
      failure_message: sql`CASE WHEN abort_requested THEN ${ABORTED_MESSAGE}::text ELSE ${failureMessage}::text END`,
      lease_owner: null,
      lease_expires_at: null,
      finished_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('id', '=', job.id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .returning('id')
    .executeTakeFirst();
  return !!row;
}
