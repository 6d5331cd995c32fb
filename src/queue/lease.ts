// A claimed job's lease: heartbeats extend it, and only the lease holder may settle the job.
// Every settle is guarded by `lease_owner = me AND status = 'processing'`: a worker that lost its
// lease (it stalled, recovery gave the job to another worker) changes nothing. A cancel requested
// before the settle commits wins: the job ends cancelled, whatever the run made of it.
import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from '../db/database.js';
import type { Artifact, Job, JobStatus, PageRender } from '../db/documents-schema.js';
import { moveBatchJob } from '../domain/batches/batches.repository.js';
import { recordEvent } from '../domain/documents/jobs.repository.js';
import { openReview } from '../domain/reviews/reviews.repository.js';
import { TENANT_DELETED_JOB } from '../domain/tenants/tenant-work.js';
import { newId } from '../lib/ids.js';
import { noFlushWait } from '../db/no-flush-wait.js';
import { executePrepared } from '../db/prepared-statements.js';
import { notifyQueued } from './notify.js';
import type { Reading } from './result.js';

export interface HeartbeatAnswer {
  held: boolean;
  cancelRequested: boolean;
}

/** A heartbeat's commit does not wait for the WAL flush: one lost in a database crash only shortens the lease. */
export function heartbeat(db: Db, jobId: string, workerId: string, leaseSeconds: number, pagesProcessed: number | null): Promise<HeartbeatAnswer> {
  return extendLease(db, jobId, workerId, leaseSeconds, pagesProcessed !== null ? { pages_processed: pagesProcessed } : {});
}

/**
 * The run of a claimed job starts: a pipeline thread took it (or, for a re-extraction, the
 * extraction begins). Only from here does the claim's attempt count if the process dies: recovery
 * gives the attempt back to a job whose started_at is null (it was claimed ahead, or waited for a
 * thread), so the crashes one document causes never fail the jobs queued behind it. It also
 * heartbeats, and answers like a heartbeat. Not waiting for the WAL flush is safe: the mark only
 * matters when the worker process dies, and then the database server keeps what it acknowledged.
 */
export function startRun(db: Db, jobId: string, workerId: string, leaseSeconds: number): Promise<HeartbeatAnswer> {
  return extendLease(db, jobId, workerId, leaseSeconds, { started_at: sql<Date>`now()` });
}

