// Wire shapes of document jobs, artifacts and batches (decisions.md "Documents (jobs)", "Batches").
import { Type } from 'typebox';
import { DeliveryRecord } from './connections.js';
import { CreatedRange, FreeObject, Nullable, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.js';

export const JOB_STATUSES = ['queued', 'processing', 'completed', 'needs_review', 'rejected', 'failed'] as const;
export const BATCH_STATUSES = ['queued', 'processing', 'completed', 'completed_with_errors', 'cancelled'] as const;
export const PROCESSING_MODES = ['canonical', 'entities', 'extraction'] as const;

const JobStatus = StringEnum(JOB_STATUSES);
const ProcessingMode = StringEnum(PROCESSING_MODES);
const PageCapPolicy = StringEnum(['fail', 'truncate'] as const);

export const ArtifactRecord = Type.Object({
  id: Type.String(),
  job_id: Type.String(),
  kind: StringEnum(['source', 'canonical_json', 'markdown', 'page_image'] as const),
  page_number: Nullable(Type.Integer()),
  filename: Type.String(),
  content_type: Type.String(),
  size_bytes: Nullable(Type.Integer({ description: 'null for a page image not drawn yet: it is drawn on its first download' })),
  sha256: Nullable(Type.String({ description: 'null for a page image not drawn yet: it is drawn on its first download' })),
  url: Type.String({ description: 'GET this path (with your credential) to download the artifact; Range requests are supported.' }),
  created_at: Timestamp,
});

const jobFields = {
  job_id: Type.String(),
  tenant_id: Type.String(),
  batch_id: Nullable(Type.String()),
  status: JobStatus,
  processing_mode: ProcessingMode,
  template_id: Nullable(Type.String()),
  template_version: Nullable(Type.Integer()),
  classification: Nullable(FreeObject),
  original_filename: Nullable(Type.String()),
  content_type: Nullable(Type.String({ description: 'Sniffed from the bytes, never taken from the upload' })),
  size_bytes: Type.Integer(),
  sha256: Type.String(),
  page_count: Nullable(Type.Integer()),
  page_range: Nullable(Type.String()),
  page_cap_policy: PageCapPolicy,
  pages_processed: Type.Integer(),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  cancel_requested: Type.Boolean(),
  failure_code: Nullable(Type.String()),
  failure_message: Nullable(Type.String()),
  metadata: FreeObject,
  destination_connection_id: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  deleted_at: NullableTimestamp,
  artifacts: Type.Array(ArtifactRecord),
};

export const JobRecord = Type.Object({
  ...jobFields,
  review_history: Type.Array(FreeObject, {
    description: 'Every reviewer action on the job, oldest first: {review_id, action: approve|override|reprocess, by, at, note} (override adds patch, before, after, validation; reprocess template_id). Kept when the job runs again.',
  }),
  result: Nullable(Type.Object({}, { additionalProperties: true, description: 'Once terminal: {canonical?, entities?, extraction?, engine}' })),
  deliveries: Type.Array(DeliveryRecord, { description: 'Each time this job ended with a destination: where it went and how that went' }),
});

/** Lists leave out `result` (it can be megabytes) and page-image artifacts; GET the job for them. */
export const JobListItem = Type.Object(jobFields);

export const JobActionResponse = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  failure_code: Nullable(Type.String()),
  failure_message: Nullable(Type.String()),
});

export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) });
export const ArtifactParams = Type.Object({ artifact_id: Type.String({ maxLength: 64 }) });
export const BatchParams = Type.Object({ batch_id: Type.String({ maxLength: 64 }) });

export const ListJobsQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(JobStatus),
  batch_id: Type.Optional(Type.String({ maxLength: 64 })),
  template_id: Type.Optional(Type.String({ maxLength: 64 })),
  ...CreatedRange,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches the original file name (substring) or a job id' })),
  deleted: Type.Optional(Type.Boolean({ description: 'true: list soft-deleted jobs (to restore one) instead of live ones' })),
});

export const ListBatchJobsQuery = Type.Object({ ...PageQuery, status: Type.Optional(JobStatus) });

export const ListBatchesQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(StringEnum(BATCH_STATUSES)),
  ...CreatedRange,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches the batch name (substring)' })),
});

export const ReextractBody = Type.Object({ template_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))) });

export const RecoveryReport = Type.Object({
  recovered: Type.Integer(),
  requeued: Type.Integer(),
  failed: Type.Integer(),
  job_ids: Type.Array(Type.String()),
});

export const ReuploadContext = Type.Object({
  original_filename: Nullable(Type.String()),
  template_id: Nullable(Type.String()),
  processing_mode: ProcessingMode,
  page_range: Nullable(Type.String()),
  page_cap_policy: PageCapPolicy,
  batch_id: Nullable(Type.String()),
  metadata: FreeObject,
  destination_connection_id: Nullable(Type.String()),
  upload: Type.Object({ method: Type.Literal('POST'), url: Type.String(), content_type: Type.Literal('multipart/form-data'), fields: FreeObject }),
});

const Counts = Type.Object({
  total: Type.Integer(),
  queued: Type.Integer(),
  processing: Type.Integer(),
  completed: Type.Integer(),
  needs_review: Type.Integer(),
  rejected: Type.Integer(),
  failed: Type.Integer(),
});

export const BatchRecord = Type.Object({
  batch_id: Type.String(),
  tenant_id: Type.String(),
  name: Nullable(Type.String()),
  status: StringEnum(BATCH_STATUSES),
  counts: Counts,
  template_id: Nullable(Type.String()),
  processing_mode: ProcessingMode,
  page_range: Nullable(Type.String()),
  page_cap_policy: PageCapPolicy,
  destination: Nullable(Type.Object({ connection_id: Type.String(), config: Nullable(FreeObject) })),
  cancel_requested: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: NullableTimestamp,
});

export const BatchJobRef = Type.Object({
  job_id: Type.String(),
  original_filename: Nullable(Type.String()),
  status: JobStatus,
  failure_code: Nullable(Type.String()),
  failure_message: Nullable(Type.String()),
});

export const BatchCreated = Type.Object({ ...BatchRecord.properties, jobs: Type.Array(BatchJobRef) });
export const BatchAction = Type.Object({
  ...BatchRecord.properties,
  affected_job_ids: Type.Array(Type.String(), { description: 'The jobs this action changed' }),
});
export const BatchReconciled = Type.Object({
  ...BatchRecord.properties,
  deliveries: Type.Object({
    pending: Type.Integer(),
    resent: Type.Integer(),
    detail: Type.String(),
  }),
});

// The records themselves are the domain's: deliveries carry the same job and batch JSON.
export { presentAction, presentArtifact, presentBatch, presentJob, presentJobSummary } from '../../domain/documents/records.js';
