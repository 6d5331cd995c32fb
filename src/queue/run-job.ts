// One run of one claimed job, in stages with a cancel/lease checkpoint between each:
//   load the file → pipeline (worker thread) → store artifacts → entities and extraction (the
//   same thread pool, database reads here) → settle.
// The lease is heartbeated all along; a cancel request, a lost lease, the job timeout or a
// shutdown stops the run at once (the pipeline thread is told, and ended if it does not stop).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Job, PageRender } from '../db/documents-schema.js';
import { chooseJobTemplate, proposesDraftOnMiss } from '../domain/classification/job-template.js';
import { recordExemplarFingerprint } from '../domain/classification/classification.service.js';
import type { Fingerprint } from '../pipeline/classify/index.js';
import { drawPageImage } from '../domain/documents/page-images.js';
import { countPageImages, findCanonicalArtifact } from '../domain/documents/jobs.repository.js';
import type { EffectivePolicy } from '../domain/policy/policy.registry.js';
import type { PolicyService } from '../domain/policy/policy.service.js';
import { templateForRun } from '../domain/templates/templates.service.js';
import type { CanonicalJson, OcrReport, UnreadablePage, UnreadablePart } from '../pipeline/index.js';
import type { DecisionStatus, ExtractionResult } from '../pipeline/extract/index.js';
import { ModelCallError } from '../models/backends/errors.js';
import { readModelAnswers } from '../models/extraction/extract.js';
import { type JobModelResolver, type JobModels, clientFor } from '../models/job-models.js';
import { ModelChooser } from '../models/classify/model-chooser.js';
import { budgetOf } from '../models/extraction/budget.js';
import { addModelUsage } from '../models/usage.js';
import type { ModelUsage } from '../pipeline/model-usage.js';
import { storeAllBytes } from '../storage/blob-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import { CANCELLED_MESSAGE, type NewArtifact, heartbeat, release, settle, settleRun, startRun } from './lease.js';
import { formatOfContentType } from '../pipeline/ingest/sniff.js';
import { PipelineFailure, type PipelinePool } from './pipeline-pool.js';
import { type AbortKind, type ExtractOutput, type ExtractTask, type PipelineOutput, ocrPolicyOf } from './pipeline-task.js';
import { readsTextInImages } from '../pipeline/ocr/policy.js';
import { remoteOcrFor } from './remote-ocr.js';
import { type Reading, type StageOutput, buildResult, factsOfReading, readingOf } from './result.js';

export interface RunDeps {
  db: Db;
  blobs: BlobStore;
  policy: PolicyService;
  config: Config;
  pool: PipelinePool;
  log: Logger;
  /** The tenant's model endpoints; absent: every extraction is the embedded extractor's. */
  models?: JobModelResolver;
}

/** Page images for the console: 100 dpi keeps a letter page near 850x1100 px and ~40 ms to render. */
export const PAGE_IMAGE_DPI = 100;
/** A heartbeat younger than this spares a checkpoint its round trip to the job row. */
const CHECKPOINT_FRESH_MS = 1_000;
/** Formats whose pages have an image (PDF pages, image frames). */
const DRAWN_FORMATS = new Set(['pdf', 'png', 'jpeg', 'tiff', 'webp']);

type StopReason = 'cancelled' | 'timeout' | 'lease_lost' | 'shutdown';

class Stopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`run stopped: ${reason}`);
  }
}

const JUDGE_UNAVAILABLE_ON_REEXTRACT =
  'judge_mode_enabled is on, but a re-extraction reuses the stored canonical output and the second reading the judge compares against is not stored; reprocess the job to have the judge vote.';
