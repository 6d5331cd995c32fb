// A request scope holds one connection: parallel queries a handler starts (Promise.all) are queued
// on it in order instead of overlapping on the pg client, and nested transactions stay savepoints.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRequestScope } from '../../src/db/request-scope.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.message);

beforeAll(async () => {
  h = await startHarness();
  process.on('warning', onWarning);
});
afterAll(async () => {
  process.off('warning', onWarning);
  await h.close();
});

it('runs a handler\'s parallel queries one after another on the scope\'s connection, in one transaction', async () => {
  const scope = openRequestScope();
  const answers = await scope.run(() =>
    Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sql<{ n: number; tx: string; pid: number }>`select ${i}::int as n, txid_current()::text as tx, pg_backend_pid() as pid from pg_sleep(0.005)`
          .execute(h.db)
          .then((r) => r.rows[0]!),
      ),
    ),
  );
  await scope.commit();
  expect(answers.map((a) => a.n)).toEqual([...Array(12).keys()]);
  expect(new Set(answers.map((a) => a.tx)).size).toBe(1);
  expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
  expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
});

it('keeps a failed nested transaction a savepoint while sibling queries run', async () => {
  await sql`create table if not exists scope_probe (v int)`.execute(h.db);
  const scope = openRequestScope();
  await scope.run(async () => {
    await sql`insert into scope_probe values (1)`.execute(h.db);
    const nested = h.db.transaction().execute(async (tx) => {
      await sql`insert into scope_probe values (2)`.execute(tx);
      throw new Error('undo the nested part');
    });
    const [outcome] = await Promise.allSettled([nested, sql`select count(*) from scope_probe`.execute(h.db)]);
    expect(outcome.status).toBe('rejected');
    await sql`insert into scope_probe values (3)`.execute(h.db);
  });
  await scope.commit();
  const rows = await sql<{ v: number }>`select v from scope_probe order by v`.execute(h.db);
  expect(rows.rows.map((r) => r.v)).toEqual([1, 3]);
  expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
});
