// SQL for batches. Every function takes the tenant id. Every change to a batch's jobs updates the
// batch in its own transaction (after the job rows are locked: jobs first, then the batch, the one
// lock order everywhere, so these transactions cannot deadlock each other): the queue's hot path
// (claim, settle, release) moves one job between two counts (moveBatchJob, and the claim
// statement itself); every other change recounts (refreshBatch), which also corrects any drift.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { Batch, JobStatus, PageCapPolicy, ProcessingMode } from '../../db/documents-schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';
import { type BatchCounts, batchStatus, countJobs, emptyCounts, isBatchTerminal } from './batch-status.js';

export interface NewBatch {
  id: string;
  tenant_id: string;
  name: string | null;
  template_id: string | null;
  processing_mode: ProcessingMode;
  page_range: string | null;
  page_cap_policy: PageCapPolicy;
  destination_connection_id: string | null;
  destination_config: Record<string, unknown> | null;
  created_by: string | null;
}

export async function insertBatch(tx: Tx, batch: NewBatch): Promise<Batch> {
  return tx
    .insertInto('batches')
    .values({ ...batch, destination_config: batch.destination_config ? JSON.stringify(batch.destination_config) : null, counts: JSON.stringify({}) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findBatch(db: Db | Tx, tenantId: string, batchId: string): Promise<Batch | undefined> {
  return db.selectFrom('batches').selectAll().where('tenant_id', '=', tenantId).where('id', '=', batchId).executeTakeFirst();
}

export async function listBatches(db: Db, tenantId: string, filters: { status?: string; created_after?: string; created_before?: string; q?: string }, page: PageRequest) {
  let query = db.selectFrom('batches').selectAll().where('tenant_id', '=', tenantId);
  if (filters.status) query = query.where('status', '=', filters.status as Batch['status']);
  if (filters.created_after) query = query.where('created_at', '>', new Date(filters.created_after));
  if (filters.created_before) query = query.where('created_at', '<', new Date(filters.created_before));
  if (filters.q) query = query.where('name', 'ilike', `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return paginate(query, page);
}

/** Locks the live jobs of a batch in id order (the one order every multi-job change uses). */
export async function lockBatchJobs(tx: Tx, tenantId: string, batchId: string): Promise<{ id: string; status: JobStatus }[]> {
  return tx
    .selectFrom('jobs')
    .select(['id', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('batch_id', '=', batchId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Sets the batch's cancel flag; a batch that already has that value is left untouched. */
export async function setBatchCancelRequested(tx: Tx, tenantId: string, batchId: string, value: boolean): Promise<void> {
  await tx
    .updateTable('batches')
    .set({ cancel_requested: value, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', batchId)
    .where('cancel_requested', '=', !value)
    .execute();
}

/** Recomputes counts and status from the jobs (live ones) and stores them. */
export async function refreshBatch(tx: Tx | Db, tenantId: string, batchId: string): Promise<Batch | undefined> {
  const batch = await tx.selectFrom('batches').selectAll().where('tenant_id', '=', tenantId).where('id', '=', batchId).forUpdate().executeTakeFirst();
  if (!batch) return undefined;
  const rows = await tx
    .selectFrom('jobs')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .where('tenant_id', '=', tenantId)
    .where('batch_id', '=', batchId)
    .where('deleted_at', 'is', null)
    .groupBy('status')
    .execute();
  const counts = countJobs(rows);
  const status = batchStatus(counts, batch.cancel_requested);
  const finished = isBatchTerminal(status);
  return tx
    .updateTable('batches')
    .set({
      counts: JSON.stringify(counts),
      status,
      updated_at: status === batch.status && sameCounts(batch.counts, counts) ? batch.updated_at : sql`now()`,
      finished_at: finished ? (batch.finished_at ?? sql`now()`) : null,
    })
    .where('id', '=', batchId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * One live job of the batch went from `from` to `to`: the stored counts are adjusted under the
 * batch's row lock instead of recounting every job of the batch (a recount per claim and settle
 * serialised a large batch's workers on it). Exact because each adjustment commits with the job's
 * own change, and a recount elsewhere holds the same lock.
 */
export async function moveBatchJob(tx: Tx, tenantId: string, batchId: string, from: JobStatus, to: JobStatus): Promise<void> {
  const batch = await tx.selectFrom('batches').selectAll().where('tenant_id', '=', tenantId).where('id', '=', batchId).forUpdate().executeTakeFirst();
  if (!batch) return;
  const stored = batch.counts as Partial<BatchCounts>;
  if (typeof stored.total !== 'number') {
    await refreshBatch(tx, tenantId, batchId);
    return;
  }
  const counts: BatchCounts = { ...emptyCounts(), ...stored };
  counts[from] -= 1;
  counts[to] += 1;
  const status = batchStatus(counts, batch.cancel_requested);
  await tx
    .updateTable('batches')
    .set({ counts: JSON.stringify(counts), status, updated_at: sql`now()`, finished_at: isBatchTerminal(status) ? (batch.finished_at ?? sql`now()`) : null })
    .where('id', '=', batchId)
    .execute();
}

function sameCounts(stored: Record<string, unknown>, counts: BatchCounts): boolean {
  return Object.entries(counts).every(([k, v]) => stored[k] === v);
}
