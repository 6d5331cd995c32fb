// The embedded server is reached over a Unix socket in its data dir (cheaper round trips than
// loopback TCP), and over TCP when the data dir's path is too long to hold a socket.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function serverAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // NULL over a Unix socket; the server's IP address over TCP.
    return (await client.query<{ addr: string | null }>('SELECT host(inet_server_addr()) AS addr')).rows[0]!.addr;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL connection', () => {
  it('goes over the Unix socket in the data dir', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-socket-'));
    dirs.push(dataDir);
    const server = await startEmbeddedPostgres(dataDir, log, 'quire');
    try {
      expect(new URL(server.url).searchParams.get('host')).toBe(path.join(dataDir, 'pg'));
      expect(await serverAddress(server.url)).toBeNull();
      // A second process joining the running server is given the socket too.
      const joined = await startEmbeddedPostgres(dataDir, log, 'quire');
      expect(await serverAddress(joined.url)).toBeNull();
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('goes over loopback TCP when the data dir path is too long for a socket', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-socket-'));
    dirs.push(base);
    // mkdtemp makes it private; as root the server runs as `postgres`, which must pass through it.
    fs.chmodSync(base, 0o711);
    const dataDir = path.join(base, 'a-data-directory-whose-path-is-longer-than-a-unix-socket-address-can-hold');
    const server = await startEmbeddedPostgres(dataDir, log, 'quire');
    try {
      expect(new URL(server.url).searchParams.has('host')).toBe(false);
      expect(await serverAddress(server.url)).toBe('127.0.0.1');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
