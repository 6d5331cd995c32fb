// Row types of the login_failures table (migration 0010), as Kysely sees them.
import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

export interface LoginFailuresTable {
  email_sha256: string;
  failure_count: ColumnType<number, number | undefined, number>;
  window_start: Timestamp;
  locked_until: NullableTimestamp;
}
