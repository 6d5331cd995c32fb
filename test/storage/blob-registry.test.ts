// Registering a blob: a new one gets its row, a known one is touched only when its last touch is
// over a minute old, so uploads of the same content do not queue on the row one behind another,
// and purge still never takes a blob an upload is about to reference.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { purgeUnreferencedBlobs, registerBlob, storeAllBytes, storeStaged } from '../../src/storage/blob-registry.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createBlobStore } from '../../src/storage/index.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const touchedAt = async (sha256: string) => (await h.db.selectFrom('blobs').select('touched_at').where('sha256', '=', sha256).executeTakeFirstOrThrow()).touched_at as Date;
const setTouched = (sha256: string, secondsAgo: number) =>
  sql`UPDATE blobs SET touched_at = now() - make_interval(secs => ${secondsAgo}) WHERE sha256 = ${sha256}`.execute(h.db);

describe('blob registration', () => {
  it("leaves an upload's transaction waiting for its flush: the job accepted with it must survive a database crash", async () => {
    // The registration shares the transaction that inserts the job (the request's, a source
    // poll's); synchronous_commit = off would hold for all of it, and the 202 go out first.
    const store = { putStaged: async () => undefined } as unknown as BlobStore;
    const setting = await h.db.transaction().execute(async (tx) => {
      await storeStaged(tx, store, { sha256: sha('an accepted upload'), size: 12 } as never);
      return (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(tx)).rows[0]!.synchronous_commit;
    });
    expect(setting).toBe('on');
    // A worker's artifacts, registered on their own, still skip the wait.
    const artifacts = await h.db.transaction().execute(async (tx) => {
      await storeAllBytes(tx, { putBytes: async () => undefined } as unknown as BlobStore, [Buffer.from('an artifact')]);
      return (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(tx)).rows[0]!.synchronous_commit;
    });
    expect(artifacts).toBe('off');
  });

  it('registers the same new content from many uploads at once as one row', async () => {
    const sha256 = sha('sixteen uploads of one invoice');
    await Promise.all(Array.from({ length: 16 }, () => registerBlob(h.db, sha256, 30)));
    const rows = await h.db.selectFrom('blobs').select(['sha256', 'size_bytes']).where('sha256', '=', sha256).execute();
    expect(rows).toEqual([{ sha256, size_bytes: 30 }]);
  });

  it('touches a known blob again only when its last touch is over a minute old', async () => {
    const recent = sha('touched half a minute ago');
    const stale = sha('touched two hours ago');
    for (const s of [recent, stale]) await registerBlob(h.db, s, 10);
    await setTouched(recent, 30);
    await setTouched(stale, 7200);
    const [recentBefore, staleBefore] = [await touchedAt(recent), await touchedAt(stale)];

    await registerBlob(h.db, recent, 10);
    await registerBlob(h.db, stale, 10);

    expect((await touchedAt(recent)).getTime()).toBe(recentBefore.getTime());
    expect((await touchedAt(stale)).getTime()).toBeGreaterThan(staleBefore.getTime() + 7000 * 1000);
  });

  it('keeps a blob registered again from purge, stale or not', async () => {
    const store = createBlobStore(h.config);
    const [artifact] = await storeAllBytes(h.db, store, [Buffer.from('an artifact registered two hours ago, then again')]);
    await setTouched(artifact!.sha256, 7200);
    await storeAllBytes(h.db, store, [Buffer.from('an artifact registered two hours ago, then again')]);
    await purgeUnreferencedBlobs(h.db, store);
    expect(await store.exists(artifact!.sha256)).toBe(true);
    expect((await h.db.selectFrom('blobs').select('sha256').where('sha256', '=', artifact!.sha256).execute()).length).toBe(1);
  });
});
