// The document workers of one process: N pipeline threads fed by 2N loops that take a job (claimed
// ahead by the process when the queue is deep, claim-buffer.ts), run it (the pipeline on a free
// thread of the pool) and take the next. Idle loops sleep until a NOTIFY wakes them,
// polling with backoff as the fallback. Every process that runs workers also runs the periodic
// maintenance (stale-lease recovery, purges), each task under an advisory lock.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { PolicyService } from '../domain/policy/policy.service.js';
import type { BlobStore } from '../storage/blob-store.js';
import { createBlobStore } from '../storage/index.js';
import { DeliveryWorkers } from '../delivery/delivery-workers.js';
import { SourcePoller } from '../sources/source-poller.js';
import { ClaimBuffer } from './claim-buffer.js';
import { ForgeWorker } from './forge-workers.js';
import { Maintenance } from './maintenance.js';
import { queueListener } from './notify.js';
import type { PgListener } from '../db/pg-listener.js';
import { PipelinePool, poolLimitsOf } from './pipeline-pool.js';
import { type RunHandle, runJob } from './run-job.js';
import { jobModelResolver } from '../models/job-models.js';
import { forgeProposerResolver } from '../models/forge/proposer-for.js';
import { WakeableSleep } from './wakeable-sleep.js';

export interface WorkersOptions {
  db: Db;
  /** The connection string of `db`, for the LISTEN connection. */
  databaseUrl: string;
  config: Config;
  log: Logger;
  count: number;
  blobs?: BlobStore;
  policy?: PolicyService;
  /** Poll interval bounds while idle (the NOTIFY usually wakes a loop first). */
  pollMinMs?: number;
  pollMaxMs?: number;
}

/**
 * Claim loops per pipeline thread. With one, a thread idles while its loop loads the file, writes
 * artifacts and settles (a third of a short job); a second loop has the next job claimed, loaded
 * and waiting for the thread by then.
 */
const LOOPS_PER_THREAD = 2;

export class Workers {
  readonly id = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly blobs: BlobStore;
  private readonly policy: PolicyService;
  private readonly ownPolicy: boolean;
  private readonly pool: PipelinePool;
  private readonly models: ReturnType<typeof jobModelResolver>;
  private readonly listener: PgListener;
  private readonly maintenance: Maintenance;
  private readonly forge: ForgeWorker;
  /** Results going out to destinations, and sources polled for new files. */
  private readonly deliveries: DeliveryWorkers;
  private readonly sources: SourcePoller;
  private readonly idle = new WakeableSleep();
  private readonly claimed: ClaimBuffer;
  private readonly runs = new Map<string, RunHandle>();
  private readonly shutdown = new AbortController();
  private loops: Promise<void>[] = [];
  private stopping = false;
  private active = 0;

  constructor(private readonly options: WorkersOptions) {
    this.blobs = options.blobs ?? createBlobStore(options.config);
    this.ownPolicy = !options.policy;
    this.policy = options.policy ?? new PolicyService(options.db);
    this.pool = new PipelinePool(options.count, poolLimitsOf(options.config));
    this.models = jobModelResolver(options.db, options.config);
    this.listener = queueListener(
      options.databaseUrl,
      { onWake: () => this.wake(), onCancel: (jobId) => this.runs.get(jobId)?.cancel() ?? this.claimed.cancel(jobId), onDelivery: () => this.deliveries.wake() },
      options.log,
    );
    // One claim takes a job for every loop when the queue is deep.
    this.claimed = new ClaimBuffer(options.db, options.config.jobLeaseSeconds, Math.max(1, options.count) * LOOPS_PER_THREAD, options.log);
    this.maintenance = new Maintenance(options.db, this.blobs, options.config.recoveryIntervalSeconds, options.log);
    this.forge = new ForgeWorker(options.db, `${this.id}:forge`, options.log, {
      leaseSeconds: options.config.jobLeaseSeconds,
      pollMinMs: options.pollMinMs,
      pollMaxMs: options.pollMaxMs,
      proposerFor: forgeProposerResolver(options.db, options.config),
      policyOf: (tenantId) => this.policy.current(tenantId),
    });
    const shared = { db: options.db, config: options.config, blobs: this.blobs, log: options.log, workerId: this.id, pollMinMs: options.pollMinMs, pollMaxMs: options.pollMaxMs };
    this.deliveries = new DeliveryWorkers({ ...shared, loops: Math.min(4, Math.max(1, options.count)) });
    this.sources = new SourcePoller(shared);
  }

  /** Workers (pipeline threads) running; health reports it. */
  get size(): number {
    return this.stopping || this.loops.length === 0 ? 0 : this.options.count;
  }

  /** Jobs being processed right now by this process. */
  get busy(): number {
    return this.active;
  }

  async start(): Promise<void> {
    if (this.options.count <= 0) return;
    if (this.ownPolicy) await this.policy.start();
    await this.listener.start();
    this.maintenance.start();
    this.deliveries.start();
    this.sources.start();
    for (let i = 0; i < this.options.count * LOOPS_PER_THREAD; i++) this.loops.push(this.loop(`${this.id}:${i}`));
    this.forge.start();
    this.options.log.info({ workers: this.options.count, workerId: this.id }, 'document workers started');
  }

  private wake(): void {
    this.idle.wake();
    this.forge.wake();
  }


  private async loop(workerId: string): Promise<void> {
    const min = this.options.pollMinMs ?? 250;
    const max = this.options.pollMaxMs ?? 5_000;
    let delay = min;
    const deps = { db: this.options.db, blobs: this.blobs, policy: this.policy, config: this.options.config, pool: this.pool, log: this.options.log, models: this.models };
    while (!this.stopping) {
      let job;
      const claimStarted = performance.now();
      try {
        job = await this.claimed.take(workerId);
      } catch (err) {
        this.options.log.warn({ err, workerId }, 'claim failed; backing off');
        job = null;
      }
      if (!job) {
        await this.idle.sleep(delay);
        delay = Math.min(max, delay * 2);
        continue;
      }
      delay = min;
      this.active++;
      // The lease belongs to the loop whose claim took the job (possibly another loop's, ahead of time).
      const owner = job.lease_owner ?? workerId;
      this.options.log.info({ jobId: job.id, tenantId: job.tenant_id, attempt: job.attempts, workerId: owner, claim_ms: Math.round(performance.now() - claimStarted) }, 'claimed');
      try {
        await runJob(deps, job, owner, this.shutdown.signal, (handle) => this.runs.set(job.id, handle));
      } catch (err) {
        // runJob settles its own failures; this is a database outage while settling. The lease
        // lapses and recovery gives the job to a worker again.
        this.options.log.error({ err, jobId: job.id }, 'could not settle the job; recovery will retry it');
      } finally {
        this.runs.delete(job.id);
        this.active--;
      }
    }
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then stops them and hands them
   * back to the queue (they run again elsewhere, without counting as an attempt).
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.wake();
    const all = Promise.all(this.loops);
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([all, grace]);
    this.shutdown.abort();
    await all;
    await this.claimed.releaseAll();
    await this.forge.stop();
    await this.maintenance.stop();
    await this.deliveries.stop();
    await this.sources.stop();
    await this.listener.stop();
    await this.pool.stop();
    if (this.ownPolicy) this.policy.stop();
  }
}
