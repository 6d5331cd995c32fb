// The source poller of one worker process: claims whichever source connection is due (one
// process per poll, whatever the number of workers), polls it, and looks again; idle, it checks
// once a second. A failed poll is kept on the connection (last_poll_error) and retried next time.
// A claim leases the connection to that one poll until it ends (poll-lease.ts): a poll still
// running when the next falls due keeps it, and no other worker polls it meanwhile.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { describeFailure } from '../domain/connections/connections.service.js';
import { SecretBox } from '../lib/secret-box.js';
import { guardOptionsFromConfig } from '../lib/ssrf-guard.js';
import type { BlobStore } from '../storage/blob-store.js';
import { PollLease, PollLeaseLostError } from './poll-lease.js';
import { type PollDeps, pollSource } from './poll-source.js';
import { claimDueSource, endPoll } from './source-files.repository.js';

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
    const { db, config, log } = this.options;
    for (;;) {
      // Each poll its own owner, so a lease is never mistaken for another poll's of the same worker.
      const owner = `${this.options.workerId}:poll-${randomBytes(6).toString('hex')}`;
      const connection = await claimDueSource(db, owner, config.sourceLeaseSeconds);
      if (!connection) return polled;
      polled++;
      const lease = new PollLease(db, connection.id, owner, config.sourceLeaseSeconds);
      // What the poll leaves in last_poll_error; undefined leaves it as it is.
      let outcome: string | null | undefined;
      try {
        const report = await pollSource(this.deps, connection, lease);
        outcome = report.problems.length ? untakenFiles(report.problems) : null;
        if (report.problems.length) log.warn({ connectionId: connection.id, tenantId: connection.tenant_id, problems: report.problems }, 'source files not taken');
        if (report.created.length) log.info({ connectionId: connection.id, tenantId: connection.tenant_id, jobs: report.created.length }, 'source files became jobs');
      } catch (err) {
        if (err instanceof PollLeaseLostError) {
          log.warn({ connectionId: connection.id }, 'source poll stopped: its lease lapsed and another worker polls the connection');
        } else {
          outcome = describeFailure(err);
          log.warn({ err, connectionId: connection.id }, 'source poll failed; retrying at the next interval');
        }
      } finally {
        lease.stop();
      }
      await endPoll(db, connection.id, owner, outcome);
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
