// Row type of model_usage_monthly (migration 0007), as Kysely sees it.
import type { ColumnType, Selectable } from 'kysely';
import type { Timestamp } from './column-types.js';

type Counter = ColumnType<number, number | undefined, number>;

export interface ModelUsageMonthlyTable {
  tenant_id: string;
  /** Calendar month (UTC) as YYYY-MM. */
  month: string;
  backend: string;
  model: string;
  calls: Counter;
  input_tokens: Counter;
  output_tokens: Counter;
  /** numeric(14, 6): pg returns it as a string. */
  cost_usd: ColumnType<string, number | undefined, number>;
  updated_at: Timestamp;
}

export interface ModelUsageTables {
  model_usage_monthly: ModelUsageMonthlyTable;
}

export type ModelUsageMonthly = Selectable<ModelUsageMonthlyTable>;
