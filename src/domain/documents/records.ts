// The public records of jobs, artifacts and batches: what the API answers and what a delivery
// carries to a destination, built in one place so the two never drift apart.
import type { Artifact, Batch } from '../../db/documents-schema.js';
import type { JobSummary } from './jobs.repository.js';

export function presentArtifact(a: Artifact) {
  return {
    id: a.id,
    job_id: a.job_id,
    kind: a.kind,
    page_number: a.page_number,
    filename: a.filename,
    content_type: a.content_type,
    size_bytes: a.size_bytes,
    sha256: a.sha256,
    url: `/v1/artifacts/${a.id}`,
    created_at: a.created_at,
  };
}

export function presentJobSummary(job: JobSummary, artifacts: Artifact[]) {
  return {
    job_id: job.id,
    tenant_id: job.tenant_id,
    batch_id: job.batch_id,
    status: job.status,
    processing_mode: job.processing_mode,
    template_id: job.template_id,
    template_version: job.template_version,
    classification: job.classification,
    original_filename: job.original_filename,
    content_type: job.content_type,
    size_bytes: job.size_bytes,
    sha256: job.sha256,
    page_count: job.page_count,
    page_range: job.page_range,
    page_cap_policy: job.page_cap_policy,
    pages_processed: job.pages_processed,
    attempts: job.attempts,
    max_attempts: job.max_attempts,
    cancel_requested: job.cancel_requested,
    failure_code: job.failure_code,
    failure_message: job.failure_message,
    metadata: job.metadata,
    destination_connection_id: job.destination_connection_id,
    created_at: job.created_at,
    updated_at: job.updated_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    deleted_at: job.deleted_at,
    artifacts: artifacts.map(presentArtifact),
  };
}

/**
 * The whole job. `review_history` (every reviewer action, oldest first) outlives the runs that
 * replace `result`; a result also shows it as `result.review_history`, where it has always been read.
 */
export function presentJob(job: JobSummary & { result: Record<string, unknown> | null; review_history: Record<string, unknown>[] }, artifacts: Artifact[]) {
  const history = job.review_history ?? [];
  const result = job.result && history.length ? { ...job.result, review_history: history } : job.result;
  return { ...presentJobSummary(job, artifacts), review_history: history, result };
}

export function presentAction(job: Pick<JobSummary, 'id' | 'status' | 'failure_code' | 'failure_message'>) {
  return { job_id: job.id, status: job.status, failure_code: job.failure_code, failure_message: job.failure_message };
}

export function presentBatch(b: Batch) {
  const c = b.counts as Record<string, number>;
  return {
    batch_id: b.id,
    tenant_id: b.tenant_id,
    name: b.name,
    status: b.status,
    counts: {
      total: c.total ?? 0,
      queued: c.queued ?? 0,
      processing: c.processing ?? 0,
      completed: c.completed ?? 0,
      needs_review: c.needs_review ?? 0,
      rejected: c.rejected ?? 0,
      failed: c.failed ?? 0,
    },
    template_id: b.template_id,
    processing_mode: b.processing_mode,
    page_range: b.page_range,
    page_cap_policy: b.page_cap_policy,
    destination: b.destination_connection_id ? { connection_id: b.destination_connection_id, config: b.destination_config } : null,
    cancel_requested: b.cancel_requested,
    created_at: b.created_at,
    updated_at: b.updated_at,
    finished_at: b.finished_at,
  };
}
