// The review loop (decisions.md "Reviews"): open (pending → in_review), approve, override (a JSON
// merge patch on extraction.data, validation and the decision run again, the reviewer's edits
// kept in the job's history) and reprocess. Each action is one transaction that locks the job,
// then its review (the one lock order of every job change); an action on a review no longer
// pending/in_review, or whose job was deleted or moved on, is 409.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { Review } from '../../db/reviews-schema.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import type { PageRequest } from '../../lib/pagination.js';
import { mergePatch } from '../../lib/merge-patch.js';
import { type ExtractionResult, type FieldResult, type Rule, decide, runRules, schemaFields } from '../../pipeline/extract/index.js';
import { refreshBatch } from '../batches/batches.repository.js';
import { assertKeptTemplateLive, requeue, reprocessChanges } from '../documents/jobs.service.js';
import { artifactsOf, findJob, lockJob, recordEvent } from '../documents/jobs.repository.js';
import { actorOf, checkReferences, holdLiveTenant } from '../documents/submit.service.js';
import type { Principal } from '../identity/principal.js';
import { templateForRun } from '../templates/templates.service.js';
import { recordExemplarOfJob } from '../classification/classification.service.js';
import { type ReviewFilters, findReview, listReviews, lockReview, updateReview } from './reviews.repository.js';
import { patchProblems } from './reviewer-data.js';

const isOpen = (r: Pick<Review, 'status'>) => r.status === 'pending' || r.status === 'in_review';

export async function listReviewPage(db: Db, p: Principal, filters: ReviewFilters, page: PageRequest) {
  return listReviews(db, p.tenantId, filters, page);
}

/** The review with its job (result and artifacts); a member opening a pending review starts it. */
export async function reviewDetail(db: Db, p: Principal, reviewId: string, options: { open?: boolean } = {}) {
  if (options.open) {
    await db.transaction().execute(async (tx) => {
      const review = await lockReview(tx, p.tenantId, reviewId);
      if (review?.status === 'pending') await updateReview(tx, p.tenantId, reviewId, { status: 'in_review' });
    });
  }
  const review = await findReview(db, p.tenantId, reviewId);
  if (!review) throw notFound(`Review ${reviewId}`);
  const job = (await findJob(db, p.tenantId, review.job_id))!;
  const artifacts = (await artifactsOf(db, p.tenantId, [job.id])).get(job.id) ?? [];
  return { review, job, artifacts };
}

/**
 * Locks the review's job, then the review: the order every other change takes (a job's delete,
 * reprocess, retry, a batch's bulk actions, the worker's settle lock the job and then update its
 * reviews). Locking the review first deadlocked with them (40P01, answered 500); now one waits for
 * the other and finds the state it left, a 409.
 */
async function lockOpen(tx: Tx, p: Principal, reviewId: string) {
  const seen = await findReview(tx, p.tenantId, reviewId);
  if (!seen) throw notFound(`Review ${reviewId}`);
  const job = await lockJob(tx, p.tenantId, seen.job_id);
  const review = await lockReview(tx, p.tenantId, reviewId);
  if (!job || !review) throw notFound(`Review ${reviewId}`);
  if (!isOpen(review)) {
    throw conflict('review_resolved', `Review ${reviewId} is ${review.status}; only a pending or in_review review can be acted on.`);
  }
  // A deleted job's reviews are closed_by_delete; an open one (left by a version that let a run
  // settle after the delete) must not complete a job nobody can see. 409 as for every other
  // action on a deleted job (docs/documents.md), not 404: the review is readable, and restore works.
  if (job.deleted_at) {
    throw conflict('job_deleted', `Job ${job.id} of review ${reviewId} is deleted. Restore it first (POST /v1/documents/${job.id}/restore); its review opens again.`);
  }
  if (job.status !== 'needs_review') {
    throw conflict('job_not_in_review', `Job ${job.id} of review ${reviewId} is ${job.status}, no longer needs_review.`);
  }
  return { review, job };
}

/**
 * One entry of the job's review history: every reviewer action, oldest first. The history has a
 * column of its own, so a later run of the job (reprocess, retry, re-extraction), which replaces
 * the result, keeps it.
 */
type HistoryEntry = { review_id: string; action: 'approve' | 'override' | 'reprocess'; by: string | null; at: string; note: string | null } & Record<string, unknown>;

const appendHistory = (entry: HistoryEntry) => sql<string>`review_history || ${JSON.stringify([entry])}::jsonb`;

