// Batches: many files, one set of settings. Every job of a batch is an ordinary document job (so
// the queue, retries and recovery need nothing special); the batch keeps counts and a status
// computed from its jobs in the same transaction as every change to them.
import type { Db, Tx } from '../../db/database.js';
import type { Batch } from '../../db/documents-schema.js';
import { conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageRequest } from '../../lib/pagination.js';
import { notifyQueued } from '../../queue/notify.js';
import { storeStaged } from '../../storage/blob-registry.js';
import { discardStaged } from '../../storage/staging.js';
import { IdempotentReplay, claimKey, replayOf, requestHash } from '../documents/idempotency.repository.js';
import { type JobSummary, isTerminal, listJobs, lockJob } from '../documents/jobs.repository.js';
import { type ReprocessBody, cancelLocked, reprocessChanges, requeue, validateReprocessBody } from '../documents/jobs.service.js';
import {
  type DocumentsDeps,
  type JobSettings,
  PRIORITY_BATCH,
  type UploadedFile,
  actorOf,
  assertTemplateFitsMode,
  checkReferences,
  holdLiveTenant,
  insertJob,
} from '../documents/submit.service.js';
import { type UploadVerdict, sniffUpload } from '../documents/upload-sniff.js';
import type { Principal } from '../identity/principal.js';
import { resendBatchDeliveries } from '../../delivery/reconcile.js';
import { findBatch, insertBatch, listBatches, lockBatchJobs, refreshBatch, setBatchCancelRequested } from './batches.repository.js';

export interface BatchInput {
  files: UploadedFile[];
  name: string | null;
  settings: JobSettings;
  destinationConfig: Record<string, unknown> | null;
  idempotencyKey: string | null;
}

export async function createBatch(deps: DocumentsDeps, p: Principal, input: BatchInput): Promise<{ batchId: string; replayed: boolean }> {
  const { db } = deps;
  try {
    assertTemplateFitsMode(input.settings.template_id, input.settings.processing_mode);
    const hash = requestHash({
      files: input.files.map((f) => [f.staged.sha256, f.filename]),
      name: input.name,
      settings: input.settings,
      destination_config: input.destinationConfig,
    });
    if (input.idempotencyKey) {
      const prior = await replayOf(db, p.tenantId, 'batches', input.idempotencyKey, hash);
      if (prior) return { batchId: prior, replayed: true };
    }
    await checkReferences(db, p.tenantId, input.settings);
    const verdicts: UploadVerdict[] = [];
    for (const file of input.files) {
      verdicts.push(await sniffUpload(file.staged));
      await storeStaged(db, deps.blobs, file.staged);
    }
    try {
      const batchId = await db.transaction().execute(async (tx) => {
        await holdLiveTenant(tx, p);
        const batch = await insertBatch(tx, {
          id: newId('bat'),
          tenant_id: p.tenantId,
          name: input.name,
          template_id: input.settings.template_id,
          processing_mode: input.settings.processing_mode,
          page_range: input.settings.page_range,
          page_cap_policy: input.settings.page_cap_policy,
          destination_connection_id: input.settings.destination_connection_id,
          destination_config: input.destinationConfig,
          created_by: actorOf(p),
        });
        for (const [i, file] of input.files.entries()) {
          await insertJob(tx, {
            tenantId: p.tenantId,
            actor: actorOf(p),
            batchId: batch.id,
            settings: input.settings,
            metadata: {},
            file,
            verdict: verdicts[i]!,
            priority: PRIORITY_BATCH,
            maxAttempts: deps.config.jobMaxAttempts,
          });
        }
        if (input.idempotencyKey && !(await claimKey(tx, p.tenantId, 'batches', input.idempotencyKey, hash, batch.id))) throw new IdempotentReplay();
        await refreshBatch(tx, p.tenantId, batch.id);
        await notifyQueued(tx);
        return batch.id;
      });
      return { batchId, replayed: false };
    } catch (err) {
      if (!(err instanceof IdempotentReplay)) throw err;
      const prior = await replayOf(db, p.tenantId, 'batches', input.idempotencyKey!, hash);
      if (!prior) throw err;
      return { batchId: prior, replayed: true };
    }
  } finally {
    for (const file of input.files) await discardStaged(file.staged);
  }
}

export async function getBatch(db: Db, p: Principal, batchId: string): Promise<Batch> {
  const batch = await findBatch(db, p.tenantId, batchId);
  if (!batch) throw notFound(`Batch ${batchId}`);
  return batch;
}

