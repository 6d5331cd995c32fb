// An embedded PostgreSQL left running by a process that crashed is adopted by the next process,
// started again if it ends while that process runs, and stopped on its clean shutdown; one that a
// live process still owns is left to its owner.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { oneOffClient } from '../../src/db/one-off-client.js';
import { waitFor } from '../helpers/documents.js';

const log = pino({ level: 'silent' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-adopt-'));
const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
const serverFile = path.join(dataDir, 'postgres.json');
const postmasterPid = () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : null);
const ownerPid = () => (JSON.parse(fs.readFileSync(serverFile, 'utf8')) as { ownerPid?: number }).ownerPid;
const owners: ChildProcess[] = [];

afterAll(() => {
  for (const owner of owners) if (owner.exitCode === null) owner.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Another Quire process that starts the server and owns it. */
async function startOwner(): Promise<ChildProcess> {
  const owner = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, '../helpers/embedded-owner.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  owners.push(owner);
  let out = '';
  owner.stdout!.on('data', (d) => (out += d));
  await waitFor('the owner to start its server', async () => out.includes('up') || (owner.exitCode !== null && Promise.reject(new Error(`owner exited ${owner.exitCode}`))), 90_000);
  return owner;
}

async function answers(url: string): Promise<boolean> {
  const client = oneOffClient(url);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('embedded PostgreSQL ownership', () => {
  it('leaves a server a live owner holds; adopts one whose owner crashed, keeps it running, and stops it on shutdown', async () => {
    const owner = await startOwner();
    expect(ownerPid()).toBe(owner.pid);

    // The owner is alive: joining leaves the server to it.
    const joined = await startEmbeddedPostgres(dataDir, log, 'quire');
    await joined.stop();
    expect(postmasterPid()).not.toBeNull();

    // The owner crashes and its server stays: the next process adopts it.
    owner.kill('SIGKILL');
    await new Promise((r) => owner.once('exit', r));
    const first = postmasterPid()!;
    const adopted = await startEmbeddedPostgres(dataDir, log, 'quire');
    expect(ownerPid()).toBe(process.pid);

    // The adopted server is killed: it is started again, on the same data.
    process.kill(first, 'SIGKILL');
    await waitFor('the server to be started again', async () => {
      const pid = postmasterPid();
      return pid !== null && pid !== first && (await answers(adopted.url)) ? true : undefined;
    }, 90_000);

    await adopted.stop();
    expect(postmasterPid()).toBeNull();
  }, 240_000);
});
