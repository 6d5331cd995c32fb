// SQL of sources: claiming a due connection and holding it while its poll runs, and the files
// each connection has turned into jobs.
import { sql } from 'kysely';
import type { Connection } from '../db/connections-schema.js';
import type { Db, Tx } from '../db/database.js';
import { pausedTenantIds } from '../domain/tenants/paused-tenants.js';

export const DEFAULT_POLL_SECONDS = 60;
/** How long a file must go unwritten before a poll takes it (config.settle_seconds). */
export const DEFAULT_SETTLE_SECONDS = 10;

/**
 * Takes one source connection whose poll is due and that no poll holds, moves its next poll a full
 * interval ahead and leases it to `owner`, in one statement: with any number of workers, each poll
 * of a connection goes to exactly one of them, and a poll still running when the next falls due
 * keeps the connection until it ends (or until its lease lapses, its worker having died).
 * A suspended or deleted tenant's sources are not polled: the connections_due_sources index leaves
 * out those marked tenant_paused (migration 0020), and `tenant_id NOT IN` the paused tenants
 * passes over one created unmarked.
 */
export async function claimDueSource(db: Db, owner: string, leaseSeconds: number): Promise<Connection | null> {
  const { rows } = await sql<Connection>`
    UPDATE connections
       SET next_poll_at = now() + make_interval(secs => coalesce((config->>'poll_seconds')::int, ${DEFAULT_POLL_SECONDS})),
           last_polled_at = now(),
           poll_owner = ${owner},
           poll_lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
     WHERE id = (
           SELECT id FROM connections
            WHERE deleted_at IS NULL AND direction IN ('source', 'both') AND next_poll_at <= now()
              AND (poll_lease_expires_at IS NULL OR poll_lease_expires_at < now())
              AND NOT tenant_paused AND tenant_id NOT IN ${pausedTenantIds}
            ORDER BY next_poll_at, id
            FOR UPDATE SKIP LOCKED
            LIMIT 1)
    RETURNING *`.execute(db);
  return rows[0] ?? null;
}

/**
 * Extends the lease `owner` holds on the connection; false once it does not hold it (it lapsed and
 * another poll claimed the connection). Inside a transaction it also locks the row until the commit.
 */
export async function extendPollLease(db: Db | Tx, connectionId: string, owner: string, leaseSeconds: number): Promise<boolean> {
  const row = await db
    .updateTable('connections')
    .set({ poll_lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where('id', '=', connectionId)
    .where('poll_owner', '=', owner)
    .returning('id')
    .executeTakeFirst();
  return !!row;
}

/** Ends `owner`'s poll: records its outcome (unless undefined) and frees the connection, while the lease is held. */
export async function endPoll(db: Db, connectionId: string, owner: string, error: string | null | undefined): Promise<void> {
  await db
    .updateTable('connections')
    .set({ poll_owner: null, poll_lease_expires_at: null, ...(error !== undefined ? { last_poll_error: error } : {}) })
    .where('id', '=', connectionId)
    .where('poll_owner', '=', owner)
    .execute();
}

/** Fingerprints already turned into jobs, as "<name>\0<fingerprint>". */
export async function knownFiles(db: Db, connectionId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('source_files').select(['path', 'fingerprint']).where('connection_id', '=', connectionId).execute();
  return new Set(rows.map((r) => `${r.path}\0${r.fingerprint}`));
}

/** Claims a file for a job inside the job's transaction; false when another poll already has it. */
export async function rememberFile(tx: Tx, row: { tenant_id: string; connection_id: string; path: string; fingerprint: string; size_bytes: number }): Promise<number | null> {
  const inserted = await tx
    .insertInto('source_files')
    .values(row)
    .onConflict((oc) => oc.columns(['connection_id', 'path', 'fingerprint']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id ?? null;
}

export async function linkJob(tx: Tx, id: number, jobId: string): Promise<void> {
  await tx.updateTable('source_files').set({ job_id: jobId }).where('id', '=', id).execute();
}

/** Files whose job has ended and whose after-action (keep, move, delete) has not run yet. */
export async function filesAwaitingAfter(db: Db, connectionId: string): Promise<{ id: number; path: string }[]> {
  return db
    .selectFrom('source_files')
    .innerJoin('jobs', 'jobs.id', 'source_files.job_id')
    .select(['source_files.id', 'source_files.path'])
    .where('source_files.connection_id', '=', connectionId)
    .where('source_files.after_done_at', 'is', null)
    .where('jobs.status', 'in', ['completed', 'needs_review', 'rejected', 'failed'])
    .execute();
}

export async function markAfterDone(db: Db, id: number): Promise<void> {
  await db.updateTable('source_files').set({ after_done_at: sql`now()` }).where('id', '=', id).execute();
}
