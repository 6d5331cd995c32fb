// Job state changes requested through the API, each one transaction: lock the job, check the
// rule, change it, record the history, refresh its batch and wake the workers. The status
// guards in the repository keep a racing worker from being overwritten.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { Job, ProcessingMode } from '../../db/documents-schema.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { type PageRequest } from '../../lib/pagination.js';
import { parsePageRange } from '../../pipeline/ingest/page-range.js';
import { CANCELLED_MESSAGE } from '../../queue/lease.js';
import { RESTORE_WINDOW_DAYS } from '../../queue/maintenance.js';
import { notifyCancel, notifyQueued } from '../../queue/notify.js';
import { refreshBatch, setBatchCancelRequested } from '../batches/batches.repository.js';
import type { Principal } from '../identity/principal.js';
import { reopenAfterRestore, resolveOpen } from '../reviews/reviews.repository.js';
import { templateIsLive } from './references.js';
import {
  type JobFilters,
  type JobSummary,
  type Requeue,
  artifactsOf,
  cancelQueued,
  findCanonicalArtifact,
  findJob,
  isTerminal,
  listJobs,
  lockJob,
  recordEvent,
  requestCancel,
  requeueTerminal,
  setDeleted,
} from './jobs.repository.js';
import { actorOf, assertTemplateFitsMode, checkReferences, holdLiveTenant } from './submit.service.js';

export async function getJob(db: Db, p: Principal, jobId: string) {
  const job = await findJob(db, p.tenantId, jobId);
  if (!job) throw notFound(`Job ${jobId}`);
  const artifacts = (await artifactsOf(db, p.tenantId, [job.id])).get(job.id) ?? [];
  return { job, artifacts };
}

export async function listJobPage(db: Db, p: Principal, filters: JobFilters, page: PageRequest) {
  const result = await listJobs(db, p.tenantId, filters, page);
  const artifacts = await artifactsOf(db, p.tenantId, result.items.map((j) => j.id), { withPageImages: false });
  return { items: result.items.map((job) => ({ job, artifacts: artifacts.get(job.id) ?? [] })), next_cursor: result.next_cursor };
}

async function locked(tx: Tx, p: Principal, jobId: string, options: { allowDeleted?: boolean } = {}): Promise<JobSummary> {
  const job = await lockJob(tx, p.tenantId, jobId);
  if (!job) throw notFound(`Job ${jobId}`);
  if (job.deleted_at && !options.allowDeleted) {
    throw conflict('job_deleted', `Job ${jobId} is deleted. Restore it first (POST /v1/documents/${jobId}/restore).`);
  }
  return job;
}

async function afterChange(tx: Tx, job: JobSummary, requeued: boolean): Promise<void> {
  if (job.batch_id) await refreshBatch(tx, job.tenant_id, job.batch_id);
  if (requeued) await notifyQueued(tx);
}

/** queued → failed (cancelled) at once; processing → stops at the next checkpoint; terminal → 409. */
export async function cancelJob(db: Db, p: Principal, jobId: string): Promise<JobSummary> {
  return db.transaction().execute(async (tx) => {
    const job = await locked(tx, p, jobId);
    if (isTerminal(job.status)) throw conflict('job_finished', `Job ${jobId} has already finished (${job.status}); there is nothing to cancel.`);
    return cancelLocked(tx, p, job);
  });
}

export async function cancelLocked(tx: Tx, p: Principal, job: JobSummary): Promise<JobSummary> {
  // Asked already: the worker stops it at its next checkpoint; no second event or wake-up.
  if (job.status === 'processing' && job.cancel_requested) return job;
  const changed = job.status === 'queued' ? await cancelQueued(tx, p.tenantId, job.id, CANCELLED_MESSAGE) : await requestCancel(tx, p.tenantId, job.id);
  if (!changed) return job;
  await recordEvent(tx, {
    tenantId: p.tenantId,
    jobId: job.id,
    kind: changed.status === 'failed' ? 'cancelled' : 'cancel_requested',
    from: job.status,
    to: changed.status,
    actor: actorOf(p),
  });
  await afterChange(tx, changed, false);
  if (changed.status === 'processing') await notifyCancel(tx, changed.id);
  return changed;
}

