// Row types of the documents/queue tables (migration 0003_documents), as Kysely sees them.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

type JsonObject = ColumnType<Record<string, unknown>, string | undefined, string>;
type NullableJson = ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;

export type JobStatus = 'queued' | 'processing' | 'completed' | 'needs_review' | 'rejected' | 'failed';
export type ProcessingMode = 'canonical' | 'entities' | 'extraction';
export type PageCapPolicy = 'fail' | 'truncate';
export type BatchStatus = 'queued' | 'processing' | 'completed' | 'completed_with_errors' | 'cancelled';
export type ArtifactKind = 'source' | 'canonical_json' | 'markdown' | 'page_image';
export type RunKind = 'full' | 'reextract';

export interface BlobsTable {
  sha256: string;
  size_bytes: number;
  created_at: Timestamp;
  touched_at: Timestamp;
}

export interface BatchesTable {
  id: string;
  tenant_id: string;
  name: string | null;
  status: ColumnType<BatchStatus, BatchStatus | undefined, BatchStatus>;
  template_id: string | null;
  processing_mode: ProcessingMode;
  page_range: string | null;
  page_cap_policy: ColumnType<PageCapPolicy, PageCapPolicy | undefined, PageCapPolicy>;
  destination_connection_id: string | null;
  destination_config: NullableJson;
  counts: JsonObject;
  cancel_requested: ColumnType<boolean, boolean | undefined, boolean>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface JobsTable {
  id: string;
  tenant_id: string;
  batch_id: string | null;
  status: JobStatus;
  processing_mode: ProcessingMode;
  template_id: string | null;
  template_version: number | null;
  classification: NullableJson;
  original_filename: string | null;
  content_type: string | null;
  size_bytes: number;
  sha256: string;
  page_count: number | null;
  page_range: string | null;
  page_cap_policy: ColumnType<PageCapPolicy, PageCapPolicy | undefined, PageCapPolicy>;
  pages_processed: ColumnType<number, number | undefined, number>;
  metadata: JsonObject;
  destination_connection_id: string | null;
  priority: ColumnType<number, number | undefined, number>;
  run_after: Timestamp;
  run_kind: ColumnType<RunKind, RunKind | undefined, RunKind>;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  heartbeat_at: NullableTimestamp;
  cancel_requested: ColumnType<boolean, boolean | undefined, boolean>;
  /** A queued job whose tenant is suspended or deleted, kept out of the claim's index (migration 0017). */
  tenant_paused: ColumnType<boolean, boolean | undefined, boolean>;
  failure_code: string | null;
  failure_message: string | null;
  result: NullableJson;
  /**
   * How the stored canonical output was read (migration 0016): the OCR report and the unreadable
   * pages and parts of the full run that made it, which a re-extraction's result repeats. Null
   * when there was nothing to report, or no output is stored.
   */
  reading: NullableJson;
  /** Every reviewer action on the job, oldest first (migration 0019); kept when the job runs again. */
  review_history: ColumnType<Record<string, unknown>[], string | undefined, string>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
}

export interface ArtifactsTable {
  id: string;
  tenant_id: string;
  job_id: string;
  kind: ArtifactKind;
  page_number: number | null;
  filename: string;
  content_type: string;
  /** Null for a page image not drawn yet (migration 0011: drawn on its first download). */
  size_bytes: number | null;
  sha256: string | null;
  /** How to draw a page image on first download (JSON of PageRender); null once irrelevant. */
  render: ColumnType<PageRender | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

/** What drawing a page image needs besides the source file: resolution, OCR turn, displayed width. */
export interface PageRender {
  dpi: number;
  quarter_turns: number;
  width_pt: number;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  scope: 'documents' | 'batches';
  request_hash: string;
  resource_id: string;
  created_at: Timestamp;
}

export interface JobEventsTable {
  id: Generated<number>;
  tenant_id: string;
  job_id: string;
  kind: string;
  from_status: string | null;
  to_status: string | null;
  attempt: number | null;
  worker: string | null;
  actor: string | null;
  detail: JsonObject;
  created_at: Timestamp;
}

export interface DocumentTables {
  blobs: BlobsTable;
  batches: BatchesTable;
  jobs: JobsTable;
  artifacts: ArtifactsTable;
  idempotency_keys: IdempotencyKeysTable;
  job_events: JobEventsTable;
}

export type Job = Selectable<JobsTable>;
export type Batch = Selectable<BatchesTable>;
export type Artifact = Selectable<ArtifactsTable>;
export type JobEvent = Selectable<JobEventsTable>;
