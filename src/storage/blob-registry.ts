// The blobs table: which blobs exist, and purge of the ones nothing references any more.
// Ordering that keeps purge safe beside concurrent uploads: an upload registers (or touches) the
// row BEFORE it writes the blob, and purge deletes the row and the blob in one transaction. An
// upload racing a purge of the same content waits on the row lock (held even when the touch is
// skipped), then re-creates the row and writes the blob after purge removed it; a blob touched
// within the grace period is never purged.
// The other way round, a file with no row: a registration can be lost after its file was written
// (a worker's commits without waiting for the WAL flush; an upload's rolls back with its request
// when the process dies before answering); unless the same content is registered again, nothing
// refers to that file, and sweepOrphanFiles removes it.
import { createHash } from 'node:crypto';
import { executePrepared } from '../db/prepared-statements.js';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { noFlushWait } from '../db/no-flush-wait.js';
import type { BlobStore, StagedFile, StoredBlob } from './blob-store.js';

/**
 * A registration touches a known blob only when its last touch is older than this. Purge waits an
 * hour past the last touch, so a touch less than a minute old protects an upload as well as a new
 * one would; skipping it spares the write, and with it the WAL flush that every other upload of
 * the same content would queue behind on the row's lock.
 */
const TOUCH_AGAIN_AFTER_SECONDS = 60;

/**
 * Registers blobs before their files are written, in one statement. A worker's artifacts commit
 * without waiting for the WAL flush (db/no-flush-wait.ts): the artifact rows that reference them
 * commit later and wait, which makes the registration durable first; a crash before that loses
 * both, and a file left without a row is swept (sweepOrphanFiles). An upload's registration waits:
 * it shares a transaction with the job it accepts (the request's, or a source poll's), and
 * `synchronous_commit = off` holds for a whole transaction, so the 202 would go out before the
 * job was durable.
 */
async function registerBlobs(db: Db, blobs: { sha256: string; size: number }[], durability: 'wait' | 'no_flush_wait'): Promise<void> {
  const rows = [...new Map(blobs.map((b) => [b.sha256, { sha256: b.sha256, size_bytes: b.size }])).values()];
  if (!rows.length) return;
  await executePrepared(
    db,
    sql`
    INSERT INTO blobs (sha256, size_bytes)
    SELECT b.sha256, b.size_bytes FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS b(sha256 text, size_bytes bigint)
     WHERE ${durability === 'no_flush_wait' ? noFlushWait : sql<boolean>`true`}
    ON CONFLICT (sha256) DO UPDATE SET touched_at = now()
     WHERE blobs.touched_at < now() - make_interval(secs => ${TOUCH_AGAIN_AFTER_SECONDS})`,
  );
}

/** Registers, then moves a staged upload into the store (inside the transaction that accepts it). */
export async function storeStaged(db: Db, store: BlobStore, staged: StagedFile): Promise<void> {
  await registerBlobs(db, [{ sha256: staged.sha256, size: staged.size }], 'wait');
  await store.putStaged(staged);
}

/** Registers one blob, waiting for the flush (tests and one-off callers). */
export async function registerBlob(db: Db, sha256: string, size: number): Promise<void> {
  await registerBlobs(db, [{ sha256, size }], 'wait');
}

/** Registers, then writes bytes already in memory (artifacts). */
export async function storeBytes(db: Db, store: BlobStore, bytes: Uint8Array): Promise<{ sha256: string; size: number }> {
  const [stored] = await storeAllBytes(db, store, [bytes]);
  return stored!;
}

/** Registers several in-memory files in one statement, then writes them (a job's artifacts). */
export async function storeAllBytes(db: Db, store: BlobStore, files: Uint8Array[]): Promise<{ sha256: string; size: number }[]> {
  const out = files.map((bytes) => ({ sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length }));
  await registerBlobs(db, out, 'no_flush_wait');
  await Promise.all(files.map((bytes, i) => store.putBytes(bytes, out[i]!.sha256)));
  return out;
}

