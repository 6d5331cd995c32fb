// SQL for reviews. Every function takes the tenant id. A review row joins its job for the
// summary fields (job_status, batch_id, original_filename).
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import { OPEN_REVIEW_STATUSES, type Review, type ReviewStatus } from '../../db/reviews-schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';
import { newId } from '../../lib/ids.js';

export interface ReviewRow extends Review {
  job_status: string;
  batch_id: string | null;
  original_filename: string | null;
}

export interface ReviewFilters {
  status?: ReviewStatus;
  job_id?: string;
  batch_id?: string;
  created_after?: string;
  created_before?: string;
}

export interface Resolution {
  status: ReviewStatus;
  resolvedBy: string | null;
  resolution: string;
  note: string | null;
}

function withJob(db: Db | Tx, tenantId: string) {
  return db
    .selectFrom('reviews')
    .innerJoin('jobs', 'jobs.id', 'reviews.job_id')
    .selectAll('reviews')
    .select(['jobs.status as job_status', 'jobs.batch_id as batch_id', 'jobs.original_filename as original_filename'])
    .where('reviews.tenant_id', '=', tenantId);
}

/**
 * Opens the one pending review of a job that settled needs_review (inside the settle
 * transaction). A review still open from an earlier run of the same job is superseded first. A
 * deleted job's review is closed_by_delete from the start (a deleted job has no open review;
 * restoring it opens one with these reasons).
 */
export async function openReview(tx: Tx, tenantId: string, jobId: string, reasons: string[], options: { deleted?: boolean } = {}): Promise<void> {
  await resolveOpen(tx, tenantId, jobId, { status: 'reprocessed', resolvedBy: null, resolution: 'superseded', note: 'The job ran again and opened a new review.' });
  const closed = options.deleted
    ? { status: 'closed_by_delete' as const, resolution: 'closed_by_delete', resolution_note: 'The job was deleted.', resolved_at: sql<Date>`now()` }
    : {};
  await tx.insertInto('reviews').values({ id: newId('rev'), tenant_id: tenantId, job_id: jobId, reasons, ...closed }).execute();
}

/**
 * A restored job that was waiting for review waits again: a new pending review with the reasons
 * of the one its delete closed (inside the restore transaction).
 */
export async function reopenAfterRestore(tx: Tx, tenantId: string, jobId: string): Promise<void> {
  const closed = await tx
    .selectFrom('reviews')
    .select('reasons')
    .where('tenant_id', '=', tenantId)
    .where('job_id', '=', jobId)
    .where('status', '=', 'closed_by_delete')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (closed) await openReview(tx, tenantId, jobId, closed.reasons);
}

/** Resolves every open review of a job (delete: closed_by_delete). */
export async function resolveOpen(tx: Tx, tenantId: string, jobId: string, r: Resolution): Promise<number> {
  const rows = await tx
    .updateTable('reviews')
    .set({ status: r.status, resolved_at: sql`now()`, resolved_by: r.resolvedBy, resolution: r.resolution, resolution_note: r.note, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('job_id', '=', jobId)
    .where('status', 'in', OPEN_REVIEW_STATUSES)
    .execute();
  return rows.reduce((n, row) => n + Number(row.numUpdatedRows), 0);
}

export async function findReview(db: Db | Tx, tenantId: string, reviewId: string): Promise<ReviewRow | undefined> {
  return withJob(db, tenantId).where('reviews.id', '=', reviewId).executeTakeFirst() as Promise<ReviewRow | undefined>;
}

/** Locks a review (actions serialise on it). A deleted job's review stays visible, closed_by_delete. */
export async function lockReview(tx: Tx, tenantId: string, reviewId: string): Promise<Review | undefined> {
  return tx
    .selectFrom('reviews')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', reviewId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateReview(tx: Tx, tenantId: string, reviewId: string, values: { status: ReviewStatus } & Partial<Pick<Review, 'resolution' | 'resolution_note' | 'resolved_by'>> & { resolved?: boolean }): Promise<void> {
  const { resolved, ...rest } = values;
  await tx
    .updateTable('reviews')
    .set({ ...rest, ...(resolved ? { resolved_at: sql`now()` } : {}), updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', reviewId)
    .execute();
}

export async function listReviews(db: Db, tenantId: string, filters: ReviewFilters, page: PageRequest) {
  let query = withJob(db, tenantId);
  if (filters.status) query = query.where('reviews.status', '=', filters.status);
  if (filters.job_id) query = query.where('reviews.job_id', '=', filters.job_id);
  if (filters.batch_id) query = query.where('jobs.batch_id', '=', filters.batch_id);
  if (filters.created_after) query = query.where('reviews.created_at', '>', new Date(filters.created_after));
  if (filters.created_before) query = query.where('reviews.created_at', '<', new Date(filters.created_before));
  return paginate(query, page, 'reviews') as Promise<{ items: ReviewRow[]; next_cursor: string | null }>;
}
