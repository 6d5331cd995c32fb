// LISTEN/NOTIFY wakes idle workers the moment a job is queued; polling with backoff remains the
// fallback (a lost connection, a NOTIFY sent while a listener reconnects). A NOTIFY issued inside a
// transaction is delivered on commit, so workers never wake for a job they cannot see yet.
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db, Tx } from '../db/database.js';
import { PgListener } from '../db/pg-listener.js';

export const JOBS_CHANNEL = 'quire_jobs';
/** Payload: a job id whose cancel was just requested, so its worker stops without waiting for a heartbeat. */
export const CANCEL_CHANNEL = 'quire_job_cancel';
/** Notified (by the triggers of migration 0008) when a delivery is owed. */
export const DELIVERIES_CHANNEL = 'quire_deliveries';

export async function notifyQueued(db: Db | Tx): Promise<void> {
  await sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`.execute(db);
}

export async function notifyCancel(db: Db | Tx, jobId: string): Promise<void> {
  await sql`SELECT pg_notify(${CANCEL_CHANNEL}, ${jobId})`.execute(db);
}

export interface QueueEvents {
  onWake(): void;
  onCancel(jobId: string): void;
  onDelivery?(): void;
}

/** One dedicated connection per process listening on the queue's channels; polling covers the gaps. */
export function queueListener(url: string, events: QueueEvents, log: Logger): PgListener {
  return new PgListener(
    async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return { client, close: () => client.end() };
    },
    {
      name: 'queue listener (polling until it is back)',
      channels: [JOBS_CHANNEL, CANCEL_CHANNEL, DELIVERIES_CHANNEL],
      onNotification: (channel, payload) => {
        if (channel === CANCEL_CHANNEL && payload) events.onCancel(payload);
        else if (channel === DELIVERIES_CHANNEL) events.onDelivery?.();
        else events.onWake();
      },
      // Anything queued while we were not listening is found by the next claim.
      onListening: () => {
        events.onWake();
        events.onDelivery?.();
      },
    },
    log,
  );
}
