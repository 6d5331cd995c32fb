// Opens the database a process uses: DATABASE_URL when set, else the embedded server.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config.js';
import { type Db, createDb, migrateToLatest } from './database.js';
import { startEmbeddedPostgres } from './embedded.js';

export interface DatabaseHandle {
  db: Db;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger, options: { migrate: boolean }): Promise<DatabaseHandle> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
  const url = config.databaseUrl ?? embedded!.url;
  const db = createDb(url, undefined, { preparedStatements: config.dbPreparedStatements });
  try {
    if (config.databaseUrl) await reach(db, config.databaseUrl);
    if (options.migrate) {
      const applied = await migrateToLatest(db);
      if (applied.length) log.info({ applied }, 'migrations applied');
    }
  } catch (err) {
    await db.destroy();
    await embedded?.stop();
    throw err;
  }
  return {
    db,
    url,
    embedded: embedded !== null,
    close: async () => {
      await db.destroy();
      await embedded?.stop();
    },
  };
}

/**
 * The first round trip to a configured server: one that cannot be reached, or that refuses the
 * credentials or the database, is reported with the variable to fix (its password left out).
 */
async function reach(db: Db, url: string): Promise<void> {
  try {
    await sql`SELECT 1`.execute(db);
  } catch (err) {
    const { hostname, port, pathname, username } = new URL(url);
    const where = [`host ${decodeURIComponent(hostname) || 'localhost'}`, `port ${port || 5432}`, `database ${decodeURIComponent(pathname.slice(1)) || '(default)'}`, ...(username ? [`user ${decodeURIComponent(username)}`] : [])].join(', ');
    throw new ConfigError(`cannot use the PostgreSQL server of DATABASE_URL (${where}): ${(err as Error).message}`);
  }
}
