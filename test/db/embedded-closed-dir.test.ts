// As root, the embedded server runs as the `postgres` user. A data dir inside a directory closed to
// other users (a `mktemp -d`, /root) still gets a working server: its cluster lives in a directory
// of its own outside, and is removed once its data dir is gone. (When node_modules itself lies in
// such a directory, the binaries are copied out too: the whole suite run from a checkout in a
// `mktemp -d` exercises that.)
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

function tempDir(mode: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-closed-'));
  fs.chmodSync(dir, mode);
  dirs.push(dir);
  return dir;
}

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

// Only root hands the server to another user; any other user runs it as itself.
describe.runIf(os.userInfo().uid === 0)('embedded PostgreSQL under a closed directory, as root', () => {
  it('keeps the cluster outside the data dir, reuses it on restart, and removes it once the data dir is gone', async () => {
    const outside = tempDir(0o755);
    const closed = tempDir(0o700);
    const dataDir = path.join(closed, '.quire');

    const server = await startEmbeddedPostgres(dataDir, log, 'quire', outside);
    const settings = JSON.parse(fs.readFileSync(path.join(dataDir, 'postgres.json'), 'utf8')) as { pgDir?: string };
    try {
      await query(server.url, `CREATE TABLE kept AS SELECT 'written before the restart' AS note`);
      expect(settings.pgDir?.startsWith(`${outside}/`)).toBe(true);
      expect(fs.existsSync(path.join(settings.pgDir!, 'PG_VERSION'))).toBe(true);
      expect(fs.readFileSync(path.join(path.dirname(settings.pgDir!), 'data-dir'), 'utf8')).toBe(dataDir);
      // The closed directory itself was left as it was.
      expect(fs.statSync(closed).mode & 0o777).toBe(0o700);
    } finally {
      await server.stop();
    }

    // A restart finds the same cluster (and the data written there).
    const again = await startEmbeddedPostgres(dataDir, log, 'quire', outside);
    try {
      expect(await query(again.url, 'SELECT note FROM kept')).toEqual([{ note: 'written before the restart' }]);
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'postgres.json'), 'utf8')).pgDir).toBe(settings.pgDir);
    } finally {
      await again.stop();
    }

    // Its data dir deleted, the cluster goes at the next start of any closed-directory server.
    fs.rmSync(dataDir, { recursive: true, force: true });
    const otherDataDir = path.join(tempDir(0o700), '.quire');
    const other = await startEmbeddedPostgres(otherDataDir, log, 'quire', outside);
    try {
      expect(fs.existsSync(path.dirname(settings.pgDir!))).toBe(false);
      // Only the other data dir's cluster is left.
      const clusters = fs.readdirSync(outside).filter((e) => fs.existsSync(path.join(outside, e, 'data-dir')));
      expect(clusters).toHaveLength(1);
      expect(fs.readFileSync(path.join(outside, clusters[0]!, 'data-dir'), 'utf8')).toBe(otherDataDir);
    } finally {
      await other.stop();
    }
  }, 240_000);

  it('does not move a cluster made inside its data dir when a directory above closes later, and names that directory', async () => {
    const parent = tempDir(0o755);
    const dataDir = path.join(parent, '.quire');
    const server = await startEmbeddedPostgres(dataDir, log, 'quire', tempDir(0o755));
    await server.stop();
    expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    fs.chmodSync(parent, 0o700);
    await expect(startEmbeddedPostgres(dataDir, log, 'quire', tempDir(0o755))).rejects.toThrow(`which cannot enter ${parent}; set QUIRE_DATA_DIR`);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
  }, 120_000);
});