/** Removes blobs that no job and no artifact references, untouched for `graceSeconds`. */
export async function purgeUnreferencedBlobs(db: Db, store: BlobStore, graceSeconds = 3600, limit = 1000): Promise<number> {
  const candidates = await sql<{ sha256: string }>`
    SELECT b.sha256 FROM blobs b
     WHERE b.touched_at < now() - make_interval(secs => ${graceSeconds})
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.sha256 = b.sha256)
       AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.sha256 = b.sha256)
     LIMIT ${limit}`.execute(db);
  let purged = 0;
  for (const { sha256 } of candidates.rows) {
    const done = await db.transaction().execute(async (tx) => {
      const { rows } = await sql<{ sha256: string }>`
        DELETE FROM blobs b
         WHERE b.sha256 = ${sha256}
           AND b.touched_at < now() - make_interval(secs => ${graceSeconds})
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.sha256 = b.sha256)
           AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.sha256 = b.sha256)
        RETURNING b.sha256`.execute(tx);
      if (!rows.length) return false;
      // A failure here rolls the row back: the blob is tried again next time, never orphaned.
      await store.delete(sha256);
      return true;
    });
    if (done) purged++;
  }
  return purged;
}

/** Files looked up against the blobs table per statement. */
const SWEEP_BATCH = 500;

/** maintenance_marks row: the server start before which every file has been examined. */
const SWEPT_MARK = 'orphan_files_examined_through_server_start';

/**
 * Removes files in the store that have no row in the blobs table and were last written more than
 * `graceSeconds` ago. A registration always commits its row before its file is written, so a file
 * older than the grace period without a row belongs to a registration that was lost. Each file is
 * removed while this sweep holds an uncommitted row for it: a registration of the same content
 * arriving meanwhile waits on that row, then writes its file again after the sweep is done.
 *
 * A registration is lost mostly in a database restart (a crash, a failover, a restore: each
 * starts the server anew), but also with an upload whose request rolled back after its file was
 * moved in (its process killed, an error after the move). So the store is listed while some file
 * written before the server's current start has not been examined, and otherwise once a day
 * (RESWEEP_HOURS). A sweep that examined all of them records that start; later sweeps under the
 * same start, within the day, return at once (null), without listing a store of any size.
 */
/** Under one database start, the store is listed again after this long (see sweepOrphanFiles). */
const RESWEEP_HOURS = 24;

export async function sweepOrphanFiles(db: Db, store: BlobStore, graceSeconds = 3600, limit = 1000): Promise<number | null> {
  const { rows } = await sql<{ started: string; started_ms: number; mark: string | null; marked_recently: boolean | null }>`
    SELECT pg_postmaster_start_time()::text AS started,
           (extract(epoch FROM pg_postmaster_start_time()) * 1000)::float8 AS started_ms,
           m.value AS mark,
           m.updated_at > now() - make_interval(hours => ${RESWEEP_HOURS}) AS marked_recently
      FROM (SELECT 1) AS one LEFT JOIN maintenance_marks m ON m.name = ${SWEPT_MARK}`.execute(db);
  const server = rows[0]!;
  if (server.mark === server.started && server.marked_recently) return null;
  const cutoff = Date.now() - graceSeconds * 1000;
  const removed = await removeOrphans(db, store, cutoff, limit);
  // Every file older than the cutoff was examined (the sweep was not cut short by its limit);
  // those written before the start all were when the cutoff is past it, by another grace period
  // for a database clock that disagrees with the store's.
  if (removed < limit && cutoff > server.started_ms + graceSeconds * 1000) {
    await sql`
      INSERT INTO maintenance_marks (name, value) VALUES (${SWEPT_MARK}, ${server.started})
      ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = now()`.execute(db);
  }
  return removed;
}

async function removeOrphans(db: Db, store: BlobStore, cutoff: number, limit: number): Promise<number> {
  let removed = 0;
  let batch: StoredBlob[] = [];
  const flush = async () => {
    const hashes = batch.map((b) => b.sha256);
    batch = [];
    const { rows } = await sql<{ sha256: string }>`
      SELECT h.sha256 FROM unnest(${hashes}::text[]) AS h(sha256)
       WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = h.sha256)`.execute(db);
    for (const { sha256 } of rows) {
      if (removed >= limit) return;
      const gone = await db.transaction().execute(async (tx) => {
        const held = await sql`INSERT INTO blobs (sha256, size_bytes) VALUES (${sha256}, 0) ON CONFLICT (sha256) DO NOTHING RETURNING sha256`.execute(tx);
        // Registered since the lookup: the file is wanted again.
        if (!held.rows.length) return false;
        await store.delete(sha256);
        await sql`DELETE FROM blobs WHERE sha256 = ${sha256}`.execute(tx);
        return true;
      });
      if (gone) removed++;
    }
  };
  for await (const blob of store.list()) {
    if (blob.modifiedAt.getTime() >= cutoff) continue;
    batch.push(blob);
    if (batch.length >= SWEEP_BATCH) await flush();
    if (removed >= limit) return removed;
  }
  if (batch.length) await flush();
  return removed;
}
