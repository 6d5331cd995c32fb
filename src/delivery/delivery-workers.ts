// The delivery loops of one worker process: claim a delivery, send it, settle it, claim the next.
// Idle loops sleep until the deliveries channel wakes them (a trigger notifies when a job or batch
// ends), polling with backoff as the fallback, exactly like the document workers.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { findConnectionAnyTenant } from '../domain/connections/connections.repository.js';
import { SecretBox } from '../lib/secret-box.js';
import { guardOptionsFromConfig } from '../lib/ssrf-guard.js';
import type { BlobStore } from '../storage/blob-store.js';
import { retryDelayMs } from './backoff.js';
import { claimDelivery, giveWayToEarlier, settleDelivery } from './deliveries.repository.js';
import { type DeliverDeps, deliver } from './deliver.js';
import { WakeableSleep } from '../queue/wakeable-sleep.js';

export interface DeliveryWorkersOptions {
  db: Db;
  config: Config;
  blobs: BlobStore;
  log: Logger;
  workerId: string;
  loops: number;
  pollMinMs?: number;
  pollMaxMs?: number;
}

export class DeliveryWorkers {
  private readonly deps: DeliverDeps;
  private readonly idle = new WakeableSleep();
  private loops: Promise<void>[] = [];
  private stopping = false;

  constructor(private readonly options: DeliveryWorkersOptions) {
    this.deps = { db: options.db, box: SecretBox.fromConfig(options.config), blobs: options.blobs, config: options.config, guard: guardOptionsFromConfig(options.config) };
  }

  start(): void {
    for (let i = 0; i < this.options.loops; i++) this.loops.push(this.loop(`${this.options.workerId}:d${i}`));
  }

  wake(): void {
    this.idle.wake();
  }


  private async loop(workerId: string): Promise<void> {
    const { db, config, log } = this.options;
    const min = this.options.pollMinMs ?? 250;
    const max = this.options.pollMaxMs ?? 5_000;
    let delay = min;
    while (!this.stopping) {
      try {
        const delivery = await claimDelivery(db, workerId, config.deliveryLeaseSeconds);
        if (!delivery) {
          await this.idle.sleep(delay);
          delay = Math.min(max, delay * 2);
          continue;
        }
        delay = min;
        if (await giveWayToEarlier(db, delivery, workerId)) continue;
        const connection = await findConnectionAnyTenant(db, delivery.connection_id);
        const result = await deliver(this.deps, delivery, connection);
        const settled = await settleDelivery(db, delivery, workerId, result, retryDelayMs(delivery.attempts, config.deliveryRetryBaseMs), result.final);
        log.info({ deliveryId: delivery.id, tenantId: delivery.tenant_id, event: delivery.event, attempt: delivery.attempts, outcome: result.outcome, statusCode: result.statusCode, settled }, 'delivery attempt');
      } catch (err) {
        // A database outage: the lease lapses and the next claim takes the delivery over.
        log.warn({ err, workerId }, 'delivery loop error; backing off');
        await this.idle.sleep(delay);
        delay = Math.min(max, delay * 2);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await Promise.all(this.loops);
  }
}
