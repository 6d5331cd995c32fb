// Row types of the classification, drafts and forge tables (migration 0009), as Kysely sees them.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
type TextArray = ColumnType<string[], string[] | undefined, string[]>;
/** bigint arrives from pg as text; the repository turns it into a number. */
type BigCounter = ColumnType<string | number, number | undefined, number>;

export interface TemplateExemplarsTable {
  job_id: string;
  tenant_id: string;
  template_id: string;
  fingerprint: Json<Record<string, unknown>>;
  /** What made the exemplar: `completed`, `approved`, `overridden`. */
  source: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type DraftStatus = 'pending' | 'accepted' | 'rejected';

export interface TemplateDraftsTable {
  id: string;
  tenant_id: string;
  proposed_by: string | null;
  proposed_from_job_ids: TextArray;
  proposed_from_hint: string | null;
  auto_seen_count: Generated<number>;
  proposed_name: string;
  proposed_description: string | null;
  json_schema: Json<Record<string, unknown>>;
  prompt_overlay: string | null;
  validation_rules: Json<Record<string, unknown>[]>;
  field_examples: Json<Record<string, unknown>>;
  drafter_notes: string | null;
  fingerprint: NullableJson<Record<string, unknown>>;
  status: ColumnType<DraftStatus, DraftStatus | undefined, DraftStatus>;
  accepted_as_template_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  resolved_at: NullableTimestamp;
  resolved_by: string | null;
}

export type ForgeStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'aborted' | 'promoted';

export interface ForgeLimits {
  max_iterations: number;
  max_dollars: number;
  max_wall_seconds: number;
}

export interface ForgeJobsTable {
  id: string;
  tenant_id: string;
  status: ColumnType<ForgeStatus, ForgeStatus | undefined, ForgeStatus>;
  sample_job_ids: TextArray;
  hint: string | null;
  expected_outputs: NullableJson<Record<string, unknown>>;
  endpoint_id: string | null;
  limits: Json<ForgeLimits>;
  iterations_count: Generated<number>;
  best_iteration_id: string | null;
  best_score: number | null;
  tokens: BigCounter;
  dollars: ColumnType<number, number | undefined, number>;
  promoted_template_id: string | null;
  failure_message: string | null;
  abort_requested: Generated<boolean>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  /** A queued or running forge job of a suspended tenant, kept out of the claim's index (migration 0020). */
  tenant_paused: ColumnType<boolean, boolean | undefined, boolean>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export interface ForgeIterationsTable {
  id: string;
  tenant_id: string;
  forge_job_id: string;
  number: number;
  candidate: Json<Record<string, unknown>>;
  scores: Json<Record<string, number>>;
  tokens: BigCounter;
  dollars: ColumnType<number, number | undefined, number>;
  notes: string | null;
  created_at: Timestamp;
}

export interface ClassificationTables {
  template_exemplars: TemplateExemplarsTable;
  template_drafts: TemplateDraftsTable;
  forge_jobs: ForgeJobsTable;
  forge_iterations: ForgeIterationsTable;
}

export type ExemplarRow = Selectable<TemplateExemplarsTable>;
export type DraftRow = Selectable<TemplateDraftsTable>;
export type ForgeJobRow = Selectable<ForgeJobsTable>;
export type ForgeIterationRow = Selectable<ForgeIterationsTable>;
