// A job's result is kept as `json` (the text as written, checked for syntax) rather than `jsonb`
// (parsed into PostgreSQL's binary form). Nothing queries inside a result; it is written once per
// run and sent back as text. For a 65-page canonical result (3.3 MB), jsonb cost PostgreSQL about
// 100 ms of CPU to store and 20–35 ms to turn back into text on every read; json about 45 ms and
// 7 ms, and with lz4 compression (where the server was built with it) 15 ms and 5 ms. The table is
// rewritten once, converting the stored results.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ALTER COLUMN result TYPE json USING result::json`.execute(db);
  // lz4 only applies to values written from now on; a server built without it keeps pglz.
  await sql`
    DO $$ BEGIN
      EXECUTE 'ALTER TABLE jobs ALTER COLUMN result SET COMPRESSION lz4';
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ALTER COLUMN result SET COMPRESSION default`.execute(db);
  await sql`ALTER TABLE jobs ALTER COLUMN result TYPE jsonb USING result::jsonb`.execute(db);
}