/** The transaction has called holdLiveTenant first (a deletion must not miss the job it queues). */
export async function requeue(tx: Tx, p: Principal, job: JobSummary, kind: string, changes: Requeue, detail: Record<string, unknown> = {}): Promise<JobSummary> {
  const updated = await requeueTerminal(tx, p.tenantId, job.id, changes);
  if (!updated) throw conflict('job_not_terminal', `Job ${job.id} is ${job.status}; wait until it finishes.`);
  await recordEvent(tx, { tenantId: p.tenantId, jobId: job.id, kind, from: job.status, to: 'queued', actor: actorOf(p), detail });
  // A review still open is about the run being replaced: it closes now (the new run opens its own
  // if it needs one). Left open, it outlived a run that completed, and every action on it was 409.
  await resolveOpen(tx, p.tenantId, job.id, { status: 'reprocessed', resolvedBy: actorOf(p), resolution: 'superseded', note: 'The job was sent to run again.' });
  // A job of a cancelled batch sent to run again (retry, reprocess, reextract, a review's
  // reprocess) takes the batch's cancel back, as the batch's own retry-failed and reprocess do:
  // once its jobs end, the batch is completed or completed_with_errors as they say, not cancelled
  // again with a job that ran to the end.
  if (updated.batch_id) await setBatchCancelRequested(tx, p.tenantId, updated.batch_id, false);
  await afterChange(tx, updated, true);
  return updated;
}

/** failed/rejected → queued with the same input and settings; anything else is 409. */
export async function retryJob(db: Db, p: Principal, jobId: string): Promise<JobSummary> {
  return db.transaction().execute(async (tx) => {
    await holdLiveTenant(tx, p);
    const job = await locked(tx, p, jobId);
    if (job.status !== 'failed' && job.status !== 'rejected') {
      const hint = job.status === 'completed' || job.status === 'needs_review' ? ' Use POST /v1/documents/{job_id}/reprocess to run a finished job again.' : ' Wait until it finishes.';
      throw conflict('job_not_retryable', `Only failed or rejected jobs can be retried; job ${jobId} is ${job.status}.${hint}`);
    }
    return requeue(tx, p, job, 'retried', {});
  });
}

export interface ReprocessBody {
  template_id?: string | null;
  clear_template?: boolean;
  processing_mode?: ProcessingMode | null;
  page_range?: string | null;
}

/** interface.md rule 1: clear_template together with a template_id fails request validation (422). */
export function validateReprocessBody(body: ReprocessBody | undefined): void {
  if (body?.clear_template === true && body.template_id != null) {
    throw validationError([
      {
        loc: ['body'],
        msg: 'Value error, clear_template cannot be combined with template_id: send one or the other',
        type: 'value_error',
        input: body,
        ctx: { error: 'clear_template and template_id are mutually exclusive' },
      },
    ]);
  }
  validatePageRange(body?.page_range, ['body', 'page_range']);
}

export function validatePageRange(value: string | null | undefined, loc: (string | number)[]): void {
  if (value === undefined || value === null || value.trim() === '') return;
  try {
    parsePageRange(value);
  } catch (err) {
    throw validationError([{ loc, msg: `Value error, ${(err as Error).message}`, type: 'value_error', input: value, ctx: { error: (err as Error).message } }]);
  }
}

/** What a reprocess body makes of a job's settings (rules in interface.md; 400 for rule 2). */
export function reprocessChanges(job: Pick<Job, 'processing_mode' | 'template_id' | 'page_range'>, body: ReprocessBody): Requeue & { processing_mode: ProcessingMode } {
  const mode = body.processing_mode ?? job.processing_mode;
  // Rule 2: a template swapped in must meet extraction mode (the mode asked for, or kept).
  assertTemplateFitsMode(body.template_id, mode);
  const template = body.clear_template ? null : (body.template_id ?? job.template_id);
  // Absent keeps the selection; null (or "") widens back to every page.
  const pageRange = body.page_range === undefined ? job.page_range : body.page_range?.trim() ? body.page_range.trim() : null;
  return { processing_mode: mode, template_id: template, page_range: pageRange, run_kind: 'full' };
}

/**
 * A job's own template, kept for its next extraction, that was deleted since: the run would fail
 * only at its end (template_not_found), a full run taking the job's result and outputs with it.
 */
export async function assertKeptTemplateLive(tx: Tx, tenantId: string, job: Pick<Job, 'id'>, next: { template_id?: string | null; processing_mode: ProcessingMode }, remedy: string): Promise<void> {
  if (!next.template_id || next.processing_mode !== 'extraction') return;
  if (await templateIsLive(tx, tenantId, next.template_id)) return;
  throw conflict('template_deleted', `The template of job ${job.id}, ${next.template_id}, was deleted. ${remedy}`);
}

const KEPT_TEMPLATE_REMEDY = 'Send another template_id, or clear_template: true to classify the document again.';

/** Any terminal job → queued, template kept, cleared or swapped, mode and page range changed. */
export async function reprocessJob(db: Db, p: Principal, jobId: string, body: ReprocessBody = {}): Promise<JobSummary> {
  validateReprocessBody(body);
  return db.transaction().execute(async (tx) => {
    await holdLiveTenant(tx, p);
    const job = await locked(tx, p, jobId);
    const changes = reprocessChanges(job, body);
    if (!isTerminal(job.status)) throw conflict('job_not_terminal', `Job ${jobId} is ${job.status}; only a finished job can be reprocessed. Cancel it first, or wait.`);
    if (body.template_id) await checkReferences(tx, p.tenantId, { template_id: body.template_id });
    else await assertKeptTemplateLive(tx, p.tenantId, job, changes, KEPT_TEMPLATE_REMEDY);
    return requeue(tx, p, job, 'reprocessed', changes, { changes: body });
  });
}

