// The source poller of one worker process: claims whichever source connection is due (one
// process per poll, whatever the number of workers), polls it, and looks again; idle, it checks
// once a second. A failed poll is kept on the connection (last_poll_error) and retried next time.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { describeFailure } from '../domain/connections/connections.service.js';
import { SecretBox } from '../lib/secret-box.js';
import { guardOptionsFromConfig } from '../lib/ssrf-guard.js';
import type { BlobStore } from '../storage/blob-store.js';
import { type PollDeps, pollSource } from './poll-source.js';
import { claimDueSource, recordPollError } from './source-files.repository.js';

export interface SourcePollerOptions {
  db: Db;
  config: Config;
  blobs: BlobStore;
  log: Logger;
  workerId: string;
  /** How long to wait between looks when nothing is due. */
  pollMaxMs?: number;
}

export class SourcePoller {
  private readonly deps: PollDeps;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  private wakeUp: (() => void) | null = null;

  constructor(private readonly options: SourcePollerOptions) {
    this.deps = { db: options.db, box: SecretBox.fromConfig(options.config), blobs: options.blobs, config: options.config, guard: guardOptionsFromConfig(options.config), log: options.log };
  }

  start(): void {
    this.loop = this.run();
  }

  /** Polls every due source once (tests and the CLI call this directly). */
  async pollDue(): Promise<number> {
    let polled = 0;
    for (;;) {
      const connection = await claimDueSource(this.options.db);
      if (!connection) return polled;
      polled++;
      try {
        const report = await pollSource(this.deps, connection);
        await recordPollError(this.options.db, connection.id, report.problems.length ? untakenFiles(report.problems) : null);
        if (report.problems.length) this.options.log.warn({ connectionId: connection.id, tenantId: connection.tenant_id, problems: report.problems }, 'source files not taken');
        if (report.created.length) this.options.log.info({ connectionId: connection.id, tenantId: connection.tenant_id, jobs: report.created.length }, 'source files became jobs');
      } catch (err) {
        await recordPollError(this.options.db, connection.id, describeFailure(err));
        this.options.log.warn({ err, connectionId: connection.id }, 'source poll failed; retrying at the next interval');
      }
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.pollDue();
      } catch (err) {
        this.options.log.warn({ err }, 'source poller error; backing off');
      }
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        this.timer = setTimeout(resolve, Math.min(1_000, this.options.pollMaxMs ?? 1_000));
      });
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.wakeUp?.();
    await this.loop;
  }
}

/** last_poll_error for a poll that ran but left files untaken: each file and why, within a bound. */
function untakenFiles(problems: string[]): string {
  const text = `${problems.length} file${problems.length === 1 ? ' was' : 's were'} not taken: ${problems.join('; ')}.`;
  return text.length > 2000 ? `${text.slice(0, 1997)}...` : text;
}
