// A source poll's lease on its connection: the poller that claimed it and until when, extended as
// the poll goes on. While it holds, no other poller claims the connection, however long the poll
// takes; a poller that died loses it when it lapses (sources/source-files.repository.ts).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE connections ADD COLUMN poll_owner text, ADD COLUMN poll_lease_expires_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE connections DROP COLUMN poll_owner, DROP COLUMN poll_lease_expires_at`.execute(db);
}
