// A throwaway, migrated database on the PostgreSQL that DATABASE_URL names, for campaign scripts
// and benchmarks that run the real service. Dropped (forcefully) when the script ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, migrateToLatest } from '../../src/db/database.js';

export interface ScratchDb {
  url: string;
  drop(): Promise<void>;
}

export function serverUrlFromEnv(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('Set DATABASE_URL to a PostgreSQL server this script may create a scratch database on (e.g. postgres://postgres@127.0.0.1:5432/postgres).\n');
    process.exit(2);
  }
  return url;
}

export async function createScratchDb(prefix: string): Promise<ScratchDb> {
  const serverUrl = serverUrlFromEnv();
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = createDb(url, 1);
  await migrateToLatest(db);
  await db.destroy();
  return {
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}
