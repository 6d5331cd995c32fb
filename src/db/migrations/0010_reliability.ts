// Sign-in failures counted per email address, whether or not an account has it: the lockout
// then answers the same for a real account and an unknown address, and reveals neither.
// The address is stored as its SHA-256 (never in clear: unknown addresses are not our users).
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('login_failures')
    .addColumn('email_sha256', 'text', (c) => c.primaryKey())
    .addColumn('failure_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window_start', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('locked_until', ts)
    .execute();
  await sql`CREATE INDEX login_failures_window ON login_failures (window_start)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('login_failures').execute();
}
