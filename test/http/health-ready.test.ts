// Readiness checks migrations once, then only whether the database still answers.
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function onServer(statement: string): Promise<void> {
  const u = new URL(h.databaseUrl);
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

describe('/v1/health/ready', () => {
  it('checks migrations on the first call only, then watches the connection', async () => {
    expect((await h.request('GET', '/v1/health/ready')).status).toBe(200);
    // A migration row vanishing after the first check is not re-read: the check ran once.
    await sql`DELETE FROM kysely_migration WHERE name = (SELECT max(name) FROM kysely_migration)`.execute(h.db);
    expect((await h.request('GET', '/v1/health/ready')).status).toBe(200);

    const name = new URL(h.databaseUrl).pathname.slice(1);
    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await onServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
    try {
      const down = await h.request('GET', '/v1/health/ready');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ code: 'database_unavailable' });
    } finally {
      await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    expect((await h.request('GET', '/v1/health/ready')).status).toBe(200);
  });
});
