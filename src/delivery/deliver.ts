// Sends one delivery to its connection: a signed POST to a webhook, or objects written to a store
// (`<job_id>.json`, the original when asked, `<batch_id>/manifest.json`). Writing the same object
// name again is harmless, so a repeat after a crash leaves the same result in place.
import type { Config } from '../config.js';
import { openStore } from '../connectors/index.js';
import { postWebhook } from '../connectors/webhook.js';
import type { FileStore } from '../connectors/types.js';
import type { Connection, Delivery } from '../db/connections-schema.js';
import type { Db } from '../db/database.js';
import { describeFailure, openCredentials } from '../domain/connections/connections.service.js';
import { configWithHeaders } from '../domain/connections/webhook-headers.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { AttemptRecord } from './deliveries.repository.js';
import { type JobPayload, type ManifestPayload, jobObjectName, loadPayload, manifestObjectName, originalObjectName } from './payload.js';

export interface DeliverDeps {
  db: Db;
  box: SecretBox;
  blobs: BlobStore;
  config: Pick<Config, 'localRoot' | 'extraCaCerts'>;
  guard: GuardOptions;
}

export interface DeliveryResult extends AttemptRecord {
  /** No retry can help (the connection or the job is gone). */
  final: boolean;
}

const failed = (error: string, latencyMs: number, final = false): DeliveryResult => ({ outcome: 'retry', statusCode: null, latencyMs, excerpt: null, error, final });

export async function deliver(deps: DeliverDeps, delivery: Delivery, connection: Connection | undefined): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!connection || connection.deleted_at) return failed('The destination connection was deleted.', 0, true);
  if (connection.direction === 'source') return failed('The connection is a source only; change its direction to destination or both to deliver to it.', 0, true);
  const payload = await loadPayload(deps.db, delivery);
  if ('missing' in payload) return failed(payload.missing, 0, true);
  try {
    const credentials = openCredentials(deps.box, connection);
    if (connection.protocol === 'webhook') {
      const body = JSON.stringify(payload.kind === 'job' ? { event: delivery.event, job: payload.job } : { event: delivery.event, ...payload.manifest });
      const answer = await postWebhook(configWithHeaders(connection.config, credentials) as never, String(credentials.secret), { id: delivery.id, event: delivery.event, body }, { guard: deps.guard, extraCaFile: deps.config.extraCaCerts });
      const error = answer.ok ? null : `The receiver answered ${answer.statusCode}.`;
      return { outcome: answer.ok ? 'delivered' : 'retry', statusCode: answer.statusCode, latencyMs: answer.latencyMs, excerpt: answer.excerpt, error, final: false };
    }
    const store = await openStore({ tenant_id: connection.tenant_id, protocol: connection.protocol, config: connection.config, credentials }, deps);
    try {
      await writeObjects(deps, store, delivery, payload);
    } finally {
      await store.close();
    }
    return { outcome: 'delivered', statusCode: null, latencyMs: elapsed(), excerpt: null, error: null, final: false };
  } catch (err) {
    return failed(describeFailure(err), elapsed());
  }
}

async function writeObjects(deps: DeliverDeps, store: FileStore, delivery: Delivery, payload: JobPayload | ManifestPayload): Promise<void> {
  const meta = { 'quire-delivery': delivery.id, 'quire-event': delivery.event };
  if (payload.kind === 'manifest') {
    await store.put(manifestObjectName(delivery.batch_id!), Buffer.from(JSON.stringify({ event: delivery.event, ...payload.manifest }, null, 2)), 'application/json', meta);
    return;
  }
  if (payload.original) {
    // Streamed from the blob store: an original may be as large as an upload may be.
    const stream = await deps.blobs.read(payload.original.sha256);
    await store.put(originalObjectName(payload.job.job_id, payload.original.filename), { stream, size: payload.original.size }, payload.job.content_type ?? 'application/octet-stream', meta);
  }
  // The result last: a receiver that sees <job_id>.json can rely on the original being there.
  await store.put(jobObjectName(payload.job.job_id), Buffer.from(JSON.stringify(payload.job, null, 2)), 'application/json', meta);
}
