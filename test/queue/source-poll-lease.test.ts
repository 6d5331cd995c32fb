// One poll of a source at a time: a poll still reading a file when the next poll falls due keeps
// the connection, so a second poller (another worker process) neither lists nor reads it; once the
// poll ends the connection is free again, a poller that died mid-poll loses it when its lease
// lapses, and one that stalled past its lease makes nothing once it wakes. A real SSH server on loopback (the ssh2 package's server) holds a file's open for as
// long as a test wants, as a slow server does; two pollers share one real database.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueSource, endPoll } from '../../src/sources/source-files.repository.js';
import { SourcePoller } from '../../src/sources/source-poller.js';
import { createBlobStore } from '../../src/storage/index.js';
import { DATA } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type SftpServer, startSftpServer } from '../helpers/sftp-server.js';

let h: Harness;
let admin: string;
let sftp: SftpServer;
let pollers: SourcePoller[];
const pdf = fs.readFileSync(path.join(DATA, 'pdf-realworld/pdfs/issue-912.pdf'));

beforeAll(async () => {
  sftp = await startSftpServer();
  h = await startHarness({ allowPrivateNetwork: true });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
  // As in two worker processes: each its own poller and blob store handle, one database.
  pollers = ['worker-a', 'worker-b'].map((workerId) => new SourcePoller({ db: h.db, config: h.config, blobs: createBlobStore(h.config), log: pino({ level: 'silent' }), workerId }));
});
afterAll(async () => {
  await h.close();
  await sftp.close();
});

async function source(name: string, config: Record<string, unknown> = {}): Promise<string> {
  fs.mkdirSync(path.join(sftp.root, name), { recursive: true });
  const body = {
    name,
    protocol: 'sftp',
    direction: 'source',
    config: { host: sftp.host, port: sftp.port, username: sftp.username, host_key_sha256: sftp.hostKeySha256, path: `/${name}`, settle_seconds: 0, poll_seconds: 3600, processing_mode: 'canonical', ...config },
    credentials: { password: sftp.password },
  };
  const res = await h.request('POST', '/v1/admin/connections', { token: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function jobNamesOf(connectionId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('jobs').select(['original_filename', 'metadata']).where('tenant_id', '=', 'acme').execute();
  return rows.filter((r) => (r.metadata as { source?: { connection_id: string } }).source?.connection_id === connectionId).map((r) => r.original_filename!);
}

const due = (id: string) => h.db.updateTable('connections').set({ next_poll_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();

/** Resolves once `probe` holds; stops looking when `stop()` is called. */
function until(probe: () => boolean): { reached: Promise<void>; stop: () => void } {
  let stopped = false;
  const reached = (async () => {
    while (!stopped && !probe()) await new Promise((r) => setTimeout(r, 20));
  })();
  return { reached, stop: () => (stopped = true) };
}

describe('a source poll', () => {
  it('keeps its connection while it runs: the next poll that falls due meanwhile reads nothing', async () => {
    const id = await source('slow-scans');
    fs.writeFileSync(path.join(sftp.root, 'slow-scans/scan.pdf'), pdf);
    let opens = 0;
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    sftp.onOpen = (file) => {
      if (file !== '/slow-scans/scan.pdf') return;
      opens++;
      return slow;
    };
    try {
      await due(id);
      const first = pollers[0]!.pollDue();
      const opened = until(() => opens === 1);
      await opened.reached;
      const held = await h.db.selectFrom('connections').select(['poll_owner', 'poll_lease_expires_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(held.poll_owner).toMatch(/^worker-a:poll-/);
      expect(held.poll_lease_expires_at!.getTime()).toBeGreaterThan(Date.now());
      // The file is still arriving when the connection's next poll falls due, and another worker looks.
      await due(id);
      const twice = until(() => opens > 1);
      const outcome = await Promise.race([pollers[1]!.pollDue().then((polled) => `second poller done, ${polled} polled`), twice.reached.then(() => 'the file was opened twice')]);
      twice.stop();
      release();
      await first;
      expect(outcome).toBe('second poller done, 0 polled');
      expect(opens).toBe(1);
      expect(await jobNamesOf(id)).toEqual(['scan.pdf']);
    } finally {
      sftp.onOpen = null;
      release();
    }
    // The poll over, the connection is free: the next due poll runs (and finds nothing new).
    expect((await h.db.selectFrom('connections').select('poll_owner').where('id', '=', id).executeTakeFirstOrThrow()).poll_owner).toBeNull();
    await due(id);
    expect(await pollers[1]!.pollDue()).toBe(1);
    expect(await jobNamesOf(id)).toEqual(['scan.pdf']);
  });

  it('whose lease lapsed (its worker stalled) makes no job and leaves the connection to the poll that took it over', async () => {
    const id = await source('stalled');
    fs.writeFileSync(path.join(sftp.root, 'stalled/scan.pdf'), pdf);
    let opens = 0;
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    sftp.onOpen = (file) => {
      if (file !== '/stalled/scan.pdf') return;
      opens++;
      return opens === 1 ? stalled : undefined;
    };
    try {
      await due(id);
      const first = pollers[0]!.pollDue();
      const opened = until(() => opens === 1);
      await opened.reached;
      // The poll stalls past its lease; the connection falls due and another worker claims it.
      await h.db.updateTable('connections').set({ poll_lease_expires_at: new Date(Date.now() - 1_000), next_poll_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();
      const takeover = await claimDueSource(h.db, 'worker-b:poll-takeover', 60);
      expect(takeover?.id).toBe(id);
      release();
      await first;
      // The stalled poll read the file, then found its lease gone: no job, and the connection untouched.
      expect(opens).toBe(1);
      expect(await jobNamesOf(id)).toEqual([]);
      const row = await h.db.selectFrom('connections').select(['poll_owner', 'last_poll_error']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual({ poll_owner: 'worker-b:poll-takeover', last_poll_error: null });
      // Still held by the live poll, it is not claimed again however due it is.
      await due(id);
      expect(await pollers[1]!.pollDue()).toBe(0);
      await endPoll(h.db, id, 'worker-b:poll-takeover', null);
    } finally {
      sftp.onOpen = null;
      release();
    }
    await due(id);
    expect(await pollers[1]!.pollDue()).toBe(1);
    expect(await jobNamesOf(id)).toEqual(['scan.pdf']);
  });

  it('of a worker that died is taken over once its lease lapses', async () => {
    const id = await source('orphaned');
    fs.writeFileSync(path.join(sftp.root, 'orphaned/scan.pdf'), pdf);
    const lease = (expires: Date) => h.db.updateTable('connections').set({ poll_owner: 'worker-gone:poll-1', poll_lease_expires_at: expires, next_poll_at: new Date(Date.now() - 1_000) }).where('id', '=', id).execute();
    await lease(new Date(Date.now() + 60_000));
    expect(await pollers[0]!.pollDue()).toBe(0);
    expect(await jobNamesOf(id)).toEqual([]);
    await lease(new Date(Date.now() - 1_000));
    expect(await pollers[0]!.pollDue()).toBe(1);
    expect(await jobNamesOf(id)).toEqual(['scan.pdf']);
    expect((await h.db.selectFrom('connections').select('poll_owner').where('id', '=', id).executeTakeFirstOrThrow()).poll_owner).toBeNull();
  });
});