async function completeJob(tx: Tx, p: Principal, jobId: string, kind: string, detail: Record<string, unknown>, entry: HistoryEntry, result?: Record<string, unknown>) {
  const job = await tx
    .updateTable('jobs')
    .set({ status: 'completed', updated_at: sql`now()`, review_history: appendHistory(entry), ...(result ? { result: JSON.stringify(result) } : {}) })
    .where('tenant_id', '=', p.tenantId)
    .where('id', '=', jobId)
    .where('status', '=', 'needs_review')
    .returning(['id', 'batch_id', 'tenant_id'])
    .executeTakeFirstOrThrow();
  await recordEvent(tx, { tenantId: p.tenantId, jobId, kind, from: 'needs_review', to: 'completed', actor: actorOf(p), detail });
  if (job.batch_id) await refreshBatch(tx, p.tenantId, job.batch_id);
}

export async function approveReview(db: Db, p: Principal, reviewId: string, note: string | null = null) {
  await db.transaction().execute(async (tx) => {
    const { review, job } = await lockOpen(tx, p, reviewId);
    const by = actorOf(p);
    await completeJob(tx, p, job.id, 'review_approved', { review_id: review.id, note }, { review_id: review.id, action: 'approve', by, at: new Date().toISOString(), note });
    await updateReview(tx, p.tenantId, review.id, { status: 'approved', resolved: true, resolved_by: by, resolution: 'approved', resolution_note: note });
  });
  await recordExemplarOfJob(db, p.tenantId, (await findReview(db, p.tenantId, reviewId))!.job_id, 'approved');
  return reviewDetail(db, p, reviewId);
}

export async function overrideReview(db: Db, p: Principal, reviewId: string, patch: Record<string, unknown>, note: string | null = null) {
  await db.transaction().execute(async (tx) => {
    const { review, job } = await lockOpen(tx, p, reviewId);
    const row = await tx.selectFrom('jobs').select('result').where('id', '=', job.id).executeTakeFirstOrThrow();
    const result = (row.result ?? {}) as Record<string, unknown>;
    const extraction = result.extraction as ExtractionResult | undefined;
    if (!extraction) throw conflict('no_extraction', `Job ${job.id} has no extraction result to override; approve or reprocess review ${reviewId} instead.`);
    const before = extraction.data;
    // The template version the job used: its fields say what the patch may hold.
    const template = extraction.template_id ? await templateForRun(tx as unknown as Db, p.tenantId, extraction.template_id, extraction.template_version) : undefined;
    if (template) {
      const problems = patchProblems(schemaFields(template.json_schema), patch, template.json_schema);
      if (problems.length) throw validationError(problems);
    }
    const data = mergePatch(before, patch) as Record<string, unknown>;
    // Validation and the decision again, on the reviewer's data: what the reviewer set is certain.
    const outcome = runRules((template?.validation_rules ?? []) as Rule[], data);
    const decision = decide({ confidences: {}, validation: outcome.entries, rejected: outcome.rejected, thresholds: null, policy: { review_confidence_floor: 0, review_agreement_floor: 0, review_warn_count_threshold: Number.MAX_SAFE_INTEGER } });
    const fields = reviewedFields(extraction.fields, before, data);
    const by = actorOf(p);
    const entry: HistoryEntry = { review_id: review.id, action: 'override', by, at: new Date().toISOString(), note, patch, before, after: data, validation: outcome.entries };
    // A result stored before the history had its own column carries it inside; the column has it now.
    const { review_history: _moved, ...kept } = result;
    const next = { ...kept, extraction: { ...extraction, data, fields, validation: outcome.entries, review_reasons: decision.review_reasons } };
    await completeJob(tx, p, job.id, 'review_overridden', { review_id: review.id, note, patch, before }, entry, next);
    await updateReview(tx, p.tenantId, review.id, { status: 'overridden', resolved: true, resolved_by: by, resolution: 'overridden', resolution_note: note });
  });
  await recordExemplarOfJob(db, p.tenantId, (await findReview(db, p.tenantId, reviewId))!.job_id, 'overridden');
  return reviewDetail(db, p, reviewId);
}

