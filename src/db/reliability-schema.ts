// Row types of the login_failures table (migration 0010) and maintenance_marks (0013), as Kysely sees them.
import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

export interface LoginFailuresTable {
  email_sha256: string;
  failure_count: ColumnType<number, number | undefined, number>;
  window_start: Timestamp;
  locked_until: NullableTimestamp;
}

export interface MaintenanceMarksTable {
  name: string;
  value: string;
  updated_at: Timestamp;
}
