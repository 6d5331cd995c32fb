// EXPLAIN (ANALYZE, BUFFERS) of the delivery, forge and source-poll claims behind a suspended
// tenant's backlog: a scratch database with BACKLOG due rows of a suspended tenant, queued ahead
// of a few of an active tenant, each claim statement captured as the code issues it and explained
// inside a transaction that is rolled back (docs/performance.md, "Nor out of the delivery, forge
// and source claims"). Makes, and then drops, the database quire_paused_claims on the server.
// Usage: DATABASE_URL=postgres://... npx tsx bench/paused-claims.ts
// (BACKLOG=n rows, PLANS=1 prints each plan, SQL=1 the statements, KEEP=1 keeps the database).
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from '../src/db/database.js';
import type { Db } from '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import { claimDelivery } from '../src/delivery/deliveries.repository.js';
import { claimForgeJob } from '../src/queue/forge-lease.js';
import { claimDueSource } from '../src/sources/source-files.repository.js';

const BACKLOG = Number(process.env.BACKLOG ?? 20_000);
const RUNS = 7;
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'quire_paused_claims';
const url = new URL(adminUrl);
url.pathname = `/${dbName}`;

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();

const captured: CompiledQuery[] = [];
const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
const db: Db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: (e) => void captured.push(e.query) });
await migrateToLatest(db);

const client = new pg.Client({ connectionString: url.toString() });
await client.connect();
const q = (text: string, values: unknown[] = []) => client.query(text, values);

await q(`INSERT INTO tenants (id, name) VALUES ('acme', 'Acme'), ('globex', 'Globex')`);
// The suspended tenant's rows are due first (older), the active tenant's after them.
for (const [tenant, n, age] of [['acme', BACKLOG, '2 hours'], ['globex', 5, '1 minute']] as const) {
  await q(`INSERT INTO connections (id, tenant_id, name, protocol, direction, config, next_poll_at)
           SELECT $1 || '_src_' || i, $1, 'inbox ' || i, 'local', 'source', '{"path":"inbox"}', now() - $3::interval + i * interval '1 ms'
             FROM generate_series(1, $2::int) i`, [tenant, n, age]);
  await q(`INSERT INTO connections (id, tenant_id, name, protocol, direction, config) VALUES ($1 || '_dst', $1, 'results', 'local', 'destination', '{"path":"results"}')`, [tenant]);
  await q(`INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, run_after, created_at)
           SELECT $1 || '_dlv_' || i, $1, $1 || '_dst', 'job', 'job.completed', now() - $3::interval + i * interval '1 ms', now() - $3::interval
             FROM generate_series(1, $2::int) i`, [tenant, n, age]);
  await q(`INSERT INTO forge_jobs (id, tenant_id, sample_job_ids, limits, created_at)
           SELECT $1 || '_fgj_' || i, $1, '{}', '{}', now() - $3::interval + i * interval '1 ms'
             FROM generate_series(1, $2::int) i`, [tenant, n, age]);
}

async function capture(claim: (db: Db) => Promise<unknown>): Promise<CompiledQuery> {
  captured.length = 0;
  await db
    .transaction()
    .execute(async (tx) => {
      await claim(tx);
      throw new Error('rollback');
    })
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  const claimStatement = captured.find((c) => /^\s*UPDATE/.test(c.sql));
  if (!claimStatement) throw new Error('no claim statement captured');
  return claimStatement;
}

const claims = {
  delivery: await capture((d) => claimDelivery(d, 'bench', 60)),
  forge: await capture((d) => claimForgeJob(d, 'bench', 60)),
  source: await capture((d) => claimDueSource(d, 'bench', 60)),
};

async function explain(name: string, stmt: CompiledQuery, label: string, show: boolean): Promise<void> {
  const times: number[] = [];
  let plan = '';
  let claimed = '';
  await q('BEGIN');
  claimed = (await q(stmt.sql, [...stmt.parameters])).rows[0]?.id ?? 'none';
  await q('ROLLBACK');
  for (let i = 0; i < RUNS; i++) {
    await q('BEGIN');
    const { rows } = await q(`EXPLAIN (ANALYZE, BUFFERS) ${stmt.sql}`, [...stmt.parameters]);
    const text = rows.map((r) => r['QUERY PLAN']).join('\n');
    await q('ROLLBACK');
    times.push(Number(/Execution Time: ([\d.]+) ms/.exec(text)![1]));
    plan = text;
  }
  times.sort((a, b) => a - b);
  console.log(`${label} ${name}: median ${times[RUNS >> 1]} ms (min ${times[0]}, max ${times[RUNS - 1]}), claims ${claimed}`);
  if (show) console.log(plan.replace(/^/gm, '    '));
}

async function round(label: string): Promise<void> {
  for (const [name, stmt] of Object.entries(claims)) await explain(name, stmt, label, process.env.PLANS === '1');
}

const show = (name: keyof typeof claims) => process.env.SQL === '1' && console.log(name, claims[name].sql);
(['delivery', 'forge', 'source'] as const).forEach(show);

await q('VACUUM ANALYZE');
await round('none suspended');
/** The tenant statement, with the triggers that mark or clear its rows. */
async function timed(label: string, text: string): Promise<void> {
  const start = performance.now();
  await q(text);
  console.log(`${label}: ${(performance.now() - start).toFixed(1)} ms`);
}

await timed('suspend statement', `UPDATE tenants SET status = 'suspended' WHERE id = 'acme'`);
await round('just suspended');
await q('VACUUM ANALYZE');
await round('suspended, vacuumed');
await timed('activate statement', `UPDATE tenants SET status = 'active' WHERE id = 'acme'`);
await q('VACUUM ANALYZE');
await round('reactivated, vacuumed');

await client.end();
await db.destroy();
if (process.env.KEEP !== '1') {
  const drop = new pg.Client({ connectionString: adminUrl });
  await drop.connect();
  await drop.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await drop.end();
}
