// The document workers of one process: N loops that claim a job, run it (the pipeline in a
// worker-thread pool of N threads) and claim the next. Idle loops sleep until a NOTIFY wakes them,
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
import { claimJob } from './claim.js';
import { Maintenance } from './maintenance.js';
import { QueueListener } from './notify.js';
import { PipelinePool } from './pipeline-pool.js';
import { type RunHandle, runJob } from './run-job.js';

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

export class Workers {
  readonly id = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly blobs: BlobStore;
  private readonly policy: PolicyService;
  private readonly ownPolicy: boolean;
  private readonly pool: PipelinePool;
  private readonly listener: QueueListener;
  private readonly maintenance: Maintenance;
  private readonly wakers = new Set<() => void>();
  private readonly runs = new Map<string, RunHandle>();
  private readonly shutdown = new AbortController();
  private loops: Promise<void>[] = [];
  private stopping = false;
  private active = 0;

  constructor(private readonly options: WorkersOptions) {
    this.blobs = options.blobs ?? createBlobStore(options.config);
    this.ownPolicy = !options.policy;
    this.policy = options.policy ?? new PolicyService(options.db);
    this.pool = new PipelinePool(options.count);
    this.listener = new QueueListener(options.databaseUrl, { onWake: () => this.wake(), onCancel: (jobId) => this.runs.get(jobId)?.cancel() }, options.log);
    this.maintenance = new Maintenance(options.db, this.blobs, options.config.recoveryIntervalSeconds, options.log);
  }

  /** Loops running (health reports it). */
  get size(): number {
    return this.stopping ? 0 : this.loops.length;
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
    for (let i = 0; i < this.options.count; i++) this.loops.push(this.loop(`${this.id}:${i}`));
    this.options.log.info({ workers: this.options.count, workerId: this.id }, 'document workers started');
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  private async loop(workerId: string): Promise<void> {
    const min = this.options.pollMinMs ?? 250;
    const max = this.options.pollMaxMs ?? 5_000;
    let delay = min;
    const deps = { db: this.options.db, blobs: this.blobs, policy: this.policy, config: this.options.config, pool: this.pool, log: this.options.log };
    while (!this.stopping) {
      let job;
      try {
        job = await claimJob(this.options.db, workerId, this.options.config.jobLeaseSeconds);
      } catch (err) {
        this.options.log.warn({ err, workerId }, 'claim failed; backing off');
        job = null;
      }
      if (!job) {
        await this.idle(delay);
        delay = Math.min(max, delay * 2);
        continue;
      }
      delay = min;
      this.active++;
      this.options.log.info({ jobId: job.id, tenantId: job.tenant_id, attempt: job.attempts, workerId }, 'claimed');
      try {
        await runJob(deps, job, workerId, this.shutdown.signal, (handle) => this.runs.set(job.id, handle));
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
    await this.maintenance.stop();
    await this.listener.stop();
    await this.pool.stop();
    if (this.ownPolicy) this.policy.stop();
  }
}