/** result.engine.extraction of the embedded path: no model, nothing spent. */
const EMBEDDED_EXTRACTION = { method: 'embedded', backend: null, model: null, calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 } as const;
const TIMEOUT_MESSAGE = 'Processing took longer than the time allowed. Split the document or send a page_range, then retry.';

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
  // The claim itself set the lease: it counts as the first heartbeat.
  let lastBeat = Date.now();
  const beat = setInterval(() => {
    heartbeat(db, job.id, workerId, config.jobLeaseSeconds, pagesDone).then(
      (answer) => {
        lastBeat = Date.now();
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
  // Between stages: a cancel arrives at once by NOTIFY (workers.ts); when the last heartbeat is
  // older than CHECKPOINT_FRESH_MS the job row itself is asked too, in case that NOTIFY was missed.
  // A short job so makes no round trip here at all: four of them were a fifth of its time.
  const checkpoint = async () => {
    if (!reason && Date.now() - lastBeat >= CHECKPOINT_FRESH_MS) {
      const answer = await heartbeat(db, job.id, workerId, config.jobLeaseSeconds, pagesDone);
      lastBeat = Date.now();
      if (!answer.held) stop('lease_lost');
      else if (answer.cancelRequested) stop('cancelled');
    }
    if (reason) throw new Stopped(reason);
  };
  // The run starts (recovery counts its attempt from here on: lease.ts startRun); a checkpoint too.
  const start = async () => {
    const answer = await startRun(db, job.id, workerId, config.jobLeaseSeconds);
    lastBeat = Date.now();
    if (!answer.held) stop('lease_lost');
    else if (answer.cancelRequested) stop('cancelled');
    if (reason) throw new Stopped(reason);
  };

  // Where a job's time goes (logged with the settle; docs/performance.md reads these).
  const timings: Record<string, number> = {};
  let mark = performance.now();
  const lap = (stage: string) => {
    const now = performance.now();
    timings[stage] = (timings[stage] ?? 0) + Math.round(now - mark);
    mark = now;
  };

  try {
    if (job.cancel_requested) stop('cancelled');
    await checkpoint();
    lap('checkpoints');
    // The canonical document as an object, parsed from its text only when a stage reads it.
    let canonical: CanonicalJson | null = null;
    let pagesProcessed = 0;
    let format: string | null = null;
    let pageCount: number | null = job.page_count;
    let artifacts: NewArtifact[] | undefined;
    let ocr: OcrReport | null = null;
    let unreadable: UnreadablePage[] = [];
    let unreadableParts: UnreadablePart[] = [];
    let judgeCanonical: CanonicalJson | null = null;
    let canonicalText: string | null = null;
    // One fresh read at job start: the whole run uses the policy in force now, never a stale cache.
    // The tenant's endpoints (remote OCR, models) follow from that same policy (whether the
    // tenant's own endpoints count), one statement each. From S3 the upload is fetched meanwhile;
    // from a local store the pipeline thread reads it itself (no read here, no copy of the bytes
    // into the thread). A re-extraction reads its stored canonical output instead.
    const uploadPath = deps.blobs.localPath?.(job.sha256) ?? null;
    const upload = job.run_kind === 'reextract' || uploadPath ? null : deps.blobs.readAll(job.sha256);
    // Read whatever happens next, so a failed read never goes unhandled while the policy is awaited.
    upload?.catch(() => undefined);
    const policy = await deps.policy.current(job.tenant_id);
    const overridesEnabled = policy.tenant_infra_overrides_enabled === true;
    // The tenant's model endpoints: a judge endpoint makes the OCR second reading unnecessary.
    const [remoteOcr, models] = await Promise.all([
      remoteOcrFor(db, config, job.tenant_id, overridesEnabled),
      deps.models && job.processing_mode === 'extraction' ? deps.models(job.tenant_id, { judge: policy.judge_mode_enabled, overridesEnabled }) : null,
    ]);
    let imagesOfRun: { pageNumber: number; png: Uint8Array }[] = [];
    const stored = job.run_kind === 'reextract' ? await findCanonicalArtifact(db, job.tenant_id, job.id) : undefined;
    if (stored) {
      await start();
      // Kept as text: the stage parses it in the pipeline thread, and the result splices it in as it is.
      canonicalText = (await deps.blobs.readAll(stored.sha256!)).toString('utf8');
      // engine.format names the format as a full run does ("pdf"), not the stored content type.
      format = formatOfContentType(job.content_type) ?? job.content_type;
      // How that output was read (the OCR report, pages and parts that could not be read) is
      // said again: the result the facts were in was cleared for this run.
      ({ ocr, unreadable, unreadableParts } = factsOfReading(job.reading as Reading | null));
    } else {
      // A re-extraction whose canonical output is gone runs the whole pipeline again.
      const source = uploadPath ? { path: uploadPath } : { bytes: await (upload ?? deps.blobs.readAll(job.sha256)) };
      lap('load');
      await checkpoint();
      lap('checkpoints');
      const output = await deps.pool.run(
        {
          ...source,
          ...(job.page_range ? { pageRange: job.page_range } : {}),
          pdfMaxPages: policy.pdf_max_pages,
          pageCapPolicy: job.page_cap_policy,
          pptxNotesMode: policy.pptx_notes_mode,
          ocr: {
            policy: ocrPolicyOf(policy),
            pageTimeoutMs: config.ocrPageTimeoutSeconds * 1000,
            judge: policy.judge_mode_enabled && job.processing_mode === 'extraction' && !(models?.vlm && models.judge),
            textInImages: readsTextInImages(policy.layout_policy, job.processing_mode),
            ...(remoteOcr ? { remote: remoteOcr } : {}),
          },
          // Page images are drawn on their first download (domain/documents/page-images.ts),
          // except for a model, which reads the pages during the run.
          renderDpi: models?.vlm ? PAGE_IMAGE_DPI : null,
        },
        {
          signal: controller.signal,
          abortKind: () => (reason === 'timeout' ? 'timeout' : 'cancelled'),
          onProgress: (done) => {
            pagesDone = done;
          },
          onStart: start,
        },
      );
      lap('pipeline');
      await checkpoint();
      lap('checkpoints');
      format = output.format;
      pageCount = output.pageCount;
      pagesProcessed = output.pages.length;
      ocr = output.ocr;
      unreadable = output.unreadable;
      unreadableParts = output.unreadableParts;
      judgeCanonical = output.judgeCanonical;
      imagesOfRun = output.images;
      canonicalText = output.canonicalText;
      artifacts = await storeArtifacts(deps, job, output);
      lap('artifacts');
    }
    await checkpoint();
    lap('checkpoints');
    const text = canonicalText!;
    const canonicalDoc = (): CanonicalJson => (canonical ??= JSON.parse(text) as CanonicalJson);
    const abortKind = (): AbortKind => (reason === 'timeout' ? 'timeout' : 'cancelled');
    const stage = await extractStage(deps, job, text, policy, judgeCanonical, {
      format,
      models,
      pageImages: () => pageImagesOf(deps, job, stored ? null : imagesOfRun),
      signal: controller.signal,
      abortKind,
    });
    lap('extract');
    // A re-extraction counts the stored document's pages: the stage read them, or (canonical mode) a parse here.
    if (stored) pagesProcessed = stage.pageCount ?? canonicalDoc().pages.length;
    await checkpoint();
    lap('checkpoints');
    const { result, classification } = buildResult(
      job,
      null,
      {
        format,
        pageCount,
        pagesProcessed,
        pageImages: artifacts ? artifacts.filter((a) => a.kind === 'page_image').length : await countPageImages(db, job.tenant_id, job.id),
        reusedCanonical: !!stored,
        ocr,
        unreadable,
        unreadableParts,
      },
      stage.output,
    );
    const settled = await settleRun(db, job, workerId, {
      status: stage.status,
      result,
      resultText: resultWithCanonicalText(result, text),
      page_count: pageCount,
      pages_processed: pagesProcessed,
      classification,
      template_version: stage.templateVersion,
      review_reasons: stage.reviewReasons,
      ...(artifacts ? { artifacts, reading: readingOf({ ocr, unreadable, unreadableParts }) } : {}),
    });
    lap('settle');
    if (!settled) log.warn({ jobId: job.id, workerId }, 'lost the lease before settling; another worker owns the job now');
    else if (settled === 'cancelled') log.info({ jobId: job.id, tenantId: job.tenant_id, timings_ms: timings }, 'job cancelled while it settled');
    else {
      log.info({ jobId: job.id, tenantId: job.tenant_id, pages: pagesProcessed, status: stage.status, timings_ms: timings }, 'job settled');
      // Learning from use: a document completed under a template becomes one of its exemplars.
      const templateId = stage.output.extraction?.template_id;
      if (stage.status === 'completed' && templateId && stage.exemplar) await recordExemplarFingerprint(db, job, templateId, stage.exemplar, 'completed');
    }
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
  /** Pages of the canonical document, when the stage read it (a re-extraction learns it so). */
  pageCount: number | null;
  /** The fingerprint the job becomes an exemplar with, once it completes under a template. */
  exemplar: Fingerprint | null;
}

/** What the model path needs beyond the canonical document. */
export interface StageContext {
  /** The document's format (pdf, png, pptx...), a classification feature. */
  format?: string | null;
  /** The tenant's model endpoints (none: the embedded extractor). */
  models?: JobModels | null;
  /** The rendered pages (PNG) by page number: of this run, or stored by the run before a re-extraction. */
  pageImages?: () => Promise<Map<number, Uint8Array>>;
  signal: AbortSignal;
  /** Why the signal fired, read when it does (for a stage running in the pipeline thread). */
  abortKind: () => AbortKind;
}

/**
 * Entities and template extraction on the canonical document. With a vlm endpoint in effect for
 * the tenant, a model extracts and every value is grounded (models/extraction); otherwise the
 * embedded extractor does. What walks the document (parsing its JSON, entity recognition, the
 * classification fingerprint, the embedded extraction and judge mode's comparison, and on the
 * model path the prompts and the grounding of the answers) runs in the pipeline thread pool, so a
 * large document never holds this event loop; what reads the database (classification against the
 * tenant's templates and exemplars, the template) and the model calls stay here. The extraction's decision settles the job: completed, needs_review (a review opens
 * with the reasons) or rejected.
 */
export async function extractStage(deps: Pick<RunDeps, 'db' | 'pool'>, job: Job, canonicalText: string, policy: EffectivePolicy, judgeCanonical: CanonicalJson | null, context: StageContext): Promise<Stage> {
  const done = (output: StageOutput, pageCount: number | null): Stage => ({ status: 'completed', templateVersion: null, reviewReasons: [], output, pageCount, exemplar: null });
  if (job.processing_mode === 'canonical') return done({ stages: [] }, null);
  const inThread = (task: Pick<ExtractTask, 'classify' | 'template' | 'judgeCanonical' | 'model'>) =>
    deps.pool.run({ kind: 'extract', canonicalText, format: context.format ?? null, policy, ...task }, { signal: context.signal, abortKind: context.abortKind });
  if (job.processing_mode === 'entities') {
    const found = await inThread({ classify: null, template: null, judgeCanonical: null });
    return done({ entities: found.entities!, stages: ['entities'], notes: { generic_entities_enabled: policy.generic_entities_enabled } }, found.pageCount);
  }
  let templateId = job.template_id;
  // A template the job names is read once, below, at its current version; one chosen by
  // classification is read at the version classification ranked, though a newer one was saved since.
  let templateVersion: number | null = null;
  let classification: Record<string, unknown> | null = null;
  let found: ExtractOutput | null = null;
  if (!templateId) {
    // Recognised once, beside the fingerprint that reads them; the result keeps them when nothing matches.
    found = await inThread({ classify: { draft: proposesDraftOnMiss(policy) }, template: null, judgeCanonical: null });
    // With a vlm endpoint in effect, the model settles a classification the embedded rule leaves ambiguous.
    const vlm = context.models?.vlm;
    const guard = context.models?.guard;
    const chooser =
      vlm && guard
        ? new ModelChooser({
            client: () => clientFor(vlm, guard),
            ...(context.pageImages && budgetOf(policy.prompt_budget_policy).sendPageImages ? { pageImage: async () => (await context.pageImages!()).get(1) } : {}),
            signal: context.signal,
          })
        : undefined;
    const choice = await chooseJobTemplate(deps.db, job, found.prepared!, policy, chooser);
    templateId = choice.templateId;
    templateVersion = choice.templateVersion;
    classification = choice.classification;
  }
  if (!templateId) return done({ entities: found!.entities!, stages: ['entities', 'classification'], classification }, found!.pageCount);
  const template = await templateForRun(deps.db, job.tenant_id, templateId, templateVersion);
  if (!template) {
    throw new PipelineFailure(
      'template_not_found',
      `Template ${templateId} no longer exists (it was deleted). Reprocess the job with another template_id, or without one.`,
      false,
    );
  }
  const models = context.models;
  if (models?.vlm) {
    // The prompts are built and the answers settled in the pipeline thread; the calls between wait
    // on the network here. What they cost counts toward the tenant's month whether the extraction
    // succeeds or fails after some of them (a later chunk refused, a cancel, a timeout).
    const images = context.pageImages ? await context.pageImages() : new Map<number, Uint8Array>();
    const prepared = await inThread({ classify: null, template, judgeCanonical: null, model: { step: 'prepare', imagePages: [...images.keys()] } });
    const prep = prepared.modelPrep!;
    const spent: ModelUsage[] = [];
    const answers = await readModelAnswers(prep, {
      policy,
      images,
      client: clientFor(models.vlm, models.guard),
      judge: models.judge ? clientFor(models.judge, models.guard) : null,
      signal: context.signal,
      spent,
    })
      .catch((err: unknown) => {
        throw err instanceof ModelCallError ? err.toPipelineFailure() : err;
      })
      .finally(() => addModelUsage(deps.db, job.tenant_id, spent));
    // Judge mode without a judge endpoint: the second reading votes, when this run made one.
    const secondReading = policy.judge_mode_enabled && !models.judge ? judgeCanonical : null;
    const finished = await inThread({ classify: null, template, judgeCanonical: secondReading, model: { step: 'finish', prep: { fields: prep.fields, dates: prep.dates }, answers } });
    const out = finished.modelExtraction!;
    return decidedStage(out, template.version, classification, {
      stages: ['model_extraction', 'grounding', ...(out.judge ? ['judge'] : [])],
      extraction: out.engine,
      judge: out.judge ?? null,
      judgeMissing: policy.judge_mode_enabled && !out.judge,
      pageCount: finished.pageCount,
      exemplar: finished.exemplar,
    });
  }
  const judged = policy.judge_mode_enabled && judgeCanonical !== null;
  const extracted = await inThread({ classify: null, template, judgeCanonical: judged ? judgeCanonical : null });
  const out = extracted.extraction!;
  // Judge mode on a re-extraction: the second reading is not stored, only the canonical output.
  return decidedStage(out, template.version, classification, {
    stages: ['extraction', ...(out.judge ? ['judge'] : [])],
    extraction: EMBEDDED_EXTRACTION,
    judge: out.judge ?? null,
    judgeMissing: policy.judge_mode_enabled && !out.judge,
    pageCount: extracted.pageCount,
    exemplar: extracted.exemplar,
  });
}

/** The stage an extraction settles, whichever extractor ran: its decision, output and notes. */
function decidedStage(
  out: { entities: unknown[]; extraction: ExtractionResult; decision: { status: DecisionStatus; review_reasons: string[]; thresholds: unknown } },
  templateVersion: number | null,
  classification: Record<string, unknown> | null,
  run: { stages: string[]; extraction: unknown; judge: unknown; judgeMissing: boolean; pageCount: number; exemplar: Fingerprint | null },
): Stage {
  return {
    status: out.decision.status,
    templateVersion,
    reviewReasons: out.decision.review_reasons,
    pageCount: run.pageCount,
    exemplar: run.exemplar,
    output: {
      entities: out.entities,
      extraction: out.extraction,
      stages: [...(classification ? ['classification'] : []), 'entities', ...run.stages, 'validation', 'decision'],
      notes: { extraction: run.extraction, decision: { status: out.decision.status, thresholds: out.decision.thresholds }, ...(run.judge ? { judge: run.judge } : {}) },
      ...(run.judgeMissing ? { unavailable: [{ stage: 'judge', reason: JUDGE_UNAVAILABLE_ON_REEXTRACT }] } : {}),
      classification,
    },
  };
}

/** Page images for the model: this run's, or the page_image artifacts a re-extraction's job kept. */
async function pageImagesOf(deps: RunDeps, job: Job, fresh: { pageNumber: number; png: Uint8Array }[] | null): Promise<Map<number, Uint8Array>> {
  if (fresh) return new Map(fresh.map((i) => [i.pageNumber, i.png]));
  const rows = await deps.db
    .selectFrom('artifacts')
    .select(['id', 'tenant_id', 'job_id', 'page_number', 'sha256', 'render'])
    .where('tenant_id', '=', job.tenant_id)
    .where('job_id', '=', job.id)
    .where('kind', '=', 'page_image')
    .execute();
  const images = new Map<number, Uint8Array>();
  for (const row of rows) {
    if (row.page_number === null) continue;
    const sha256 = row.sha256 ?? (await drawPageImage(deps.db, deps.blobs, row)).sha256;
    images.set(row.page_number, await deps.blobs.readAll(sha256));
  }
  return images;
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
    await settle(db, job, workerId, { status: 'failed', result: null, failure_code: err.code, failure_message: err.message, ...(err.pageCount !== undefined ? { page_count: err.pageCount } : {}) });
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

/** The result as JSON text, its canonical part being the text already written as the artifact. */
function resultWithCanonicalText(result: Record<string, unknown>, canonicalText: string): string {
  const { canonical: _canonical, ...rest } = result;
  const tail = JSON.stringify(rest);
  return `{"canonical":${canonicalText}${tail === '{}' ? '}' : `,${tail.slice(1)}`}`;
}

async function storeArtifacts(deps: RunDeps, job: Job, output: PipelineOutput): Promise<NewArtifact[]> {
  const base = baseName(job.original_filename);
  const files = await storeAllBytes(deps.db, deps.blobs, [Buffer.from(output.canonicalText), Buffer.from(output.markdown, 'utf8')]);
  const out: NewArtifact[] = [
    { kind: 'canonical_json', page_number: null, filename: `${base}.canonical.json`, content_type: 'application/json', size_bytes: files[0]!.size, sha256: files[0]!.sha256 },
    { kind: 'markdown', page_number: null, filename: `${base}.md`, content_type: 'text/markdown; charset=utf-8', size_bytes: files[1]!.size, sha256: files[1]!.sha256 },
  ];
  if (!DRAWN_FORMATS.has(output.format)) return out;
  // A page whose OCR turned it is drawn turned too, so evidence boxes land on the right pixels.
  const turns = new Map(output.ocr?.pages.map((p) => [p.page_number, p.preprocessing.rotation_degrees / 90]) ?? []);
  for (const page of output.pages) {
    const render: PageRender = { dpi: PAGE_IMAGE_DPI, quarter_turns: turns.get(page.page_number) ?? 0, width_pt: page.width };
    out.push({
      kind: 'page_image',
      page_number: page.page_number,
      filename: `${base}.page-${String(page.page_number).padStart(4, '0')}.png`,
      content_type: 'image/png',
      size_bytes: null,
      sha256: null,
      render,
    });
  }
  return out;
}
