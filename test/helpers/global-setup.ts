// Once per test run: find a PostgreSQL (DATABASE_URL, or an embedded one started here), build a
// migrated template database, and hand its name to the test files, which clone it per file.
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { createDb, migrateToLatest } from '../../src/db/database.js';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    templateDb: string;
    runId: string;
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

let embedded: EmbeddedServer | null = null;
let adminUrl = '';
let templateDb = '';

export async function setup(project: TestProject): Promise<void> {
  const log = pino({ level: 'warn' });
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    embedded = await startEmbeddedPostgres(path.resolve('.quire-test'), log, 'postgres');
    adminUrl = embedded.url;
  }
  templateDb = `quire_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${templateDb}`);
  await admin.query(`CREATE DATABASE ${templateDb}`);
  await admin.end();
  const db = createDb(withDatabase(adminUrl, templateDb), 1);
  await migrateToLatest(db);
  await db.destroy();
  project.provide('serverUrl', adminUrl);
  project.provide('templateDb', templateDb);
  project.provide('runId', String(process.pid));
}

export async function teardown(): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
    [templateDb, `quire_t_${process.pid}_%`],
  );
  for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
  await admin.end();
  await embedded?.stop();
}
