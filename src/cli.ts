// The `quire` command: serve | worker | migrate | create-admin | rotate-secret-key | extract.
// The HTTP app, the workers and the pipeline are imported by the commands that run them, so a
// process loads only its own part: a worker's main thread, for one, no OCR engine and no HTTP stack.
import { parseArgs } from 'node:util';
import type pino from 'pino';
import { createLogger } from './lib/logger.js';
import { type Config, ConfigError, envHelp, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';
import { rotateSealedColumns } from './db/rotate-secrets.js';
import { bootstrapPlatform, createPlatformAdmin } from './domain/tenants/bootstrap.js';
import { SecretBox } from './lib/secret-box.js';
import { compileBodyValidator } from './lib/json-schema.js';
import { findLiveUserByEmailAnyTenant } from './domain/users/users.repository.js';
import { VERSION } from './version.js';

const USAGE = `quire ${VERSION}: self-hostable document understanding

Usage:
  quire serve [--no-workers]        HTTP API, docs at /docs (and in-process workers)
  quire worker [--concurrency N]    standalone document workers against the same database
                                    (N defaults to QUIRE_WORKERS, else the number of cores)
  quire migrate                     apply database migrations and exit
  quire extract FILE [--mode M] [--template T.json] [--pages 1-3] [--ocr MODE|off]
                                    run the pipeline on FILE, print the result JSON
  quire create-admin --email E --password P   add a platform admin
  quire rotate-secret-key           re-encrypt every stored credential under the first key
                                    of QUIRE_SECRET_KEY (then the old keys can be dropped)
  quire <command> --help

Environment:
${envHelp()}
`;

function logger(config: Config) {
  return createLogger(config.logLevel);
}

/** Runs `work` until SIGINT/SIGTERM, then `shutdown` once. */
function untilSignal(shutdown: () => Promise<void>, log: pino.Logger): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'shutting down');
      shutdown().then(resolve, (err) => {
        log.error({ err }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/**
 * What a command started, stopped in the reverse order. A start that fails part-way stops what
 * it had started, the embedded PostgreSQL included, before the error is reported: a failed start
 * leaves nothing running.
 */
class Started {
  private readonly stops: (() => Promise<void>)[] = [];

  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop();
  }

  /** Runs the rest of a start; on failure stops what was started and rethrows. */
  async orStop<T>(start: () => Promise<T>, log: pino.Logger): Promise<T> {
    try {
      return await start();
    } catch (err) {
      await this.stopAll().catch((stopErr: unknown) => log.error({ err: stopErr }, 'stopping after a failed start failed'));
      throw err;
    }
  }
}

async function serve(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'no-workers': { type: 'boolean' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(USAGE);
  const log = logger(config);
  const started = new Started();
  const handle = await openDatabase(config, log, { migrate: true });
  started.add(() => handle.close());
  const workers = values['no-workers'] ? 0 : config.workers;
  await started.orStop(async () => {
    await bootstrapPlatform(handle.db, config, log);
    const [{ buildApp }, { Workers }] = await Promise.all([import('./http/app.js'), import('./queue/workers.js')]);
    const pool = workers > 0 ? new Workers({ db: handle.db, databaseUrl: handle.url, config, log, count: workers }) : null;
    if (pool) {
      started.add(() => pool.stop());
      await pool.start();
    }
    const app = await buildApp({ db: handle.db, config, version: VERSION, workerCount: () => pool?.size ?? 0 }, { level: config.logLevel, base: { pid: process.pid } });
    started.add(() => app.close());
    await app.listen({ port: config.port, host: config.host });
  }, log);
  log.info({ url: `http://${config.host}:${config.port}`, docs: '/docs', embeddedDatabase: handle.embedded, workers }, 'Quire is serving');
  await untilSignal(() => started.stopAll(), log);
}

async function worker(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { concurrency: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(USAGE);
  const count = values.concurrency !== undefined ? Number(values.concurrency) : Math.max(1, config.workers);
  if (!Number.isInteger(count) || count < 1) throw new ConfigError(`--concurrency must be a positive integer, got "${values.concurrency}"`);
  const log = logger(config);
  const { Workers } = await import('./queue/workers.js');
  const started = new Started();
  const handle = await openDatabase(config, log, { migrate: true });
  started.add(() => handle.close());
  await started.orStop(async () => {
    const pool = new Workers({ db: handle.db, databaseUrl: handle.url, config, log, count });
    started.add(() => pool.stop());
    await pool.start();
  }, log);
  await untilSignal(() => started.stopAll(), log);
}

/**
 * A command's options, strictly: `--help` prints the usage instead of running the command (a
 * migrate or a key rotation must never run because someone asked how to use it), and an unknown
 * option is refused. Null when the usage was printed.
 */
function commandOptions<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], options: T) {
  let parsed: { values: Record<string, string | boolean | undefined> };
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean' } }, strict: true, allowPositionals: false }) as typeof parsed;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n\n${USAGE}`);
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return null;
  }
  return parsed.values as { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean };
}

/** Email addresses as the API takes them (`format: email`): an admin the CLI makes can sign in. */
const validEmail = compileBodyValidator({ type: 'string', format: 'email', maxLength: 320 });

async function migrate(config: Config, args: string[]): Promise<void> {
  if (!commandOptions(args, {})) return;
  const log = logger(config);
  const handle = await openDatabase(config, log, { migrate: true });
  log.info('database is up to date');
  await handle.close();
}

async function createAdmin(config: Config, args: string[]): Promise<void> {
  const values = commandOptions(args, { email: { type: 'string' }, password: { type: 'string' } });
  if (!values) return;
  const email = values.email?.trim();
  const password = values.password;
  if (!email || !password) throw new ConfigError('create-admin needs --email and --password');
  if (!validEmail(email)) throw new ConfigError(`"${email}" is not an email address`);
  if (password.length < 12 || password.trim() === '') throw new ConfigError('the password must be at least 12 characters, not all spaces');
  const log = logger(config);
  const handle = await openDatabase(config, log, { migrate: true });
  try {
    // Emails are unique across the platform, whatever their case: an existing user is not changed.
    if (await findLiveUserByEmailAnyTenant(handle.db, email)) throw new ConfigError(`a user with email ${email} already exists; nothing was changed`);
    // A fresh database: its first start makes the default tenant, and this admin as its first.
    await bootstrapPlatform(handle.db, { ...config, adminEmail: email, adminPassword: password }, log);
    if (!(await findLiveUserByEmailAnyTenant(handle.db, email))) await createPlatformAdmin(handle.db, email, password);
    log.info({ email }, 'platform admin created');
  } finally {
    await handle.close();
  }
}

async function rotateSecretKey(config: Config, args: string[]): Promise<void> {
  if (!commandOptions(args, {})) return;
  // Rotation is from the keys named in QUIRE_SECRET_KEY: without them, the data dir's key would be
  // made afresh (when missing) and every stored credential reported unreadable.
  if (!config.secretKey) throw new ConfigError('rotate-secret-key needs QUIRE_SECRET_KEY=<new key>,<old key>: the first key seals, the others open what they sealed (docs/endpoints.md)');
  const log = logger(config);
  const box = SecretBox.fromConfig(config);
  const handle = await openDatabase(config, log, { migrate: true });
  try {
    const reports = await rotateSealedColumns(handle.db, box);
    for (const r of reports) log.info({ table: r.table, column: r.column, resealed: r.resealed, current: r.current, unreadable: r.unreadable.length }, 'sealed column rotated');
    const unreadable = reports.flatMap((r) => r.unreadable.map((id) => `${r.table}:${id}`));
    if (unreadable.length) {
      log.error({ unreadable }, 'some values open with none of the QUIRE_SECRET_KEY keys: add the key they were sealed with and run the command again');
      process.exitCode = 1;
      return;
    }
    log.info({ key_id: box.primaryKeyId }, 'every sealed value now uses the first key; older keys can be removed from QUIRE_SECRET_KEY');
  } finally {
    await handle.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command === '--version') return void process.stdout.write(`${VERSION}\n`);
  // The pipeline on one file, without a server or database: needs no configuration.
  if (command === 'extract') {
    const { extractCommand } = await import('./pipeline/extract-command.js');
    process.exitCode = await extractCommand(rest);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config, rest);
    case 'worker':
      return worker(config, rest);
    case 'migrate':
      return migrate(config, rest);
    case 'create-admin':
      return createAdmin(config, rest);
    case 'rotate-secret-key':
      return rotateSecretKey(config, rest);
    default:
      throw new ConfigError(`unknown command "${command}"\n\n${USAGE}`);
  }
}
