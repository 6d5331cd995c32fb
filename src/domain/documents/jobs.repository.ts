// SQL for document jobs read and changed by the API. Every function takes the tenant id; the
// queue's own statements (claim, heartbeat, settle, recovery) live in src/queue/.
import { type ExpressionBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { Artifact, Job, JobStatus, JobsTable, ProcessingMode } from '../../db/documents-schema.js';
import type { Database } from '../../db/schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export const TERMINAL: readonly JobStatus[] = ['completed', 'needs_review', 'rejected', 'failed'];
export const isTerminal = (status: JobStatus) => TERMINAL.includes(status);

/** Every column but the (possibly large) result and the review history: what lists and state checks need. */
export const SUMMARY_COLUMNS = [
  'id', 'tenant_id', 'batch_id', 'status', 'processing_mode', 'template_id', 'template_version', 'classification',
  'original_filename', 'content_type', 'size_bytes', 'sha256', 'page_count', 'page_range', 'page_cap_policy',
  'pages_processed', 'metadata', 'destination_connection_id', 'priority', 'run_after', 'run_kind', 'attempts',
  'max_attempts', 'lease_owner', 'lease_expires_at', 'heartbeat_at', 'cancel_requested', 'failure_code',
  'failure_message', 'created_by', 'created_at', 'updated_at', 'started_at', 'finished_at', 'deleted_at',
] as const satisfies readonly (keyof JobsTable)[];

/** The job's reading (the claim's business, for re-extractions), its review history (read apart) and the queue's tenant_paused mark stay out of it. */
export type JobSummary = Omit<Job, 'result' | 'reading' | 'review_history' | 'tenant_paused'>;

export interface JobFilters {
  status?: JobStatus;
  batch_id?: string;
  template_id?: string;
  created_after?: string;
  created_before?: string;
  q?: string;
  /** true: only soft-deleted jobs (to find one to restore); default: only live ones. */
  deleted?: boolean;
}

function escapeLike(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function findJob(db: Db | Tx, tenantId: string, jobId: string): Promise<Job | undefined> {
  return db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', jobId).executeTakeFirst();
}

/** The row locked for a state change in this transaction. */
export async function lockJob(tx: Tx, tenantId: string, jobId: string): Promise<JobSummary | undefined> {
  return tx.selectFrom('jobs').select(SUMMARY_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', jobId).forUpdate().executeTakeFirst();
}

export async function listJobs(db: Db, tenantId: string, filters: JobFilters, page: PageRequest) {
  let query = db.selectFrom('jobs').select(SUMMARY_COLUMNS).where('tenant_id', '=', tenantId);
  query = filters.deleted ? query.where('deleted_at', 'is not', null) : query.where('deleted_at', 'is', null);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.batch_id) query = query.where('batch_id', '=', filters.batch_id);
  // The jobs a template ran for: asked for by id, or chosen by classification (default_template_id included).
  if (filters.template_id) {
    const id = filters.template_id;
    query = query.where((eb) => eb.or([eb('template_id', '=', id), eb(sql`classification->>'template_id'`, '=', id)]));
  }
  if (filters.created_after) query = query.where('created_at', '>', new Date(filters.created_after));
  if (filters.created_before) query = query.where('created_at', '<', new Date(filters.created_before));
  if (filters.q) {
    const like = escapeLike(filters.q);
    query = query.where((eb) => eb.or([eb('original_filename', 'ilike', like), eb('id', '=', filters.q!)]));
  }
  return paginate(query, page);
}

/** The order a job's artifacts are listed in, wherever they are read (here and job-text.ts). */
export const ARTIFACT_ORDER = sql`artifacts.created_at, artifacts.kind, artifacts.page_number, artifacts.id`;

/** Artifacts by job. Lists pass `withPageImages: false`: a 200-page job has 200 of them. */
export async function artifactsOf(db: Db | Tx, tenantId: string, jobIds: string[], options: { withPageImages?: boolean } = {}): Promise<Map<string, Artifact[]>> {
  const byJob = new Map<string, Artifact[]>();
  if (jobIds.length === 0) return byJob;
  let query = db.selectFrom('artifacts').selectAll().where('tenant_id', '=', tenantId).where('job_id', 'in', jobIds);
  if (options.withPageImages === false) query = query.where('kind', '!=', 'page_image');
  const rows = await query
    .orderBy('job_id')
    .orderBy(ARTIFACT_ORDER)
    .execute();
  for (const row of rows) byJob.set(row.job_id, [...(byJob.get(row.job_id) ?? []), row]);
  return byJob;
}

export async function findArtifact(db: Db, tenantId: string, artifactId: string) {
  return db
    .selectFrom('artifacts')
    .innerJoin('jobs', 'jobs.id', 'artifacts.job_id')
    .selectAll('artifacts')
    .select('jobs.deleted_at as job_deleted_at')
    .where('artifacts.tenant_id', '=', tenantId)
    .where('jobs.tenant_id', '=', tenantId)
    .where('artifacts.id', '=', artifactId)
    .executeTakeFirst();
}

export async function findCanonicalArtifact(db: Db | Tx, tenantId: string, jobId: string): Promise<Artifact | undefined> {
  return db
    .selectFrom('artifacts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('job_id', '=', jobId)
    .where('kind', '=', 'canonical_json')
    .executeTakeFirst();
}

/** How many page images a job's runs listed (a re-extraction keeps those of the run before it). */
export async function countPageImages(db: Db | Tx, tenantId: string, jobId: string): Promise<number> {
  const row = await db
    .selectFrom('artifacts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('job_id', '=', jobId)
    .where('kind', '=', 'page_image')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** What a job goes back to the queue with: the settings of its next run. */
export interface Requeue {
  processing_mode?: ProcessingMode;
  template_id?: string | null;
  page_range?: string | null;
  run_kind?: 'full' | 'reextract';
}

/**
 * A terminal job back to `queued` for a new run: the previous outcome is cleared, attempts start
 * over (the history keeps the old runs), and template_version/classification are recomputed by
 * the run. Guarded by status so a concurrent change cannot be overwritten.
 */
export async function requeueTerminal(tx: Tx, tenantId: string, jobId: string, changes: Requeue): Promise<JobSummary | undefined> {
  return tx
    .updateTable('jobs')
    .set({
      ...changes,
      status: 'queued',
      run_kind: changes.run_kind ?? 'full',
      run_after: sql`now()`,
      attempts: 0,
      cancel_requested: false,
      failure_code: null,
      failure_message: null,
      result: null,
      classification: null,
      template_version: null,
      pages_processed: 0,
      lease_owner: null,
      lease_expires_at: null,
      heartbeat_at: null,
      started_at: null,
      finished_at: null,
      updated_at: sql`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', jobId)
    .where('status', 'in', TERMINAL)
    .where('deleted_at', 'is', null)
    .returning(SUMMARY_COLUMNS)
    .executeTakeFirst();
}

/** queued → failed/cancelled at once (nothing is running to stop). */
export async function cancelQueued(tx: Tx, tenantId: string, jobId: string, message: string): Promise<JobSummary | undefined> {
  return tx
    .updateTable('jobs')
    .set({ status: 'failed', failure_code: 'cancelled', failure_message: message, finished_at: sql`now()`, updated_at: sql`now()`, cancel_requested: true })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', jobId)
    .where('status', '=', 'queued')
    .returning(SUMMARY_COLUMNS)
    .executeTakeFirst();
}

/** processing → the worker stops at its next checkpoint and settles the job as cancelled. */
export async function requestCancel(tx: Tx, tenantId: string, jobId: string): Promise<JobSummary | undefined> {
  return tx
    .updateTable('jobs')
    .set({ cancel_requested: true, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', jobId)
    .where('status', '=', 'processing')
    .returning(SUMMARY_COLUMNS)
    .executeTakeFirst();
}

export async function setDeleted(tx: Tx, tenantId: string, jobId: string, deleted: boolean): Promise<JobSummary | undefined> {
  return tx
    .updateTable('jobs')
    .set({ deleted_at: deleted ? sql`now()` : null, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', jobId)
    .returning(SUMMARY_COLUMNS)
    .executeTakeFirst();
}

export interface EventInput {
  tenantId: string;
  jobId: string;
  kind: string;
  from?: string | null;
  to?: string | null;
  attempt?: number | null;
  worker?: string | null;
  actor?: string | null;
  detail?: Record<string, unknown>;
}

export async function recordEvent(db: Db | Tx, e: EventInput): Promise<void> {
  await db
    .insertInto('job_events')
    .values({
      tenant_id: e.tenantId,
      job_id: e.jobId,
      kind: e.kind,
      from_status: e.from ?? null,
      to_status: e.to ?? null,
      attempt: e.attempt ?? null,
      worker: e.worker ?? null,
      actor: e.actor ?? null,
      detail: JSON.stringify(e.detail ?? {}),
    })
    .execute();
}

export async function jobEvents(db: Db, tenantId: string, jobId: string) {
  return db.selectFrom('job_events').selectAll().where('tenant_id', '=', tenantId).where('job_id', '=', jobId).orderBy('id').execute();
}

export const liveOnly = (eb: ExpressionBuilder<Database, 'jobs'>) => eb('deleted_at', 'is', null);
