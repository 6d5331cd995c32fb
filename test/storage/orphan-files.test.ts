// Files in the blob store that no blob row names: what a registration lost in a database crash
// leaves behind (its commit did not wait for the WAL flush, its file was already written). The
// sweep removes them once past the grace period, and never a file a registration wants.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { registerBlob, storeAllBytes, sweepOrphanFiles } from '../../src/storage/blob-registry.js';
import { blobKey } from '../../src/storage/blob-store.js';
import { createBlobStore } from '../../src/storage/index.js';
import pino from 'pino';
import { sql } from 'kysely';
import { Maintenance, purge } from '../../src/queue/maintenance.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
// A registration is lost only when the database restarts (crash, failover, restore); the sweep
// examines the store again after each. Forgetting its mark is such a restart, as the sweep sees it.
const restartDatabase = () => h.db.deleteFrom('maintenance_marks').execute();
beforeEach(restartDatabase);

const blobFile = (sha256: string) => path.join(h.config.dataDir, 'blobs', ...blobKey(sha256).split('/'));
const twoHoursAgo = () => new Date(Date.now() - 2 * 3600 * 1000);
const age = (sha256: string) => fs.utimesSync(blobFile(sha256), twoHoursAgo(), twoHoursAgo());

describe('files without a blob row', () => {
  it('are removed once past the grace period; registered and recent files stay', async () => {
    const store = createBlobStore(h.config);
    // Written by the store alone, as after a registration lost with the database's unflushed WAL.
    const lost = await store.putBytes(Buffer.from('artifact of a run whose registration was lost'));
    const lostRecently = await store.putBytes(Buffer.from('written a moment ago, its registration may be on its way'));
    const [registered] = await storeAllBytes(h.db, store, [Buffer.from('artifact of a settled run')]);
    age(lost.sha256);
    age(registered!.sha256);

    const report = await purge(h.db, store);
    expect(report).toMatchObject({ orphan_files: 1 });
    expect(await store.exists(lost.sha256)).toBe(false);
    expect(await store.exists(lostRecently.sha256)).toBe(true);
    expect(await store.exists(registered!.sha256)).toBe(true);
    // The sweep's own hold on the row is gone with it.
    expect(await h.db.selectFrom('blobs').select('sha256').where('sha256', '=', lost.sha256).execute()).toEqual([]);
    await restartDatabase();
    expect(await sweepOrphanFiles(h.db, store)).toBe(0);
  });

  it('are looked for again after a database restart, or a day later: the store is not listed every hour', async () => {
    const store = createBlobStore(h.config);
    // What earlier tests left unregistered goes first, so the counts below are this test's own.
    await sweepOrphanFiles(h.db, store, 0);
    await restartDatabase();
    let listings = 0;
    const list = store.list.bind(store);
    store.list = () => (listings++, list());
    const counted = store;
    const first = await store.putBytes(Buffer.from('left by a registration lost before the restart'));
    age(first.sha256);
    // No grace period: every file is older than the cutoff, which is past the server's start.
    expect(await sweepOrphanFiles(h.db, counted, 0)).toBe(1);
    expect(listings).toBe(1);
    expect(await store.exists(first.sha256)).toBe(false);
    // Under the same server start no registration can have been lost: nothing is listed.
    const second = await store.putBytes(Buffer.from('a file no registration lost names'));
    age(second.sha256);
    expect(await sweepOrphanFiles(h.db, counted, 0)).toBeNull();
    expect(listings).toBe(1);
    expect(await store.exists(second.sha256)).toBe(true);
    // A day later the store is listed again all the same: an upload rolled back after moving its
    // file in (its process killed) also leaves one.
    await sql`UPDATE maintenance_marks SET updated_at = now() - interval '25 hours'`.execute(h.db);
    expect(await sweepOrphanFiles(h.db, counted, 0)).toBe(1);
    expect(listings).toBe(2);
    expect(await store.exists(second.sha256)).toBe(false);
    expect(await sweepOrphanFiles(h.db, counted, 0)).toBeNull();
    const third = await store.putBytes(Buffer.from('left by another lost registration'));
    age(third.sha256);
    await restartDatabase();
    expect(await sweepOrphanFiles(h.db, counted, 0)).toBe(1);
    expect(listings).toBe(3);
    expect(await store.exists(third.sha256)).toBe(false);
  });

  it('keep listing while a sweep stops at its limit or within a grace period of the server start', async () => {
    const store = createBlobStore(h.config);
    const files = await Promise.all([store.putBytes(Buffer.from('orphan one of two')), store.putBytes(Buffer.from('orphan two of two'))]);
    for (const f of files) age(f.sha256);
    // Cut short after one removal: the other is still to be examined.
    expect(await sweepOrphanFiles(h.db, store, 0, 1)).toBe(1);
    expect(await sweepOrphanFiles(h.db, store, 0, 1)).toBe(1);
    expect(files.filter((f) => fs.existsSync(blobFile(f.sha256)))).toEqual([]);
    // A grace period reaching back past the server's start: files written before it and inside
    // the grace period were not examined, so the next sweep lists again.
    await restartDatabase();
    const { rows } = await sql<{ up: number }>`SELECT extract(epoch FROM now() - pg_postmaster_start_time())::float8 AS up`.execute(h.db);
    const graceSeconds = Math.ceil(rows[0]!.up) + 60;
    expect(await sweepOrphanFiles(h.db, store, graceSeconds)).toBe(0);
    expect(await sweepOrphanFiles(h.db, store, graceSeconds)).toBe(0);
  });

  it('keeps a file whose registration commits while the sweep looks at it', async () => {
    const store = createBlobStore(h.config);
    const bytes = Buffer.from('the same content uploaded again while the sweep runs');
    const { sha256 } = await store.putBytes(bytes);
    age(sha256);
    // A registration that has inserted its row but not committed: the sweep sees no row yet.
    let registered!: () => void;
    const rowInserted = new Promise<void>((resolve) => (registered = resolve));
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const upload = h.db.transaction().execute(async (tx) => {
      await registerBlob(tx, sha256, bytes.length);
      registered();
      await committed;
    });
    await rowInserted;
    const sweep = sweepOrphanFiles(h.db, store);
    // The sweep now waits on the registration's row; the registration then commits.
    await new Promise((r) => setTimeout(r, 300));
    commit();
    await upload;
    expect(await sweep).toBe(0);
    expect(await store.exists(sha256)).toBe(true);
    expect(await h.db.selectFrom('blobs').select('size_bytes').where('sha256', '=', sha256).executeTakeFirstOrThrow()).toEqual({ size_bytes: bytes.length });
  });

  it('staged files left by an interrupted upload are removed after an hour; one being received stays', async () => {
    const store = createBlobStore(h.config);
    fs.mkdirSync(store.stagingDir, { recursive: true });
    const interrupted = path.join(store.stagingDir, 'upload-interrupted');
    const receiving = path.join(store.stagingDir, 'upload-receiving');
    fs.writeFileSync(interrupted, 'half an upload');
    fs.writeFileSync(receiving, 'bytes still arriving');
    fs.utimesSync(interrupted, twoHoursAgo(), twoHoursAgo());
    await new Maintenance(h.db, store, 3600, pino({ level: 'silent' })).once();
    expect(fs.existsSync(interrupted)).toBe(false);
    expect(fs.existsSync(receiving)).toBe(true);
  });
});
