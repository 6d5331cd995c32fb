// One PostgreSQL connection held for LISTEN, re-established with backoff (0.5 s, doubling to
// 30 s) whenever it is lost. The owner hears notifications, and is told when listening starts and
// stops: a NOTIFY sent while the connection was down is never delivered, so the owner catches up
// (or stops trusting what it cached) on those edges.
import type pg from 'pg';
import type { Logger } from 'pino';

/** A connection to LISTEN on, and how to give it back (a pool client is released, a client ended). */
export interface ListenConnection {
  client: pg.ClientBase;
  close(err?: Error): Promise<void>;
}

export interface ListenerHooks {
  /** What this listener is for, in log lines. */
  name: string;
  channels: string[];
  onNotification(channel: string, payload: string | undefined): void;
  onListening?(): void;
  onLost?(): void;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class PgListener {
  private connection: ListenConnection | null = null;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly open: () => Promise<ListenConnection>,
    private readonly hooks: ListenerHooks,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  async start(): Promise<void> {
    await this.connect().catch((err) => {
      this.log.warn({ err }, `${this.hooks.name} could not connect; trying again`);
      this.scheduleReconnect();
    });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const connection = await this.open();
    const { client } = connection;
    const lost = (err: Error) => {
      this.log.warn({ err }, `${this.hooks.name} lost its connection`);
      if (this.connection === connection) this.connection = null;
      this.hooks.onLost?.();
      connection.close(err).catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('notification', (message) => this.hooks.onNotification(message.channel, message.payload));
    client.once('error', lost);
    try {
      for (const channel of this.hooks.channels) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      client.off('error', lost);
      await connection.close(err as Error).catch(() => undefined);
      throw err;
    }
    this.connection = connection;
    this.retryMs = FIRST_RETRY_MS;
    if (this.stopped) return this.stop();
    this.hooks.onListening?.();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const connection = this.connection;
    this.connection = null;
    if (!connection) return;
    this.hooks.onLost?.();
    connection.client.removeAllListeners('error');
    connection.client.on('error', () => undefined);
    await connection.close().catch(() => undefined);
  }
}
