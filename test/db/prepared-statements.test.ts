// Registered statements run as named prepared statements, planned once per connection; the rest
// stay unnamed; a connection keeps a bounded number, and prepares a statement again after a
// migration changed its columns; and the switch turns them all off.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '../../src/db/database.js';
import { executePrepared, preparedName } from '../../src/db/prepared-statements.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
const opened: Db[] = [];
/** One connection, so every statement below runs on the session whose prepared statements are read. */
const oneConnection = (preparedStatements = true) => {
  const db = createDb(h.databaseUrl, 1, { preparedStatements });
  opened.push(db);
  return db;
};
const preparedOnSession = async (db: Db) =>
  (await sql<{ name: string; statement: string; generic_plans: number }>`SELECT name, statement, generic_plans FROM pg_prepared_statements`.execute(db)).rows;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.destroy()));
  await h.close();
});

describe('prepared statements', () => {
  it('prepares a registered statement once and reuses it with new values; an unregistered one stays unnamed', async () => {
    const db = oneConnection();
    const lookup = (id: string) => db.selectFrom('tenants').select('id').where('id', '=', id);
    for (const id of ['default', 'nobody', 'default', 'x', 'y', 'z', 'default']) await executePrepared(db, lookup(id));
    expect((await executePrepared(db, lookup('default'))).rows).toEqual([{ id: 'default' }]);
    expect((await executePrepared(db, lookup('nobody'))).rows).toEqual([]);
    await db.selectFrom('tenants').select('name').where('id', '=', 'default').execute();

    const text = lookup('any').compile().sql;
    const prepared = await preparedOnSession(db);
    expect(prepared.map((p) => p.name)).toEqual([preparedName(text)]);
    expect(prepared[0]!.statement).toBe(text);
    // Nine runs: from the sixth on, the server plans it no more (its generic plan is kept).
    expect(prepared[0]!.generic_plans).toBeGreaterThan(0);
  });

  it('keeps at most 100 on a connection and runs further texts unnamed', async () => {
    const db = oneConnection();
    for (let k = 0; k < 105; k++) {
      const { rows } = await executePrepared(db, sql<{ n: number }>`SELECT ${k}::int + ${k * 1000}::int AS n, ${sql.lit(k)} AS k`);
      expect(rows[0]!.n).toBe(k * 1001);
    }
    expect((await preparedOnSession(db)).length).toBe(100);
  });

  it('prepares a statement again once a migration changed the columns it answers', async () => {
    const db = oneConnection();
    await sql`CREATE TABLE prepared_probe (id int PRIMARY KEY)`.execute(h.db);
    await sql`INSERT INTO prepared_probe VALUES (1)`.execute(h.db);
    const everything = () => executePrepared(db, sql<Record<string, unknown>>`SELECT * FROM prepared_probe WHERE id = ${1}`);
    expect((await everything()).rows).toEqual([{ id: 1 }]);
    await sql`ALTER TABLE prepared_probe ADD COLUMN note text DEFAULT 'added'`.execute(h.db);
    // PostgreSQL refuses the prepared statement once; the next run prepares it afresh.
    await expect(everything()).rejects.toMatchObject({ code: '0A000' });
    expect((await everything()).rows).toEqual([{ id: 1, note: 'added' }]);
    expect((await everything()).rows).toEqual([{ id: 1, note: 'added' }]);
  });

  it('prepares nothing when turned off', async () => {
    const db = oneConnection(false);
    for (let i = 0; i < 3; i++) await executePrepared(db, db.selectFrom('tenants').select('id').where('id', '=', 'default'));
    expect(await preparedOnSession(db)).toEqual([]);
  });
});
