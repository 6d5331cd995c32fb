// SQL for forge jobs and their iterations. Every tenant-facing function takes the tenant; the
// queue functions (claim, lease, settle) live in queue/forge-lease.ts.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { ForgeIterationRow, ForgeJobRow, ForgeLimits, ForgeStatus } from '../../db/classification-schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export interface NewForgeJob {
  id: string;
  sample_job_ids: string[];
  hint: string | null;
  expected_outputs: Record<string, unknown> | null;
  endpoint_id: string | null;
  limits: ForgeLimits;
  created_by: string | null;
}

export async function insertForgeJob(db: Db | Tx, tenantId: string, j: NewForgeJob): Promise<ForgeJobRow> {
  return db
    .insertInto('forge_jobs')
    .values({ ...j, tenant_id: tenantId, expected_outputs: j.expected_outputs ? JSON.stringify(j.expected_outputs) : null, limits: JSON.stringify(j.limits) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findForgeJob(db: Db | Tx, tenantId: string, id: string): Promise<ForgeJobRow | undefined> {
  return db.selectFrom('forge_jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function lockForgeJob(tx: Tx, tenantId: string, id: string): Promise<ForgeJobRow | undefined> {
  return tx.selectFrom('forge_jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function listForgeJobs(db: Db, tenantId: string, filters: { status?: ForgeStatus }, page: PageRequest) {
  let q = db.selectFrom('forge_jobs').selectAll().where('tenant_id', '=', tenantId);
  if (filters.status) q = q.where('status', '=', filters.status);
  return paginate(q, page);
}

export async function setForgeStatus(tx: Tx, tenantId: string, id: string, values: { status?: ForgeStatus; abort_requested?: boolean; promoted_template_id?: string; failure_message?: string | null; finished?: boolean }): Promise<ForgeJobRow> {
  const { finished, ...rest } = values;
  return tx
    .updateTable('forge_jobs')
    .set({ ...rest, ...(finished ? { finished_at: sql`now()`, lease_owner: null, lease_expires_at: null } : {}), updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listIterations(db: Db, tenantId: string, forgeJobId: string, page: PageRequest) {
  return paginate(db.selectFrom('forge_iterations').selectAll().where('tenant_id', '=', tenantId).where('forge_job_id', '=', forgeJobId), page);
}

export async function findIteration(db: Db | Tx, tenantId: string, forgeJobId: string, id: string): Promise<ForgeIterationRow | undefined> {
  return db.selectFrom('forge_iterations').selectAll().where('tenant_id', '=', tenantId).where('forge_job_id', '=', forgeJobId).where('id', '=', id).executeTakeFirst();
}

/** Tokens and dollars the tenant's forge jobs have spent since the start of this month (UTC). */
export async function monthSpend(db: Db, tenantId: string): Promise<{ tokens: number; dollars: number }> {
  const row = await db
    .selectFrom('forge_jobs')
    .select([sql<string>`coalesce(sum(tokens), 0)`.as('tokens'), sql<string>`coalesce(sum(dollars), 0)`.as('dollars')])
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>=', sql<Date>`date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`)
    .executeTakeFirst();
  return { tokens: Number(row?.tokens ?? 0), dollars: Number(row?.dollars ?? 0) };
}
