// LISTEN/NOTIFY wakes idle workers the moment a job is queued; polling with backoff remains the
// fallback (a lost connection, a NOTIFY sent while a listener reconnects). A NOTIFY issued inside a
// transaction is delivered on commit, so workers never wake for a job they cannot see yet.
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db, Tx } from '../db/database.js';

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

/** One dedicated connection per process listening on the jobs channel; reconnects with backoff. */
export class QueueListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = 500;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly events: QueueEvents,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.connect().catch((err) => {
      this.log.warn({ err }, 'queue listener could not connect; polling until it can');
      this.scheduleReconnect();
    });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      if (message.channel === CANCEL_CHANNEL && message.payload) this.events.onCancel(message.payload);
      else if (message.channel === DELIVERIES_CHANNEL) this.events.onDelivery?.();
      else this.events.onWake();
    });
    client.on('error', (err) => {
      this.log.warn({ err }, 'queue listener lost its connection');
      client.end().catch(() => undefined);
      if (this.client === client) this.client = null;
      this.scheduleReconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${JOBS_CHANNEL}`);
    await client.query(`LISTEN ${CANCEL_CHANNEL}`);
    await client.query(`LISTEN ${DELIVERIES_CHANNEL}`);
    this.client = client;
    this.retryMs = 500;
    // Anything queued while we were not listening is found by the next claim.
    this.events.onWake();
    this.events.onDelivery?.();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
