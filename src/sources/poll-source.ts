// One poll of one source: every file not seen before (by name and fingerprint) becomes exactly
// one job with the connection's template_id and processing_mode. The file is remembered in the
// same transaction that creates its job, under a unique key, so a crash before the commit leaves
// nothing (the next poll takes the file again) and a crash after leaves both: never a second job.
// Then files whose job has ended get config.after: kept, moved to processed/, or deleted.
// A file written to within the last settle_seconds is left for a later poll: it may still be
// arriving, and taking it now would make a job of half a file (and another of the whole one).
// A file that cannot be taken (over the upload limit, unreadable, gone since the listing) is
// reported and left where it is; it never keeps the files after it from becoming jobs.
// A poll holds a lease on its connection (poll-lease.ts): each job is made, and each after-action
// taken, only while it holds; one that lost it stops with PollLeaseLostError.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { openStore } from '../connectors/index.js';
import { PROCESSED_DIR } from '../connectors/types.js';
import type { Connection } from '../db/connections-schema.js';
import type { Db } from '../db/database.js';
import type { ProcessingMode } from '../db/documents-schema.js';
import { isDeliveredResult } from '../delivery/payload.js';
import { describeFailure, openCredentials } from '../domain/connections/connections.service.js';
import { PRIORITY_BATCH, insertJob } from '../domain/documents/submit.service.js';
import { lockLiveConnection } from '../domain/documents/references.js';
import { sniffUpload } from '../domain/documents/upload-sniff.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import { notifyQueued } from '../queue/notify.js';
import { storeStaged } from '../storage/blob-registry.js';
import type { BlobStore, StagedFile } from '../storage/blob-store.js';
import { UploadTooLargeError, discardStaged, stageStream } from '../storage/staging.js';
import type { PollLease } from './poll-lease.js';
import { DEFAULT_SETTLE_SECONDS, filesAwaitingAfter, knownFiles, linkJob, markAfterDone, rememberFile } from './source-files.repository.js';

export interface PollDeps {
  db: Db;
  box: SecretBox;
  blobs: BlobStore;
  config: Config;
  guard: GuardOptions;
  log: Logger;
}

export interface PollReport {
  listed: number;
  created: string[];
  afterDone: number;
  /** One sentence per file left untaken this poll (kept in the connection's last_poll_error). */
  problems: string[];
}

/** `lease`: the poll's lease on the connection (a poll run outside the poller, as tests do, has none). */
export async function pollSource(deps: PollDeps, connection: Connection, lease?: PollLease): Promise<PollReport> {
  const store = await openStore({ tenant_id: connection.tenant_id, protocol: connection.protocol, config: connection.config, credentials: openCredentials(deps.box, connection) }, deps);
  const report: PollReport = { listed: 0, created: [], afterDone: 0, problems: [] };
  try {
    const files = await store.list();
    report.listed = files.length;
    const known = await knownFiles(deps.db, connection.id);
    const settleMs = Number(connection.config.settle_seconds ?? DEFAULT_SETTLE_SECONDS) * 1000;
    const now = Date.now();
    for (const file of files) {
      if (known.has(`${file.name}\0${file.fingerprint}`) || isDeliveredResult(file.name)) continue;
      if (settleMs > 0 && file.modifiedMs !== null && now - file.modifiedMs < settleMs) continue;
      const limit = deps.config.maxUploadBytes;
      if (file.size > limit) {
        report.problems.push(`${file.name} is ${file.size} bytes, over the upload limit of ${limit} bytes (QUIRE_MAX_UPLOAD_BYTES)`);
        continue;
      }
      lease?.assertHeld();
      let staged: StagedFile;
      try {
        staged = await stageStream(await store.read(file.name), deps.blobs.stagingDir, limit);
      } catch (err) {
        report.problems.push(err instanceof UploadTooLargeError ? `${file.name} grew past the upload limit of ${limit} bytes (QUIRE_MAX_UPLOAD_BYTES)` : `${file.name} could not be read: ${describeFailure(err)}`);
        continue;
      }
      const jobId = await takeFile(deps, connection, file, staged, lease);
      // The connection was deleted (or its tenant) while this poll ran: it takes nothing more.
      if (jobId === CONNECTION_DELETED) return report;
      if (jobId) report.created.push(jobId);
    }
    const after = (connection.config.after as string | undefined) ?? 'keep';
    for (const done of await filesAwaitingAfter(deps.db, connection.id)) {
      await lease?.check();
      if (after === 'move') await store.move(done.path, PROCESSED_DIR);
      else if (after === 'delete') await store.remove(done.path);
      await markAfterDone(deps.db, done.id);
      report.afterDone++;
    }
  } finally {
    await store.close();
  }
  return report;
}

const CONNECTION_DELETED = Symbol('connection deleted');

/**
 * Makes the job of a staged file; a database failure propagates (the poll is retried whole). The
 * transaction holds the connection row, so a deletion of the connection (or of its tenant, which
 * then cancels the tenant's jobs) waits for the job, and a file taken after one finds it deleted.
 */
async function takeFile(deps: PollDeps, connection: Connection, file: { name: string; size: number; fingerprint: string }, staged: StagedFile, lease?: PollLease): Promise<string | null | typeof CONNECTION_DELETED> {
  try {
    const verdict = await sniffUpload(staged);
    await storeStaged(deps.db, deps.blobs, staged);
    const mode = (connection.config.processing_mode as ProcessingMode | undefined) ?? 'extraction';
    return await deps.db.transaction().execute(async (tx) => {
      // The lease's update locks the row first; reading it live under a share lock after that
      // cannot deadlock with another poll doing the same.
      await lease?.check(tx);
      if (!(await lockLiveConnection(tx, connection.tenant_id, connection.id))) return CONNECTION_DELETED;
      const remembered = await rememberFile(tx, { tenant_id: connection.tenant_id, connection_id: connection.id, path: file.name, fingerprint: file.fingerprint, size_bytes: file.size });
      if (remembered === null) return null;
      const job = await insertJob(tx, {
        tenantId: connection.tenant_id,
        actor: null,
        batchId: null,
        settings: {
          processing_mode: mode,
          template_id: (connection.config.template_id as string | undefined) ?? null,
          page_range: null,
          page_cap_policy: 'fail',
          destination_connection_id: null,
        },
        metadata: { source: { connection_id: connection.id, path: file.name } },
        file: { filename: file.name, staged },
        verdict,
        priority: PRIORITY_BATCH,
        maxAttempts: deps.config.jobMaxAttempts,
      });
      await linkJob(tx, remembered, job.id);
      await notifyQueued(tx);
      return job.id;
    });
  } finally {
    await discardStaged(staged);
  }
}
