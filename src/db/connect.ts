// Opens the database a process uses: DATABASE_URL when set, else the embedded server.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
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
