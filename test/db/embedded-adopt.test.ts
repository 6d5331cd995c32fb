// An embedded PostgreSQL left running by a process that crashed is adopted by the next process
// and stopped on its clean shutdown; one that a live process still owns is left to its owner.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';

const log = pino({ level: 'silent' });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-adopt-'));
const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
const serverFile = path.join(dataDir, 'postgres.json');
const running = () => fs.existsSync(pidFile);
const setOwner = (pid: number) => fs.writeFileSync(serverFile, JSON.stringify({ ...JSON.parse(fs.readFileSync(serverFile, 'utf8')), ownerPid: pid }));

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('embedded PostgreSQL ownership', () => {
  it('adopts a server whose owner died and stops it on shutdown; leaves one a live owner holds', async () => {
    await startEmbeddedPostgres(dataDir, log, 'quire');
    expect(running()).toBe(true);

    // The owner is alive (another Quire process): joining leaves the server to it.
    const owner = spawn('sleep', ['60']);
    setOwner(owner.pid!);
    const joined = await startEmbeddedPostgres(dataDir, log, 'quire');
    await joined.stop();
    expect(running()).toBe(true);
    owner.kill('SIGKILL');

    // The owner crashed (its pid is gone): the next process adopts the server and stops it.
    const gone = spawnSync('true').pid!;
    setOwner(gone);
    const adopted = await startEmbeddedPostgres(dataDir, log, 'quire');
    expect(JSON.parse(fs.readFileSync(serverFile, 'utf8')).ownerPid).toBe(process.pid);
    await adopted.stop();
    expect(running()).toBe(false);
  }, 120_000);
});