/**
 * Extraction again on the stored canonical output (no re-reading of the file, no OCR). The job's
 * mode becomes `extraction`; template_id, when given, swaps the template.
 */
export async function reextractJob(db: Db, p: Principal, jobId: string, body: { template_id?: string | null } = {}): Promise<JobSummary> {
  return db.transaction().execute(async (tx) => {
    await holdLiveTenant(tx, p);
    const job = await locked(tx, p, jobId);
    if (!isTerminal(job.status)) throw conflict('job_not_terminal', `Job ${jobId} is ${job.status}; wait until it finishes.`);
    if (!(await findCanonicalArtifact(tx, p.tenantId, jobId))) {
      throw conflict('no_canonical_output', `Job ${jobId} has no stored canonical output to extract from (it failed before one was made). Use reprocess to run it from the file.`);
    }
    if (body.template_id) await checkReferences(tx, p.tenantId, { template_id: body.template_id });
    else await assertKeptTemplateLive(tx, p.tenantId, job, { template_id: job.template_id, processing_mode: 'extraction' }, 'Send another template_id, or reprocess with clear_template: true to classify the document again.');
    return requeue(tx, p, job, 'reextract', { processing_mode: 'extraction', template_id: body.template_id ?? job.template_id, run_kind: 'reextract' }, { template_id: body.template_id ?? null });
  });
}

/** Soft delete: hidden from lists, restorable for 30 days; a job still queued or running is cancelled. */
export async function deleteJob(db: Db, p: Principal, jobId: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const job = await locked(tx, p, jobId, { allowDeleted: true });
    if (job.deleted_at) return;
    const current = isTerminal(job.status) ? job : await cancelLocked(tx, p, job);
    const deleted = await setDeleted(tx, p.tenantId, jobId, true);
    await recordEvent(tx, { tenantId: p.tenantId, jobId, kind: 'deleted', from: current.status, to: current.status, actor: actorOf(p) });
    await resolveOpen(tx, p.tenantId, jobId, { status: 'closed_by_delete', resolvedBy: actorOf(p), resolution: 'closed_by_delete', note: 'The job was deleted.' });
    await afterChange(tx, deleted ?? current, false);
  });
}

export async function restoreJob(db: Db, p: Principal, jobId: string): Promise<JobSummary> {
  return db.transaction().execute(async (tx) => {
    const job = await locked(tx, p, jobId, { allowDeleted: true });
    if (!job.deleted_at) throw conflict('job_not_deleted', `Job ${jobId} is not deleted; there is nothing to restore.`);
    const { rows } = await sql<{ expired: boolean }>`SELECT ${job.deleted_at} < now() - make_interval(days => ${RESTORE_WINDOW_DAYS}) AS expired`.execute(tx);
    if (rows[0]?.expired) {
      throw conflict('restore_window_passed', `Job ${jobId} was deleted more than ${RESTORE_WINDOW_DAYS} days ago and can no longer be restored; upload the file again.`);
    }
    const restored = (await setDeleted(tx, p.tenantId, jobId, false))!;
    await recordEvent(tx, { tenantId: p.tenantId, jobId, kind: 'restored', from: job.status, to: job.status, actor: actorOf(p) });
    if (restored.status === 'needs_review') await reopenAfterRestore(tx, p.tenantId, jobId);
    await afterChange(tx, restored, false);
    return restored;
  });
}

/** What a client needs to send a replacement file with the same settings (decisions.md). */
export async function reuploadContext(db: Db, p: Principal, jobId: string) {
  const job = await findJob(db, p.tenantId, jobId);
  if (!job) throw notFound(`Job ${jobId}`);
  // page_cap_policy is a setting too: a job of a `truncate` batch sent again without it would fail over the cap.
  const fields: Record<string, unknown> = { processing_mode: job.processing_mode, page_cap_policy: job.page_cap_policy };
  if (job.template_id) fields.template_id = job.template_id;
  if (job.page_range) fields.page_range = job.page_range;
  if (job.destination_connection_id) fields.destination_connection_id = job.destination_connection_id;
  if (Object.keys(job.metadata ?? {}).length) fields.metadata = JSON.stringify(job.metadata);
  return {
    original_filename: job.original_filename,
    template_id: job.template_id,
    processing_mode: job.processing_mode,
    page_range: job.page_range,
    page_cap_policy: job.page_cap_policy,
    batch_id: job.batch_id,
    metadata: job.metadata,
    destination_connection_id: job.destination_connection_id,
    upload: { method: 'POST' as const, url: '/v1/documents', content_type: 'multipart/form-data' as const, fields },
  };
}
