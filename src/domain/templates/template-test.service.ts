// Template testing (decisions.md: `test` / unified `test`): extraction run synchronously on an
// uploaded file or on the stored canonical output of an existing job, with the tenant's effective
// policy. Nothing is persisted: no job, no review, no result. Reading the document and extracting
// both run on a pipeline thread, as a job's do: extraction of a large document takes seconds of
// CPU, which on the request's event loop would stall every other request of every tenant.
import type { Db } from '../../db/database.js';
import { findJob } from '../documents/jobs.repository.js';
import { noCanonicalOutput } from '../documents/no-canonical.js';
import type { EffectivePolicy } from '../policy/policy.registry.js';
import { conflict, notFound, unsupportedMedia, validationError } from '../../lib/errors.js';
import type { Config } from '../../config.js';
import type { CanonicalJson } from '../../pipeline/index.js';
import { PipelineFailure, type PipelinePool } from '../../queue/pipeline-pool.js';
import { type ExtractOutput, type ExtractTask, ocrPolicyOf } from '../../queue/pipeline-task.js';
import type { ExtractionTemplate } from '../../pipeline/extract/index.js';
import type { Principal } from '../identity/principal.js';

export type TestInput = { kind: 'file'; bytes: Uint8Array; filename: string | null; pageRange: string | null } | { kind: 'job'; jobId: string };

/** A test answers within this time or fails with 422 (split the document or send a page_range). */
export const TEST_TIMEOUT_MS = 60_000;

/** A document the pipeline could not read is the request's problem (4xx); anything else is ours. */
function documentProblem(err: unknown): unknown {
  if (!(err instanceof PipelineFailure) || err.internal) return err;
  if (err.code === 'unsupported_format') return unsupportedMedia('unsupported_format', err.message);
  if (err.code === 'invalid_page_range') return validationError([{ loc: ['body', 'page_range'], msg: err.message, type: 'value_error' }]);
  return validationError([{ loc: ['body', 'file'], msg: err.message, type: err.code }]);
}

export interface TestDeps {
  db: Db;
  config: Config;
  /** The app's request pipeline: parsing and OCR run on a thread, not in the request handler. */
  pipeline: PipelinePool;
}

/**
 * The document's canonical output as JSON text, what a pipeline thread takes: parsing a large
 * document's text here would itself be a long pause of the event loop.
 */
export async function canonicalOf(deps: TestDeps, principal: Principal, policy: EffectivePolicy, input: TestInput) {
  if (input.kind === 'job') {
    const job = await findJob(deps.db, principal.tenantId, input.jobId);
    if (!job || job.deleted_at) throw notFound(`Job ${input.jobId}`);
    const canonical = (job.result as { canonical?: CanonicalJson } | null)?.canonical;
    if (!canonical) {
      throw noCanonicalOutput(job, `Job ${input.jobId}`, ', or upload the file instead');
    }
    const format = (job.result as { engine?: { format?: string } } | null)?.engine?.format ?? null;
    return { canonicalText: JSON.stringify(canonical), source: { kind: 'job' as const, job_id: job.id, filename: job.original_filename, page_count: job.page_count, pages_processed: canonical.pages.length, format }, ms: 0 };
  }
  const started = performance.now();
  try {
    const output = await deps.pipeline.run(
      {
        bytes: input.bytes,
        ...(input.pageRange ? { pageRange: input.pageRange } : {}),
        pdfMaxPages: policy.pdf_max_pages,
        pageCapPolicy: 'fail',
        pptxNotesMode: policy.pptx_notes_mode,
        ocr: { policy: ocrPolicyOf(policy), pageTimeoutMs: deps.config.ocrPageTimeoutSeconds * 1000 },
        renderDpi: null,
      },
      { signal: AbortSignal.timeout(TEST_TIMEOUT_MS), abortKind: () => 'timeout' },
    );
    return {
      canonicalText: output.canonicalText,
      source: { kind: 'file' as const, job_id: null, filename: input.filename, page_count: output.pageCount, pages_processed: output.pages.length, format: output.format },
      ms: performance.now() - started,
      ocr: output.ocr,
    };
  } catch (err) {
    throw documentProblem(err);
  }
}

/**
 * The embedded stages on a canonical document, on a pipeline thread within the test's time limit:
 * a template's extraction, or (no template) the document prepared for classification.
 */
export async function extractInThread(deps: TestDeps, task: Pick<ExtractTask, 'canonicalText' | 'format' | 'policy' | 'template' | 'classify'>): Promise<ExtractOutput> {
  try {
    return await deps.pipeline.run({ kind: 'extract', judgeCanonical: null, ...task }, { signal: AbortSignal.timeout(TEST_TIMEOUT_MS), abortKind: () => 'timeout' });
  } catch (err) {
    throw documentProblem(err);
  }
}

export async function testTemplate(deps: TestDeps, principal: Principal, policy: EffectivePolicy, template: ExtractionTemplate, input: TestInput) {
  const read = await canonicalOf(deps, principal, policy, input);
  const { canonicalText, source, ms } = read;
  const started = performance.now();
  const output = await extractInThread(deps, { canonicalText, format: source.format, policy, template, classify: null });
  if (!output.extraction) throw new Error('the extraction thread answered without an extraction');
  const { entities, extraction, decision } = output.extraction;
  const extractionMs = performance.now() - started;
  const failed = ('ocr' in read ? read.ocr?.failed_pages : undefined) ?? [];
  return {
    template_id: template.id,
    template_version: template.version,
    source,
    status: decision.status,
    review_reasons: decision.review_reasons,
    thresholds: decision.thresholds,
    extraction,
    entities,
    warnings: failed.map((f) => `OCR failed on page ${f.page_number} (${f.message}); its text is missing from the result.`),
    timings_ms: { canonical: Math.round(ms), extraction: Math.round(extractionMs) },
  };
}
