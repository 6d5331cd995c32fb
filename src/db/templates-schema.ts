// Row types of the templates tables (migration 0004_templates), as Kysely sees them.
import type { ColumnType, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

type JsonObject = ColumnType<Record<string, unknown>, string, string>;
type NullableJson = ColumnType<Record<string, unknown> | null, string | null, string | null>;
type JsonArray = ColumnType<Record<string, unknown>[], string, string>;

export interface TemplatesTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  prompt_overlay: string;
  json_schema: JsonObject;
  validation_rules: JsonArray;
  review_thresholds: JsonObject;
  post_processing: NullableJson;
  /** The current version (1, 2, …); every update adds one. */
  version: number;
  active: boolean;
  created_by: string | null;
  updated_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
  deleted_by: string | null;
}

/** One immutable snapshot per version: the whole template record as it was saved. */
export interface TemplateVersionsTable {
  template_id: string;
  version: number;
  tenant_id: string;
  snapshot: JsonObject;
  created_by: string | null;
  created_at: Timestamp;
}

export interface TemplateTables {
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
}

export type TemplateRow = Selectable<TemplatesTable>;
export type TemplateVersionRow = Selectable<TemplateVersionsTable>;
