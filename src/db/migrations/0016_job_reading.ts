// How a job's stored canonical output was read, kept beside the job (`reading`): the OCR report
// and the lists of pages and parts that could not be read, as the full run's result.engine gave
// them. A re-extraction reuses that canonical output and clears the job's result; its result
// repeats these facts from here. The column is written with the run's outputs (a full run that
// settles, a failed one clears it with them) and left alone by a re-extraction. Jobs whose last
// result came from a full run have it filled in from that result.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN reading json`.execute(db);
  await sql`
    UPDATE jobs
       SET reading = json_build_object(
             'ocr', CASE WHEN json_typeof(result->'engine'->'ocr') = 'object' THEN (result->'engine'->'ocr')::jsonb - 'judge' END,
             'unreadable_pages', result->'engine'->'unreadable_pages',
             'unreadable_parts', result->'engine'->'unreadable_parts')
     WHERE result IS NOT NULL
       AND result->'engine'->>'reused_canonical' = 'false'
       AND (result->'engine'->'ocr' IS NOT NULL
            OR result->'engine'->'unreadable_pages' IS NOT NULL
            OR result->'engine'->'unreadable_parts' IS NOT NULL)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs DROP COLUMN reading`.execute(db);
}
