// Periodic upkeep run by every worker process, each task under its own advisory lock so exactly
// one process does it at a time: stale-lease recovery (every QUIRE_RECOVERY_INTERVAL_SECONDS), and
// hourly purges: expired idempotency keys (24 h), soft-deleted jobs past the 30-day restore window
// (with their artifacts and history), then blobs nothing references any more, and files in the
// store that no blob row names (their registration was lost in a database crash); and, in every
// process, files its staging directory kept from a process that died mid-upload.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { purgeUnreferencedBlobs, sweepOrphanFiles } from '../storage/blob-registry.js';
import type { BlobStore } from '../storage/blob-store.js';
import { sweepStaging } from '../storage/staging.js';
import { recoverStale } from './recover.js';

const PURGE_LOCK = 0x51554952_02;
const PURGE_EVERY_MS = 60 * 60 * 1000;
export const RESTORE_WINDOW_DAYS = 30;
export const IDEMPOTENCY_HOURS = 24;
/** A staged file not written to for this long belongs to no upload in progress. */
const STAGING_GRACE_SECONDS = 3600;

export interface PurgeReport {
  idempotency_keys: number;
  jobs: number;
  blobs: number;
  /** null: the sweep had nothing to examine (no database restart since it last examined the store). */
  orphan_files: number | null;
}

export async function purge(db: Db, store: BlobStore, options: { blobGraceSeconds?: number } = {}): Promise<PurgeReport | null> {
  const locked = await db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ got: boolean }>`SELECT pg_try_advisory_xact_lock(${PURGE_LOCK}) AS got`.execute(tx);
    if (!rows[0]?.got) return null;
    const keys = await tx.deleteFrom('idempotency_keys').where('created_at', '<', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`).executeTakeFirst();
    const jobs = await tx.deleteFrom('jobs').where('deleted_at', '<', sql<Date>`now() - make_interval(days => ${RESTORE_WINDOW_DAYS})`).executeTakeFirst();
    return { idempotency_keys: Number(keys.numDeletedRows), jobs: Number(jobs.numDeletedRows) };
  });
  if (!locked) return null;
  const blobs = await purgeUnreferencedBlobs(db, store, options.blobGraceSeconds);
  const orphanFiles = await sweepOrphanFiles(db, store, options.blobGraceSeconds);
  return { ...locked, blobs, orphan_files: orphanFiles };
}

export class Maintenance {
  private timer: NodeJS.Timeout | null = null;
  private lastPurge = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly store: BlobStore,
    private readonly intervalSeconds: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    // Spread processes started together over the interval.
    const first = Math.round(Math.random() * this.intervalSeconds * 1000);
    this.timer = setTimeout(() => this.tick(), first);
    this.timer.unref();
  }

  private tick(): void {
    this.running = this.once().finally(() => {
      this.running = null;
      if (this.timer) {
        this.timer = setTimeout(() => this.tick(), this.intervalSeconds * 1000);
        this.timer.unref();
      }
    });
  }

  async once(): Promise<void> {
    try {
      const report = await recoverStale(this.db, { lock: true });
      if (report?.recovered) this.log.warn({ ...report }, 'recovered jobs whose worker stopped heartbeating');
      if (Date.now() - this.lastPurge >= PURGE_EVERY_MS) {
        this.lastPurge = Date.now();
        const purged = await purge(this.db, this.store);
        if (purged && (purged.jobs || purged.blobs || purged.orphan_files)) this.log.info({ ...purged }, 'purged');
        // Outside the purge's lock: with an S3 store each machine stages on its own disk.
        const staged = await sweepStaging(this.store.stagingDir, STAGING_GRACE_SECONDS);
        if (staged) this.log.info({ staged_files: staged }, 'removed staged files left by an interrupted upload');
      }
    } catch (err) {
      this.log.error({ err }, 'maintenance failed; trying again next interval');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
