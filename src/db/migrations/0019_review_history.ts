// A job's review history (every reviewer's approve, override and reprocess, oldest first) gets a
// column of its own. It lived inside `result`, which every new run of the job replaces, so a
// reprocess, retry or re-extraction erased the corrections and approvals made before it. The
// histories already written are moved out of the results.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN review_history jsonb NOT NULL DEFAULT '[]'::jsonb`.execute(db);
  await sql`
    UPDATE jobs
       SET review_history = (result->'review_history')::jsonb,
           result = (result::jsonb - 'review_history')::json
     WHERE json_typeof(result->'review_history') = 'array'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE jobs
       SET result = (result::jsonb || jsonb_build_object('review_history', review_history))::json
     WHERE result IS NOT NULL AND review_history <> '[]'::jsonb`.execute(db);
  await sql`ALTER TABLE jobs DROP COLUMN review_history`.execute(db);
}
