// A pooled connection that loses its server while checked out (a database restart, an
// administrator's pg_terminate_backend) must fail the statements that use it, not the process:
// pg raises the loss as an 'error' event on the client, which crashed `quire serve` and
// `quire worker` whenever the database went away between two statements of a transaction.
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, createDb } from '../../src/db/database.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
const opened: Db[] = [];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await Promise.all(opened.map((db) => db.destroy()));
  await h.close();
});

describe('a connection lost while checked out', () => {
  it.each([true, false])('fails only its own statements, and the pool serves new ones (prepared statements %s)', async (preparedStatements) => {
    const db = createDb(h.databaseUrl, 2, { preparedStatements });
    opened.push(db);
    const outcome = await db
      .transaction()
      .execute(async (tx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
        await sql`SELECT pg_terminate_backend(${rows[0]!.pid})`.execute(h.db);
        // The loss arrives as an event while no statement runs on the connection.
        await delay(300);
        await sql`SELECT 1`.execute(tx);
        return 'still connected';
      })
      .catch((err: Error) => `failed: ${err.message}`);
    expect(outcome).toMatch(/^failed: /);
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(db)).rows).toEqual([{ one: 1 }]);
  });
});
