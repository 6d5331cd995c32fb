// The forge loop of a worker process: claims forge jobs (one at a time: a forge run is short and
// runs extraction in this thread), and periodically fails runs whose lease lapsed on their last
// attempt. Idle, it polls with backoff; the document queue's NOTIFY also wakes it.
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import { claimForgeJob, failExhaustedForgeJobs } from './forge-lease.js';
import { type ForgeRunDeps, runForgeJob } from './run-forge-job.js';
import { WakeableSleep } from './wakeable-sleep.js';

export class ForgeWorker {
  private stopping = false;
  private loopDone: Promise<void> | null = null;
  private readonly idle = new WakeableSleep();
  private readonly shutdown = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly workerId: string,
    private readonly log: Logger,
    private readonly options: { leaseSeconds: number; pollMinMs?: number; pollMaxMs?: number } & Pick<ForgeRunDeps, 'proposerFor' | 'policyOf'>,
  ) {}

  start(): void {
    this.loopDone = this.loop();
  }

  wake(): void {
    this.idle.wake();
  }


  private async loop(): Promise<void> {
    const min = this.options.pollMinMs ?? 250;
    const max = this.options.pollMaxMs ?? 5_000;
    let delay = min;
    while (!this.stopping) {
      let job = null;
      try {
        await failExhaustedForgeJobs(this.db);
        job = await claimForgeJob(this.db, this.workerId, this.options.leaseSeconds);
      } catch (err) {
        this.log.warn({ err }, 'forge claim failed; backing off');
      }
      if (!job) {
        await this.idle.sleep(delay);
        delay = Math.min(max, delay * 2);
        continue;
      }
      delay = min;
      this.log.info({ forgeJobId: job.id, tenantId: job.tenant_id, attempt: job.attempts }, 'forge job claimed');
      try {
        const { leaseSeconds, proposerFor, policyOf } = this.options;
        await runForgeJob({ db: this.db, log: this.log, leaseSeconds, ...(proposerFor ? { proposerFor } : {}), ...(policyOf ? { policyOf } : {}) }, job, this.workerId, this.shutdown.signal);
      } catch (err) {
        this.log.error({ err, forgeJobId: job.id }, 'could not settle the forge job; its lease will lapse and a worker will take it again');
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.shutdown.abort();
    this.wake();
    await this.loopDone;
  }
}
