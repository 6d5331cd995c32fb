// Migration 0016: jobs.reading, filled in from the result of the full run that made a job's stored
// canonical output, so that re-extracting a job processed before the upgrade repeats those facts.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0016_job_reading.js';
import { newId } from '../../src/lib/ids.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('readco');
});
afterAll(() => h.close());

class RollBack extends Error {}

it('fills in the reading facts of full runs, and only theirs', async () => {
  const ocr = { mode: 'tesseract_priority', languages: ['eng'], page_timeout_seconds: 60, pages: [{ page_number: 1, engine_used: 'tesseract' }], failed_pages: [], judge: [{ page_number: 1, reading: 'ocr_paddle' }] };
  const unreadablePages = [{ page_number: 2, part: 'ppt/slides/slide2.xml', message: 'slide 2 cannot be read' }];
  const unreadableParts = [{ part: 'ppt/notesSlides/notesSlide1.xml', page_numbers: [1], message: 'the speaker notes are left out' }];
  const results = [
    { engine: { reused_canonical: false, ocr } },
    { engine: { reused_canonical: false, unreadable_pages: unreadablePages, unreadable_parts: unreadableParts } },
    { engine: { reused_canonical: false } },
    // A re-extraction's result no longer has the facts; nothing to fill in.
    { engine: { reused_canonical: true } },
    null,
  ];
  const ids = results.map(() => newId('job'));
  await h.db
    .transaction()
    .execute(async (tx) => {
      const db = tx as unknown as Kysely<unknown>;
      await down(db);
      for (const [i, result] of results.entries()) {
        await sql`INSERT INTO jobs (id, tenant_id, status, processing_mode, size_bytes, sha256, result, finished_at)
                  VALUES (${ids[i]}, 'readco', 'completed', 'canonical', 1, 'x', ${result === null ? null : JSON.stringify(result)}::json, now())`.execute(db);
      }
      await up(db);
      const { rows } = await sql<{ id: string; reading: Record<string, unknown> | null }>`SELECT id, reading FROM jobs WHERE id = ANY(${ids})`.execute(db);
      const reading = (i: number) => rows.find((r) => r.id === ids[i])!.reading;
      const { judge: _judge, ...withoutJudge } = ocr;
      expect(reading(0)).toEqual({ ocr: withoutJudge, unreadable_pages: null, unreadable_parts: null });
      expect(reading(1)).toEqual({ ocr: null, unreadable_pages: unreadablePages, unreadable_parts: unreadableParts });
      expect([reading(2), reading(3), reading(4)]).toEqual([null, null, null]);
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
});
