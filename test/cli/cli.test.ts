// The real `quire` binary: serve on the embedded database (start, stop cleanly, reuse),
// and migrations run by several processes at once.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/quire.js');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    // A probe that throws a plain Error has seen a fatal condition; a fetch failure means "not yet".
    const value = await probe().catch((err: Error) => {
      if (err.message.startsWith('quire serve exited')) throw err;
      return undefined;
    });
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

// One build per test run, shared with the other tests of the binary (test/helpers/build.ts).
beforeAll(() => ensureBuilt(), 300_000);

describe('quire serve on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  async function serveOnce(env: Record<string, string>) {
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, [bin, 'serve', '--no-workers'], {
      env: { ...process.env, DATABASE_URL: '', QUIRE_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const ready = await waitFor('ready', async () => {
      if (child.exitCode !== null) throw new Error(`quire serve exited early (${child.exitCode}):\n${output}`);
      const res = await fetch(`http://127.0.0.1:${port}/v1/health/ready`);
      return res.status === 200 ? true : undefined;
    });
    expect(ready).toBe(true);
    return { child, port, output: () => output };
  }

  it('initialises, serves, stops PostgreSQL with it, and reuses the data on the next start', async () => {
    const first = await serveOnce({ QUIRE_ADMIN_EMAIL: 'ops@example.com', QUIRE_ADMIN_PASSWORD: '' });
    const printed = /Generated password \(shown once\): (\S+)/.exec(first.output());
    expect(printed, first.output()).not.toBeNull();
    const password = printed![1]!;
    const login = await fetch(`http://127.0.0.1:${first.port}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password }),
    });
    expect(login.status).toBe(200);
    // The secret never reaches the structured log lines.
    const logLines = first.output().split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.some((l) => l.includes(password))).toBe(false);

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = await serveOnce({ QUIRE_ADMIN_EMAIL: 'ops@example.com' });
    expect(second.output()).not.toContain('initialising embedded PostgreSQL');
    expect(second.output()).not.toContain('Generated password');
    const again = await fetch(`http://127.0.0.1:${second.port}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password }),
    });
    expect(again.status).toBe(200);
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  }, 120_000);

  it('starts its PostgreSQL again when it is killed under a running server', async () => {
    const served = await serveOnce({});
    const started = /"postgresPid":(\d+)[^\n]*"embedded PostgreSQL (?:started|adopted)/.exec(served.output());
    expect(started, served.output()).not.toBeNull();
    process.kill(Number(started![1]), 'SIGKILL');
    // The outage lasts about a second (a 500 ms pause, then PostgreSQL's crash recovery), too short
    // to be caught reliably by polling readiness; the keeper's log lines are the evidence.
    await waitFor('the server to be started again', async () => (served.output().includes('embedded PostgreSQL started again') ? true : undefined), 90_000);
    expect(served.output()).toContain('embedded PostgreSQL stopped unexpectedly');
    const ready = async () => ((await fetch(`http://127.0.0.1:${served.port}/v1/health/ready`)).status === 200 ? true : undefined);
    await waitFor('the database to be back', ready, 30_000);
    // Its data survived: the admin made by the first start can still be looked up (a wrong password is a 401, not a 5xx).
    const login = await fetch(`http://127.0.0.1:${served.port}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: 'not-the-password' }) });
    expect(login.status).toBe(401);
    served.child.kill('SIGTERM');
    expect(await exited(served.child)).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 180_000);

  it('exits with the reason when it cannot listen, and leaves no PostgreSQL running', async () => {
    // The port is taken: the database starts, the listen fails, and the start is undone.
    const taken = net.createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as net.AddressInfo).port)));
    try {
      let output = '';
      const child = spawn(process.execPath, [bin, 'serve', '--no-workers'], {
        env: { ...process.env, DATABASE_URL: '', QUIRE_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      const code = await exited(child);
      expect(code, output).not.toBe(0);
      expect(output).toContain('EADDRINUSE');
      expect(output).toMatch(/embedded PostgreSQL (started|adopted)/);
      expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  }, 120_000);

  it('lists every environment variable in serve --help', () => {
    const help = execFileSync(process.execPath, [bin, 'serve', '--help']).toString();
    for (const name of ['PORT', 'DATABASE_URL', 'QUIRE_DATA_DIR', 'QUIRE_WORKERS', 'QUIRE_SECRET_KEY', 'REDIS_URL', 'LOG_LEVEL']) expect(help).toContain(name);
  });
});

describe('quire migrate', () => {
  it('is safe when several processes run it at once on a fresh database', async () => {
    const server = inject('serverUrl');
    const name = `quire_t_${inject('runId')}_migrate`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    const runs = Array.from({ length: 3 }, () => {
      const child = spawn(process.execPath, [bin, 'migrate'], { env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' }, stdio: 'inherit' });
      return exited(child);
    });
    expect(await Promise.all(runs)).toEqual([0, 0, 0]);
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    const { rows } = await db.query('SELECT name FROM kysely_migration ORDER BY name');
    expect(rows.map((r) => r.name)[0]).toBe('0001_foundation');
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    await db.end();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }, 60_000);
});
