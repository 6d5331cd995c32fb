// The lease a poll holds on its connection while it runs (claimed with it, claimDueSource): a
// heartbeat extends it at a third of its length, and the poll asks `check()` before each step that
// leaves a trace (a file's job, an after-action). A poll whose lease lapsed (its process stalled
// past it, and another worker took the connection over) stops there, so two polls of one
// connection never work side by side: neither reads the same files twice nor moves a file the
// other is handling.
import type { Db, Tx } from '../db/database.js';
import { extendPollLease } from './source-files.repository.js';

export class PollLeaseLostError extends Error {
  constructor(connectionId: string) {
    super(`the poll of ${connectionId} lost its lease; another worker polls the connection now`);
  }
}

export class PollLease {
  private lost = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    readonly connectionId: string,
    readonly owner: string,
    private readonly leaseSeconds: number,
  ) {
    this.timer = setInterval(() => void this.extend(this.db).catch(() => undefined), (leaseSeconds * 1000) / 3);
    this.timer.unref();
  }

  /** Extends the lease; inside a transaction the connection's row stays locked until its commit. */
  private async extend(db: Db | Tx): Promise<boolean> {
    if (!this.lost && !(await extendPollLease(db, this.connectionId, this.owner, this.leaseSeconds))) this.lost = true;
    return !this.lost;
  }

  /** Throws PollLeaseLostError once the lease is gone; extends it otherwise (in `tx` when given). */
  async check(tx?: Tx): Promise<void> {
    if (!(await this.extend(tx ?? this.db))) throw new PollLeaseLostError(this.connectionId);
  }

  /** Throws PollLeaseLostError when the heartbeat found the lease gone (no round trip). */
  assertHeld(): void {
    if (this.lost) throw new PollLeaseLostError(this.connectionId);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
