// One run of one claimed job, in stages with a cancel/lease checkpoint between each:
//   load the file → pipeline (worker thread) → store artifacts → settle.
// The lease is heartbeated all along; a cancel request, a lost lease, the job timeout or a
// shutdown stops the run at once (the pipeline thread is told, and ended if it does not stop).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Job } from '../db/documents-schema.js';
import { findCanonicalArtifact } from '../domain/documents/jobs.repository.js';
import type { EffectivePolicy } from '../domain/policy/policy.registry.js';
import type { PolicyService } from '../domain/policy/policy.service.js';
import { templateForRun } from '../domain/templates/templates.service.js';
import type { CanonicalJson, OcrReport } from '../pipeline/index.js';
import { type DecisionStatus, runEntities, runExtraction } from '../pipeline/extract/index.js';
import { runJudgedExtraction } from '../pipeline/extract/judge.js';
import { storeBytes } from '../storage/blob-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import { type NewArtifact, heartbeat, release, settle } from './lease.js';
import { PipelineFailure, type PipelinePool } from './pipeline-pool.js';
import { ocrPolicyOf } from './pipeline-task.js';
import { CLASSIFICATION_UNAVAILABLE, type StageOutput, buildResult } from './result.js';

export interface RunDeps {
  db: Db;
  blobs: BlobStore;
  policy: PolicyService;
  config: Config;
  pool: PipelinePool;
  log: Logger;
}

/** Page images for the console: 100 dpi keeps a letter page near 850x1100 px and ~40 ms to render. */
export const PAGE_IMAGE_DPI = 100;

type StopReason = 'cancelled' | 'timeout' | 'lease_lost' | 'shutdown';

class Stopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`run stopped: ${reason}`);
  }
}

const JUDGE_UNAVAILABLE_ON_REEXTRACT =
  'judge_mode_enabled is on, but a re-extraction reuses the stored canonical output and the second reading the judge compares against is not stored; reprocess the job to have the judge vote.';
const TIMEOUT_MESSAGE = 'Processing took longer than the time allowed. Split the document or send a page_range, then retry.';
const CANCELLED_MESSAGE = 'Processing was cancelled at your request. Retry the job to run it again.';

