// Migration 0019: a job's review history moves out of its result (which every new run replaces)
// into a column of its own; rolled back, it goes back into the result.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0019_review_history.js';
import { FILES, upload } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

class RollBack extends Error {}

it('moves result.review_history into the review_history column, and back', async () => {
  const member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await upload(h, member, FILES.invoice)).body.job_id);
  const entry = { review_id: 'rev_1', action: 'override', patch: { total: 1 } };
  const read = async (tx: typeof h.db) => {
    const { rows } = await sql<{ id: string; result: string | null; review_history: unknown }>`SELECT id, result::text AS result, review_history FROM jobs WHERE id IN (${sql.join(ids)})`.execute(tx);
    return ids.map((id) => rows.find((r) => r.id === id)!).map((r) => [r.result === null ? null : JSON.parse(r.result), r.review_history]);
  };
  await h.db
    .transaction()
    .execute(async (tx) => {
      await down(tx as unknown as Kysely<unknown>);
      // As results were written before: the history inside, or none.
      await sql`UPDATE jobs SET result = ${JSON.stringify({ extraction: { data: { total: 1 } }, review_history: [entry] })}::json WHERE id = ${ids[0]}`.execute(tx);
      await sql`UPDATE jobs SET result = ${JSON.stringify({ extraction: { data: {} } })}::json WHERE id = ${ids[1]}`.execute(tx);
      await up(tx as unknown as Kysely<unknown>);
      expect(await read(tx)).toEqual([
        [{ extraction: { data: { total: 1 } } }, [entry]],
        [{ extraction: { data: {} } }, []],
        [null, []],
      ]);
      await down(tx as unknown as Kysely<unknown>);
      const { rows } = await sql<{ result: string | null }>`SELECT result::text AS result FROM jobs WHERE id = ${ids[0]}`.execute(tx);
      expect(JSON.parse(rows[0]!.result!)).toEqual({ extraction: { data: { total: 1 } }, review_history: [entry] });
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
});
