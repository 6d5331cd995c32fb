// Jobs claimed ahead by one process. A loop that needs a job takes one claimed earlier by another
// loop's claim; only when none is left does it claim again, several at once when the queue is
// deep (claim.ts): a deep queue then costs one claim round trip per several jobs instead of one
// each. Claimed jobs waiting here hold their leases like running ones: heartbeated together, a
// cancel marks them (their run then settles them as cancelled at once), and at shutdown they go
// back to the queue as if never claimed. A process that dies with jobs here leaves their leases to
// lapse: stale-lease recovery requeues them exactly as it does a job that died running.
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { Job } from '../db/documents-schema.js';
import { claimJobs } from './claim.js';
import { heartbeatClaimed, release } from './lease.js';

export class ClaimBuffer {
  private ready: Job[] = [];
  /** The claim in flight: loops needing a job meanwhile share its batch instead of claiming too. */
  private claiming: Promise<number> | null = null;
  private beat: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly leaseSeconds: number,
    /** Jobs one claim may take when the queue is deep. */
    private readonly batch: number,
    private readonly log: Logger,
  ) {}

  /** Claimed jobs waiting for a loop. */
  get size(): number {
    return this.ready.length;
  }

  /**
   * The next job for a loop: one claimed ahead, or a fresh claim under `claimerId` (the lease
   * owner, which the run must use). Null when the queue has nothing due.
   */
  async take(claimerId: string): Promise<Job | null> {
    for (;;) {
      const job = this.ready.shift();
      if (job) return job;
      if (!this.claiming) {
        this.claiming = this.claim(claimerId).finally(() => {
          this.claiming = null;
        });
      }
      if ((await this.claiming) === 0) return null;
    }
  }

  private async claim(claimerId: string): Promise<number> {
    const jobs = await claimJobs(this.db, claimerId, this.leaseSeconds, this.batch);
    this.ready.push(...jobs);
    if (this.ready.length > 1) this.startBeat();
    return jobs.length;
  }

  /** A cancel requested for a job waiting here: its run settles it as cancelled without processing it. */
  cancel(jobId: string): boolean {
    const job = this.ready.find((j) => j.id === jobId);
    if (job) job.cancel_requested = true;
    return !!job;
  }

  private startBeat(): void {
    if (this.beat) return;
    this.beat = setInterval(() => void this.heartbeat(), Math.max(500, (this.leaseSeconds * 1000) / 3));
    this.beat.unref();
  }

  /** Extends the leases of every job waiting here in one statement; drops those whose lease was lost. */
  private async heartbeat(): Promise<void> {
    const waiting = [...this.ready];
    if (!waiting.length) {
      if (this.beat) clearInterval(this.beat);
      this.beat = null;
      return;
    }
    try {
      const held = await heartbeatClaimed(this.db, waiting, this.leaseSeconds);
      for (const job of waiting) {
        if (!held.has(job.id)) this.ready = this.ready.filter((j) => j !== job);
        else if (held.get(job.id)) job.cancel_requested = true;
      }
    } catch (err) {
      this.log.warn({ err }, 'heartbeat of claimed jobs failed; their leases may lapse');
    }
  }

  /** Gives every job still waiting back to the queue, as if never claimed (shutdown). */
  async releaseAll(): Promise<void> {
    if (this.beat) clearInterval(this.beat);
    this.beat = null;
    await this.claiming?.catch(() => 0);
    const waiting = this.ready;
    this.ready = [];
    for (const job of waiting) {
      await release(this.db, job, job.lease_owner!, 0, 'worker shutting down', false).catch((err: unknown) =>
        this.log.warn({ err, jobId: job.id }, 'could not release a claimed job; recovery will requeue it'),
      );
    }
  }
}