/** Extends the lease this worker holds (and sets `also`), answering whether it still holds it and a cancel is asked. */
async function extendLease(db: Db, jobId: string, workerId: string, leaseSeconds: number, also: { pages_processed?: number; started_at?: RawBuilder<Date> }): Promise<HeartbeatAnswer> {
  const update = db
    .updateTable('jobs')
    .set({ lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})`, heartbeat_at: sql`now()`, ...also })
    .where('id', '=', jobId)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'processing')
    .where(noFlushWait)
    .returning('cancel_requested');
  const [row] = (await executePrepared(db, update)).rows;
  return { held: !!row, cancelRequested: row?.cancel_requested ?? false };
}

/** An artifact a finished run hands to settle; ids, tenant, job and time are filled in there. */
export type NewArtifact = Pick<Artifact, 'kind' | 'page_number' | 'filename' | 'content_type' | 'size_bytes' | 'sha256'> & { render?: PageRender };

export interface Outcome {
  status: JobStatus;
  result: Record<string, unknown> | null;
  /** `result` already serialised (the worker splices in the canonical JSON it wrote as an artifact). */
  resultText?: string;
  failure_code?: string | null;
  failure_message?: string | null;
  page_count?: number | null;
  pages_processed?: number;
  classification?: Record<string, unknown> | null;
  template_version?: number | null;
  /** With status needs_review: the reasons of the review opened in the same transaction. */
  review_reasons?: string[];
  /** Artifacts of this run; when given they replace the previous run's (the source upload stays). */
  artifacts?: NewArtifact[];
  /** How this run read the document (jobs.reading), stored with its artifacts; null: nothing to report. */
  reading?: Reading | null;
}

/**
 * The same for several claimed jobs, each under its own lease owner, in one statement (jobs a
 * process claimed ahead and has not started). Answers, for each job whose lease is still held,
 * whether a cancel was requested.
 */
export async function heartbeatClaimed(db: Db, jobs: Pick<Job, 'id' | 'lease_owner'>[], leaseSeconds: number): Promise<Map<string, boolean>> {
  const { rows } = await executePrepared(db, sql<{ id: string; cancel_requested: boolean }>`
    UPDATE jobs j
       SET lease_expires_at = now() + make_interval(secs => ${leaseSeconds}), heartbeat_at = now()
      FROM unnest(${jobs.map((w) => w.id)}::text[], ${jobs.map((w) => w.lease_owner)}::text[]) AS w(id, owner)
     WHERE j.id = w.id AND j.lease_owner = w.owner AND j.status = 'processing' AND ${noFlushWait}
    RETURNING j.id, j.cancel_requested`);
  return new Map(rows.map((r) => [r.id, r.cancel_requested]));
}

/** How a job ends when its cancel was requested (decisions.md: processing → cancel). */
export const CANCELLED_MESSAGE = 'Processing was cancelled at your request. Retry the job to run it again.';
const CANCELLED: Outcome = { status: 'failed', result: null, failure_code: 'cancelled', failure_message: CANCELLED_MESSAGE };

/**
 * A cancelled run's message: a run stopped because its tenant was deleted says so (the deletion
 * commits the tenant's deleted_at with the cancel request, tenant-work.ts), as its queued jobs do.
 */
export function cancelledMessage(tenantId: string | RawBuilder<string>, message: string): RawBuilder<string> {
  return sql<string>`CASE WHEN EXISTS (SELECT 1 FROM tenants t WHERE t.id = ${tenantId} AND t.deleted_at IS NOT NULL) THEN ${TENANT_DELETED_JOB}::text ELSE ${message}::text END`;
}

/**
 * Whether the guarded update also requires the job's cancel_requested flag: `absent` for every
 * outcome but a cancellation (a cancel, or a delete, asked for while the run was finishing wins
 * over the run's result), `present` for the cancellation that then takes its place.
 */
type CancelGuard = 'absent' | 'present' | 'any';

/**
 * The job's update, only while this worker still holds its lease, ending the lease. Answers only
 * the id and deletion: returning the whole row would send a megabyte result straight back.
 */
function guardedUpdate(db: Db | Tx, job: Job, workerId: string, values: Record<string, unknown>, cancel: CancelGuard = 'any') {
  let update = db
    .updateTable('jobs')
    .set({ ...values, lease_owner: null, lease_expires_at: null, updated_at: sql`now()` })
    .where('id', '=', job.id)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'processing');
  if (cancel !== 'any') update = update.where('cancel_requested', '=', cancel === 'present');
  return update.returning(['id', 'deleted_at']);
}

/** A deleted job (deleted while it ran) no longer counts in its batch. */
async function moveInBatch(tx: Tx, job: Job, updated: { deleted_at: Date | null }, to: JobStatus): Promise<void> {
  if (job.batch_id && !updated.deleted_at) await moveBatchJob(tx, job.tenant_id, job.batch_id, 'processing', to);
}

/**
 * The settle's writes as ONE statement: the guarded job update, and only when it matched, the
 * event and the run's artifacts (the previous run's removed, the source upload kept). Data-modifying
 * CTEs all see the snapshot from before the statement, so the removal never touches the rows added
 * beside it. Six round trips (a transaction of four statements) became one.
 */
async function settleWrites(db: Db | Tx, job: Job, workerId: string, outcome: Outcome, cancel: CancelGuard): Promise<{ id: string; deleted_at: Date | null } | undefined> {
  // A full run replaces the run's outputs, also when it fails: the outputs of the run before belong
  // to a result that is gone (and maybe to another page selection), and a re-extraction must not
  // build on them. A failed re-extraction leaves the canonical output it read in place.
  const replace = outcome.artifacts !== undefined || (outcome.status === 'failed' && job.run_kind !== 'reextract');
  const values = {
    status: outcome.status,
    result: outcome.resultText ?? (outcome.result ? JSON.stringify(outcome.result) : null),
    failure_code: outcome.failure_code ?? null,
    failure_message: outcome.failure_code === 'cancelled' ? cancelledMessage(job.tenant_id, outcome.failure_message ?? CANCELLED_MESSAGE) : (outcome.failure_message ?? null),
    finished_at: sql<Date>`now()`,
    ...(outcome.page_count !== undefined ? { page_count: outcome.page_count } : {}),
    ...(outcome.pages_processed !== undefined ? { pages_processed: outcome.pages_processed } : {}),
    ...(outcome.classification !== undefined ? { classification: outcome.classification ? JSON.stringify(outcome.classification) : null } : {}),
    ...(outcome.template_version !== undefined ? { template_version: outcome.template_version } : {}),
    // How the outputs were read comes and goes with them; a re-extraction keeps what it repeated.
    ...(replace ? { reading: outcome.reading ? JSON.stringify(outcome.reading) : null } : {}),
  };
  const added = (outcome.artifacts ?? []).map(({ render, ...a }) => ({ ...a, render: render ?? null, id: newId('art') }));
  const detail = JSON.stringify(outcome.failure_code ? { failure_code: outcome.failure_code } : {});
  const { rows } = await executePrepared(db, sql<{ id: string; deleted_at: Date | null }>`
    WITH settled AS (${guardedUpdate(db, job, workerId, values, cancel)}),
    event AS (
      INSERT INTO job_events (tenant_id, job_id, kind, from_status, to_status, attempt, worker, detail)
      SELECT ${job.tenant_id}, id, ${outcome.status === 'failed' ? 'failed' : 'completed'}, 'processing', ${outcome.status}, ${job.attempts}::int, ${workerId}, ${detail}::jsonb FROM settled),
    cleared AS (
      DELETE FROM artifacts
       WHERE ${replace}::boolean AND tenant_id = ${job.tenant_id} AND job_id IN (SELECT id FROM settled) AND kind <> 'source'),
    added AS (
      INSERT INTO artifacts (id, tenant_id, job_id, kind, page_number, filename, content_type, size_bytes, sha256, render)
      SELECT a.id, ${job.tenant_id}, s.id, a.kind, a.page_number, a.filename, a.content_type, a.size_bytes, a.sha256, a.render
        FROM settled s, jsonb_to_recordset(${JSON.stringify(added)}::jsonb)
             AS a(id text, kind text, page_number int, filename text, content_type text, size_bytes bigint, sha256 text, render jsonb))
    SELECT id, deleted_at FROM settled`);
  return rows[0];
}

/**
 * Settles a run as terminal. Returns false when this worker no longer holds the lease. A job whose
 * cancel was requested meanwhile (a cancel or a delete that found it processing, and answered so)
 * ends cancelled, whatever the run's outcome: its result is dropped and no review opens. The guard
 * is in the statement, so a cancel committed while the settle waited for the job's lock counts too.
 */
export async function settle(db: Db, job: Job, workerId: string, outcome: Outcome): Promise<boolean> {
  return (await settleRun(db, job, workerId, outcome)) !== null;
}

/** settle, answering how the job ended: with the run's outcome, cancelled instead, or not at all (lease lost). */
export async function settleRun(db: Db, job: Job, workerId: string, outcome: Outcome): Promise<'settled' | 'cancelled' | null> {
  if (outcome.failure_code === 'cancelled') return (await settleOnce(db, job, workerId, outcome, 'any')) ? 'cancelled' : null;
  if (await settleOnce(db, job, workerId, outcome, 'absent')) return 'settled';
  return (await settleOnce(db, job, workerId, CANCELLED, 'present')) ? 'cancelled' : null;
}

async function settleOnce(db: Db, job: Job, workerId: string, outcome: Outcome, cancel: CancelGuard): Promise<boolean> {
  // A review to open or a batch to count needs a transaction around the writes; the rest is one statement.
  if (outcome.status !== 'needs_review' && !job.batch_id) return !!(await settleWrites(db, job, workerId, outcome, cancel));
  return db.transaction().execute(async (tx) => {
    const updated = await settleWrites(tx, job, workerId, outcome, cancel);
    if (!updated) return false;
    // A job deleted without a cancel (none is: a delete of a running job requests one) gets no
    // open review either: it is closed_by_delete at once, and restoring the job opens it again.
    if (outcome.status === 'needs_review') await openReview(tx, job.tenant_id, job.id, outcome.review_reasons ?? [], { deleted: !!updated.deleted_at });
    await moveInBatch(tx, job, updated, outcome.status);
    return true;
  });
}

/**
 * Gives a job back to the queue after a transient failure, to run again after `delaySeconds`
 * (or, when `countAttempt` is false, e.g. on shutdown, as if this run never happened). A job whose
 * cancel was requested is not run again: it settles cancelled instead.
 */
export async function release(db: Db, job: Job, workerId: string, delaySeconds: number, reason: string, countAttempt = true): Promise<boolean> {
  const released = await releaseOnce(db, job, workerId, delaySeconds, reason, countAttempt);
  return released ?? settleOnce(db, job, workerId, CANCELLED, 'present');
}

async function releaseOnce(db: Db, job: Job, workerId: string, delaySeconds: number, reason: string, countAttempt: boolean): Promise<boolean | null> {
  return db.transaction().execute(async (tx) => {
    const updated = await guardedUpdate(
      tx,
      job,
      workerId,
      {
        status: 'queued',
        run_after: sql`now() + make_interval(secs => ${delaySeconds})`,
        heartbeat_at: null,
        ...(countAttempt ? {} : { attempts: sql`greatest(attempts - 1, 0)` }),
      },
      'absent',
    ).executeTakeFirst();
    if (!updated) return null;
    await recordEvent(tx, { tenantId: job.tenant_id, jobId: job.id, kind: 'released', from: 'processing', to: 'queued', attempt: job.attempts, worker: workerId, detail: { reason, retry_in_seconds: delaySeconds } });
    await moveInBatch(tx, job, updated, 'queued');
    await notifyQueued(tx);
    return true;
  });
}
