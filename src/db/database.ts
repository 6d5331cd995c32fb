// Kysely over pg: the single way Quire talks to PostgreSQL.
import { Kysely, Migrator, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
import { PreparingClient } from './prepared-statements.js';
import { scopedDialect } from './request-scope.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

// BIGINT counts (COUNT(*)) fit comfortably in a JS number for our purposes.
pg.types.setTypeParser(20, (value) => Number(value));

/** The pg pool behind each Db, for the few callers that need a raw client (LISTEN). */
const pools = new WeakMap<Db, pg.Pool>();

/**
 * `preparedStatements: false` runs every statement unnamed, for a pooler that cannot carry named
 * statements between its server connections (PgBouncer before 1.21 in transaction mode).
 */
export function createDb(url: string, maxConnections = 10, options: { preparedStatements?: boolean } = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections, ...(options.preparedStatements === false ? {} : { Client: PreparingClient }) });
  // A client that loses its server (database restart, pg_terminate_backend) must not crash the
  // process. pg reports the loss as an 'error' event: the pool listens on idle clients only, so a
  // client checked out between two statements (inside a transaction, a request's scope) gets a
  // listener of its own. The statements using it fail, and the pool drops it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: scopedDialect(new PostgresDialect({ pool })) });
  pools.set(db, pool);
  return db;
}

export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

/**
 * Applies every pending migration. Kysely's Postgres adapter holds an advisory lock for the
 * duration, so several processes starting at once apply each migration exactly once.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function pendingMigrations(db: Db): Promise<number> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const all = await migrator.getMigrations();
  return all.filter((m) => !m.executedAt).length;
}
