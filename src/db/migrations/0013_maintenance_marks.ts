// What periodic upkeep has established and need not establish again, by name. The orphan-file
// sweep records here the database server's start time once it has examined every file written
// before that start (storage/blob-registry.ts): until the server restarts, no registration can be
// lost, so no file can lose its row, and the hourly sweep need not list the whole store.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE maintenance_marks (
      name text PRIMARY KEY,
      value text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE maintenance_marks`.execute(db);
}