export async function reprocessReview(db: Db, p: Principal, reviewId: string, templateId: string | null = null) {
  await db.transaction().execute(async (tx) => {
    await holdLiveTenant(tx, p);
    const { review, job } = await lockOpen(tx, p, reviewId);
    if (templateId) await checkReferences(tx, p.tenantId, { template_id: templateId });
    const changes = reprocessChanges(job, templateId ? { template_id: templateId } : {});
    if (!templateId) await assertKeptTemplateLive(tx, p.tenantId, job, changes, 'Send another template_id to reprocess with.');
    // Resolve first: the job's next run may open a new review of its own.
    await updateReview(tx, p.tenantId, review.id, { status: 'reprocessed', resolved: true, resolved_by: actorOf(p), resolution: 'reprocessed', resolution_note: templateId ? `template_id ${templateId}` : null });
    const entry: HistoryEntry = { review_id: review.id, action: 'reprocess', by: actorOf(p), at: new Date().toISOString(), note: null, template_id: templateId };
    await tx.updateTable('jobs').set({ review_history: appendHistory(entry) }).where('tenant_id', '=', p.tenantId).where('id', '=', job.id).execute();
    await requeue(tx, p, job, 'reprocessed', changes, { review_id: review.id, template_id: templateId });
  });
  return reviewDetail(db, p, reviewId);
}

/**
 * extraction.fields after an override: a value the reviewer changed is theirs (confidence 1, no
 * evidence: the boxes found for the old value do not show the new one), a row the patch removed
 * loses its entries, and a row it added gets entries of its own. A row the reviewer left as it
 * was keeps its entries (value, confidence, evidence) wherever it now stands: removing a row
 * moves the rows after it up, and they are not edits.
 */
function reviewedFields(before: Record<string, FieldResult>, oldData: Record<string, unknown>, data: Record<string, unknown>): Record<string, FieldResult> {
  const edited = (value: unknown): FieldResult => ({ value: value ?? null, confidence: 1, evidence: [], edited_by_reviewer: true }) as FieldResult;
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  const fields: Record<string, FieldResult> = {};
  const rows = new Map<string, Set<string>>();
  for (const [path, field] of Object.entries(before)) {
    const row = /^(.*)\[(\d+)\](?:\.(.+))?$/.exec(path);
    if (row) {
      rows.set(row[1]!, (rows.get(row[1]!) ?? new Set()).add(row[3] ?? ''));
      continue;
    }
    const value = valueAt(data, path);
    fields[path] = same(value, field.value) ? field : edited(value);
  }
  for (const [array, columns] of rows) {
    const items = valueAt(data, array);
    if (!Array.isArray(items)) continue;
    const oldItems = valueAt(oldData, array);
    const old = Array.isArray(oldItems) ? oldItems : [];
    // Each row as it stands now takes the entries of the row it was: the same index if that row
    // is unchanged, else the first unchanged old row not yet taken (rows moved up by a removal).
    const taken = new Set<number>();
    const source = items.map((item, i) => {
      if (i < old.length && same(old[i], item) && !taken.has(i)) return (taken.add(i), i);
      return -1;
    });
    items.forEach((item, i) => {
      if (source[i] !== -1) return;
      const j = old.findIndex((o, k) => !taken.has(k) && same(o, item));
      if (j >= 0) (taken.add(j), (source[i] = j));
    });
    // A row the reviewer changed was the old row after the one before it (or the one at its index):
    // its unchanged cells keep their entries.
    items.forEach((_, i) => {
      if (source[i] !== -1) return;
      const j = i > 0 && source[i - 1]! >= 0 ? source[i - 1]! + 1 : i;
      if (j < old.length && !taken.has(j)) (taken.add(j), (source[i] = j));
    });
    items.forEach((item, i) => {
      const from = source[i]!;
      for (const column of columns) {
        const suffix = column ? `.${column}` : '';
        const path = `${array}[${i}]${suffix}`;
        const value = column ? valueAt(item, column) : item;
        const kept = from >= 0 ? before[`${array}[${from}]${suffix}`] : undefined;
        if (kept && same(value, kept.value)) fields[path] = kept;
        else if (value !== undefined || from < 0) fields[path] = edited(value);
      }
    });
  }
  return fields;
}

/** A field path of extraction.fields (`a.b`, `items[0].qty`) read from data. */
function valueAt(data: unknown, path: string): unknown {
  let cur: unknown = data;
  for (const part of path.split(/\.|(?=\[)/)) {
    if (cur === null || cur === undefined) return undefined;
    const index = /^\[(\d+)\]$/.exec(part);
    cur = index ? (Array.isArray(cur) ? cur[Number(index[1])] : undefined) : (cur as Record<string, unknown>)[part];
  }
  return cur;
}
