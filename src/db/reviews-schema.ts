// Row types of the reviews table (migration 0005), as Kysely sees them.
import type { ColumnType, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

export type ReviewStatus = 'pending' | 'in_review' | 'approved' | 'overridden' | 'reprocessed' | 'closed_by_delete';
export const OPEN_REVIEW_STATUSES: readonly ReviewStatus[] = ['pending', 'in_review'];

export interface ReviewsTable {
  id: string;
  tenant_id: string;
  job_id: string;
  status: ColumnType<ReviewStatus, ReviewStatus | undefined, ReviewStatus>;
  reasons: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
  resolved_at: NullableTimestamp;
  resolved_by: string | null;
  resolution: string | null;
  resolution_note: string | null;
}

export interface ReviewTables {
  reviews: ReviewsTable;
}

export type Review = Selectable<ReviewsTable>;