export async function listBatchPage(db: Db, p: Principal, filters: { status?: string; created_after?: string; created_before?: string; q?: string }, page: PageRequest) {
  return listBatches(db, p.tenantId, filters, page);
}

export async function listBatchJobs(db: Db, p: Principal, batchId: string, filters: { status?: JobSummary['status'] }, page: PageRequest) {
  await getBatch(db, p, batchId);
  return listJobs(db, p.tenantId, { ...filters, batch_id: batchId }, page);
}

/**
 * Runs `act` on every live job of the batch (locked in id order), then refreshes the batch.
 * `requeues`: the act may queue jobs again, so the tenant is held first (holdLiveTenant).
 */
async function eachJob(
  db: Db,
  p: Principal,
  batchId: string,
  requeues: boolean,
  act: (tx: Tx, job: JobSummary) => Promise<boolean>,
  after?: (tx: Tx, affected: string[]) => Promise<void>,
): Promise<{ batch: Batch; affected: string[] }> {
  return db.transaction().execute(async (tx) => {
    if (requeues) await holdLiveTenant(tx, p);
    if (!(await findBatch(tx, p.tenantId, batchId))) throw notFound(`Batch ${batchId}`);
    const affected: string[] = [];
    for (const { id } of await lockBatchJobs(tx, p.tenantId, batchId)) {
      const job = (await lockJob(tx, p.tenantId, id))!;
      if (await act(tx, job)) affected.push(id);
    }
    await after?.(tx, affected);
    const batch = (await refreshBatch(tx, p.tenantId, batchId))!;
    return { batch, affected };
  });
}

/** Cancels every job not yet finished; 409 when every job already has. */
export async function cancelBatch(db: Db, p: Principal, batchId: string) {
  return eachJob(
    db,
    p,
    batchId,
    false,
    async (tx, job) => {
      if (isTerminal(job.status)) return false;
      await cancelLocked(tx, p, job);
      return true;
    },
    async (tx, affected) => {
      if (!affected.length) throw conflict('batch_finished', `Every job of batch ${batchId} has already finished; there is nothing to cancel.`);
      await setBatchCancelRequested(tx, p.tenantId, batchId, true);
    },
  );
}

/** Retries the failed and rejected jobs (none is not an error: the answer lists what changed). */
export async function retryFailed(db: Db, p: Principal, batchId: string) {
  return eachJob(
    db,
    p,
    batchId,
    true,
    async (tx, job) => {
      if (job.status !== 'failed' && job.status !== 'rejected') return false;
      await requeue(tx, p, job, 'retried', {}, { via: 'batch' });
      return true;
    },
    async (tx, affected) => {
      if (affected.length) await setBatchCancelRequested(tx, p.tenantId, batchId, false);
    },
  );
}

/** The job reprocess body applied to every finished job of the batch (the same rules; 400 for any job it does not fit). */
export async function reprocessBatch(db: Db, p: Principal, batchId: string, body: ReprocessBody = {}) {
  validateReprocessBody(body);
  // Rule 2 on the body itself: a template with a mode that does not extract is 400 whether or not
  // any job of the batch has finished yet (each job's kept mode is checked as it is requeued).
  if (body.processing_mode) assertTemplateFitsMode(body.template_id, body.processing_mode);
  const result = await eachJob(
    db,
    p,
    batchId,
    true,
    async (tx, job) => {
      if (!isTerminal(job.status)) return false;
      await requeue(tx, p, job, 'reprocessed', reprocessChanges(job, body), { changes: body, via: 'batch' });
      return true;
    },
    async (tx, affected) => {
      if (body.template_id) await checkReferences(tx, p.tenantId, { template_id: body.template_id });
      if (affected.length) await setBatchCancelRequested(tx, p.tenantId, batchId, false);
    },
  );
  return result;
}

/** Recomputes counts and status from the jobs, and re-sends destination deliveries that never arrived. */
export async function reconcileBatch(db: Db, p: Principal, batchId: string) {
  return db.transaction().execute(async (tx) => {
    if (!(await findBatch(tx, p.tenantId, batchId))) throw notFound(`Batch ${batchId}`);
    await lockBatchJobs(tx, p.tenantId, batchId);
    const batch = (await refreshBatch(tx, p.tenantId, batchId))!;
    return { batch, deliveries: await resendBatchDeliveries(tx, batch) };
  });
}