/** Seconds before a transient failure is retried: 5, 20, 80 … (capped at 10 minutes), with jitter. */
export function retryDelaySeconds(attempt: number): number {
  const base = Math.min(600, 5 * 4 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function baseName(filename: string | null): string {
  const name = (filename ?? 'document').replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[^\w.-]+/g, '_').slice(0, 100);
  return name || 'document';
}

/** Lets the worker stop a run from outside (a cancel NOTIFY for this job). */
export interface RunHandle {
  cancel(): void;
}

export async function runJob(deps: RunDeps, job: Job, workerId: string, shutdown: AbortSignal, onStart?: (handle: RunHandle) => void): Promise<void> {
  const { db, config, log } = deps;
  const controller = new AbortController();
  let reason: StopReason | null = null;
  const stop = (why: StopReason) => {
    if (reason) return;
    reason = why;
    controller.abort(new Stopped(why));
  };
  let pagesDone: number | null = null;
  const beat = setInterval(() => {
    heartbeat(db, job.id, workerId, config.jobLeaseSeconds, pagesDone).then(
      (answer) => {
        if (!answer.held) stop('lease_lost');
        else if (answer.cancelRequested) stop('cancelled');
      },
      (err) => log.warn({ err, jobId: job.id }, 'heartbeat failed; the lease may lapse'),
    );
  }, Math.max(500, (config.jobLeaseSeconds * 1000) / 3));
  const timer = setTimeout(() => stop('timeout'), config.jobTimeoutSeconds * 1000);
  const onShutdown = () => stop('shutdown');
  onStart?.({ cancel: () => stop('cancelled') });
  shutdown.addEventListener('abort', onShutdown, { once: true });
  // Between stages the job row itself is asked (a heartbeat): a cancel takes effect at the next
  // stage even when it arrived between two periodic heartbeats.
  const checkpoint = async () => {
    if (!reason) {
      const answer = await heartbeat(db, job.id, workerId, config.jobLeaseSeconds, pagesDone);
      if (!answer.held) stop('lease_lost');
      else if (answer.cancelRequested) stop('cancelled');
    }
    if (reason) throw new Stopped(reason);
  };

  try {
    if (job.cancel_requested) stop('cancelled');
    await checkpoint();
    let canonical: CanonicalJson;
    let format: string | null = null;
    let pageCount: number | null = job.page_count;
    let artifacts: NewArtifact[] | undefined;
    let ocr: OcrReport | null = null;
    let judgeCanonical: CanonicalJson | null = null;
    const stored = job.run_kind === 'reextract' ? await findCanonicalArtifact(db, job.tenant_id, job.id) : undefined;
    if (stored) {
      canonical = JSON.parse((await deps.blobs.readAll(stored.sha256)).toString('utf8')) as CanonicalJson;
      format = job.content_type;
    } else {
      const bytes = await deps.blobs.readAll(job.sha256);
      await checkpoint();
      const policy = await deps.policy.effective(job.tenant_id);
      const output = await deps.pool.run(
        {
          bytes,
          ...(job.page_range ? { pageRange: job.page_range } : {}),
          pdfMaxPages: policy.pdf_max_pages,
          pageCapPolicy: job.page_cap_policy,
          pptxNotesMode: policy.pptx_notes_mode,
          ocr: {
            policy: ocrPolicyOf(policy),
            pageTimeoutMs: config.ocrPageTimeoutSeconds * 1000,
            judge: policy.judge_mode_enabled && job.processing_mode === 'extraction',
          },
          renderDpi: PAGE_IMAGE_DPI,
        },
        {
          signal: controller.signal,
          abortKind: () => (reason === 'timeout' ? 'timeout' : 'cancelled'),
          onProgress: (done) => {
            pagesDone = done;
          },
        },
      );
      await checkpoint();
      canonical = output.canonical;
      format = output.format;
      pageCount = output.pageCount;
      ocr = output.ocr;
      judgeCanonical = output.judgeCanonical;
      artifacts = await storeArtifacts(deps, job, output.canonical, output.images);
    }
    await checkpoint();
    const stage = await extractStage(deps, job, canonical, await deps.policy.effective(job.tenant_id), judgeCanonical);
    await checkpoint();
    const { result, classification } = buildResult(
      job,
      canonical,
      {
        format,
        pageCount,
        pageImages: artifacts ? artifacts.filter((a) => a.kind === 'page_image').length : 0,
        reusedCanonical: !!stored,
        ocr,
      },
      stage.output,
    );
    const settled = await settle(db, job, workerId, {
      status: stage.status,
      result,
      page_count: pageCount,
      pages_processed: canonical.pages.length,
      classification,
      template_version: stage.templateVersion,
      review_reasons: stage.reviewReasons,
      ...(artifacts ? { artifacts } : {}),
    });
    if (!settled) log.warn({ jobId: job.id, workerId }, 'lost the lease before settling; another worker owns the job now');
    else log.info({ jobId: job.id, tenantId: job.tenant_id, pages: canonical.pages.length, status: stage.status }, 'job settled');
  } catch (err) {
    await onFailure(deps, job, workerId, reason, err);
  } finally {
    clearInterval(beat);
    clearTimeout(timer);
    shutdown.removeEventListener('abort', onShutdown);
  }
}

interface Stage {
  status: DecisionStatus;
  templateVersion: number | null;
  reviewReasons: string[];
  output: StageOutput;
}

/**
 * Entities and template extraction on the canonical document (the embedded extractor, in this
 * thread: it is a small fraction of the canonical pipeline's time). The extraction's decision
 * settles the job: completed, needs_review (a review opens with the reasons) or rejected.
 */
export async function extractStage(deps: Pick<RunDeps, 'db'>, job: Job, canonical: CanonicalJson, policy: EffectivePolicy, judgeCanonical: CanonicalJson | null = null): Promise<Stage> {
  const done = (output: StageOutput): Stage => ({ status: 'completed', templateVersion: null, reviewReasons: [], output });
  if (job.processing_mode === 'canonical') return done({ stages: [] });
  if (job.processing_mode === 'entities') {
    return done({ entities: runEntities(canonical, policy), stages: ['entities'], notes: { generic_entities_enabled: policy.generic_entities_enabled } });
  }
  const templateId = job.template_id ?? policy.default_template_id ?? null;
  if (!templateId) {
    return done({
      entities: runEntities(canonical, policy),
      stages: ['entities'],
      classification: { matched: false, template_id: null, reason: CLASSIFICATION_UNAVAILABLE },
      unavailable: [{ stage: 'classification', reason: CLASSIFICATION_UNAVAILABLE }],
    });
  }
  const template = await templateForRun(deps.db, job.tenant_id, templateId);
  if (!template) {
    throw new PipelineFailure(
      'template_not_found',
      `Template ${templateId} no longer exists (it was deleted). Reprocess the job with another template_id, or without one.`,
      false,
    );
  }
  const judged = policy.judge_mode_enabled && judgeCanonical ? runJudgedExtraction(canonical, judgeCanonical, template, policy) : null;
  const out = judged ?? runExtraction(canonical, template, policy);
  // Judge mode on a re-extraction: the second reading is not stored, only the canonical output.
  const judgeMissing = policy.judge_mode_enabled && !judged;
  return {
    status: out.decision.status,
    templateVersion: template.version,
    reviewReasons: out.decision.review_reasons,
    output: {
      entities: out.entities,
      extraction: out.extraction,
      stages: ['entities', 'extraction', ...(judged ? ['judge'] : []), 'validation', 'decision'],
      notes: { decision: { status: out.decision.status, thresholds: out.decision.thresholds }, ...(judged ? { judge: judged.judge } : {}) },
      ...(judgeMissing ? { unavailable: [{ stage: 'judge', reason: JUDGE_UNAVAILABLE_ON_REEXTRACT }] } : {}),
      classification: job.template_id
        ? null
        : { matched: false, template_id: templateId, method: 'default_template_id', reason: "No template was assigned; the tenant policy's default_template_id was used (auto-classification is a later issue)." },
    },
  };
}

async function onFailure(deps: RunDeps, job: Job, workerId: string, reason: StopReason | null, err: unknown): Promise<void> {
  const { db, log } = deps;
  if (reason === 'lease_lost') {
    log.warn({ jobId: job.id, workerId }, 'lease lost mid-run; leaving the job to its new owner');
    return;
  }
  if (reason === 'shutdown') {
    // Not the job's fault: back to the queue as if this run never started.
    await release(db, job, workerId, 0, 'worker shutting down', false);
    return;
  }
  if (reason === 'cancelled' || reason === 'timeout') {
    await settle(db, job, workerId, {
      status: 'failed',
      result: null,
      failure_code: reason,
      failure_message: reason === 'timeout' ? TIMEOUT_MESSAGE : CANCELLED_MESSAGE,
    });
    return;
  }
  if (err instanceof PipelineFailure && !err.internal) {
    // The document's own problem (corrupt, encrypted, over the cap …): another attempt would fail the same way.
    await settle(db, job, workerId, { status: 'failed', result: null, failure_code: err.code, failure_message: err.message });
    log.info({ jobId: job.id, failureCode: err.code }, 'job failed');
    return;
  }
  log.error({ err, jobId: job.id, attempt: job.attempts }, 'job run failed unexpectedly');
  if (job.attempts < job.max_attempts) {
    await release(db, job, workerId, retryDelaySeconds(job.attempts), (err as Error)?.message ?? 'unknown error');
    return;
  }
  await settle(db, job, workerId, {
    status: 'failed',
    result: null,
    failure_code: 'internal_error',
    failure_message: `Quire failed to process this document ${job.attempts} times (${err instanceof PipelineFailure ? err.message : 'an internal error'}). Retry it later; if it keeps failing, report the job id.`,
  });
}

async function storeArtifacts(deps: RunDeps, job: Job, canonical: CanonicalJson, images: { pageNumber: number; png: Uint8Array }[]): Promise<NewArtifact[]> {
  const base = baseName(job.original_filename);
  const out: NewArtifact[] = [];
  const put = async (kind: NewArtifact['kind'], bytes: Uint8Array, filename: string, contentType: string, page: number | null) => {
    const { sha256, size } = await storeBytes(deps.db, deps.blobs, bytes);
    out.push({ kind, page_number: page, filename, content_type: contentType, size_bytes: size, sha256 });
  };
  await put('canonical_json', Buffer.from(JSON.stringify(canonical)), `${base}.canonical.json`, 'application/json', null);
  await put('markdown', Buffer.from(canonical.markdown, 'utf8'), `${base}.md`, 'text/markdown; charset=utf-8', null);
  for (const image of images) {
    await put('page_image', image.png, `${base}.page-${String(image.pageNumber).padStart(4, '0')}.png`, 'image/png', image.pageNumber);
  }
  return out;
}
