// Template testing (decisions.md: `test` / unified `test`): extraction run synchronously on an
// uploaded file or on the stored canonical output of an existing job, with the tenant's effective
// policy. Nothing is persisted: no job, no review, no result.
import type { Db } from '../../db/database.js';
import { findJob } from '../documents/jobs.repository.js';
import type { EffectivePolicy } from '../policy/policy.registry.js';
import { ApiError, conflict, notFound, validationError } from '../../http/errors.js';
import { type CanonicalJson, isPipelineError, runCanonical, toCanonicalJson } from '../../pipeline/index.js';
import { type ExtractionTemplate, runExtraction } from '../../pipeline/extract/index.js';
import type { Principal } from '../identity/principal.js';

export type TestInput = { kind: 'file'; bytes: Uint8Array; filename: string | null; pageRange: string | null } | { kind: 'job'; jobId: string };

/** A test answers within this time or fails with 422 (split the document or send a page_range). */
export const TEST_TIMEOUT_MS = 60_000;

function documentProblem(err: unknown): unknown {
  if (!isPipelineError(err)) return err;
  if (err.code === 'unsupported_format') return new ApiError(415, 'unsupported_format', err.message);
  if (err.code === 'invalid_page_range') return validationError([{ loc: ['body', 'page_range'], msg: err.message, type: 'value_error' }]);
  if (err.code === 'internal_error') return err;
  return validationError([{ loc: ['body', 'file'], msg: err.message, type: err.code }]);
}

async function canonicalOf(db: Db, principal: Principal, policy: EffectivePolicy, input: TestInput) {
  if (input.kind === 'job') {
    const job = await findJob(db, principal.tenantId, input.jobId);
    if (!job || job.deleted_at) throw notFound(`Job ${input.jobId}`);
    const canonical = (job.result as { canonical?: CanonicalJson } | null)?.canonical;
    if (!canonical) {
      throw conflict('job_has_no_canonical', `Job ${input.jobId} has no canonical output (status ${job.status}). Wait until it has finished, or upload the file instead.`);
    }
    return { canonical, source: { kind: 'job' as const, job_id: job.id, filename: job.original_filename, page_count: job.page_count, pages_processed: canonical.pages.length }, ms: 0 };
  }
  const started = performance.now();
  try {
    const doc = await runCanonical(input.bytes, {
      ...(input.pageRange ? { pageRange: input.pageRange } : {}),
      pdfMaxPages: policy.pdf_max_pages,
      pageCapPolicy: 'fail',
      pptxNotesMode: policy.pptx_notes_mode,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    return {
      canonical: toCanonicalJson(doc),
      source: { kind: 'file' as const, job_id: null, filename: input.filename, page_count: doc.page_count, pages_processed: doc.pages.length, format: doc.format },
      ms: performance.now() - started,
    };
  } catch (err) {
    throw documentProblem(err);
  }
}

export async function testTemplate(db: Db, principal: Principal, policy: EffectivePolicy, template: ExtractionTemplate, input: TestInput) {
  const { canonical, source, ms } = await canonicalOf(db, principal, policy, input);
  const started = performance.now();
  const { entities, extraction, decision } = runExtraction(canonical, template, policy);
  const extractionMs = performance.now() - started;
  const needsOcr = canonical.pages.filter((p) => p.source === 'needs_ocr').map((p) => p.page_number);
  return {
    template_id: template.id,
    template_version: template.version,
    source,
    status: decision.status,
    review_reasons: decision.review_reasons,
    thresholds: decision.thresholds,
    extraction,
    entities,
    warnings: needsOcr.length ? [`Pages ${needsOcr.join(', ')} have no text layer and were not OCR'd in this test; their text is missing from the result.`] : [],
    timings_ms: { canonical: Math.round(ms), extraction: Math.round(extractionMs) },
  };
}
