// Column types shared by every table definition: what a select returns, what an insert and an
// update accept (pg parses timestamptz into Date; we write Date or ISO strings).
import type { ColumnType } from 'kysely';

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
