// What a delivery carries. A job goes out as the same JSON as GET /v1/documents/{id} (with its
// result); a finished batch as a manifest listing every job with its status and where its
// result was delivered, plus the counts.
import type { Db } from '../db/database.js';
import type { Delivery } from '../db/connections-schema.js';
import { findBatch } from '../domain/batches/batches.repository.js';
import { artifactsOf, findJob } from '../domain/documents/jobs.repository.js';
import { presentBatch, presentJob } from '../domain/documents/records.js';

/** Object names under the destination's base (the s3 prefix, the local or sftp path). */
export const jobObjectName = (jobId: string) => `${jobId}.json`;
export const manifestObjectName = (batchId: string) => `${batchId}/manifest.json`;
export const originalObjectName = (jobId: string, filename: string | null) => `${jobId}/original/${safeName(filename ?? 'original')}`;

/**
 * Whether a file in a store's listing is a job result a delivery wrote there. A source never takes
 * one: a `both` connection (or a source beside a destination on the same folder) would otherwise
 * turn every delivered result into a new job, and that job's result into another. Manifests and
 * originals lie in a folder of their own, below what a source lists.
 */
export function isDeliveredResult(name: string): boolean {
  return /^job_[0-9a-z]{26}\.json$/.test(name);
}

/** Characters no store takes in a file name (control characters, separators, Windows' reserved ones). */
const UNSAFE = /[\u0000-\u001f\u007f<>:"/\\|?*]/g;
/** Room for a name in every file system (255 bytes), with space for a store's temporary prefix. */
const NAME_BYTES = 200;

/**
 * The uploaded name as the destination's file name: the same letters in any script, only what a
 * file system or store refuses replaced, no leading dot (a hidden file), cut to NAME_BYTES.
 */
function safeName(filename: string): string {
  const base = (filename.split(/[\\/]/).pop() ?? '').normalize('NFC');
  const cleaned = base.replace(UNSAFE, '_').trim().replace(/^\.+/, '_');
  return fitBytes(cleaned, NAME_BYTES) || 'original';
}

/** Shortens the stem, never the extension, by whole characters until the UTF-8 name fits. */
function fitBytes(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && Buffer.byteLength(name.slice(dot)) <= 16 ? name.slice(dot) : '';
  const stem = Array.from(ext ? name.slice(0, dot) : name);
  while (stem.length && Buffer.byteLength(stem.join('') + ext) > max) stem.pop();
  return stem.join('') + ext;
}

export interface JobPayload {
  kind: 'job';
  job: ReturnType<typeof presentJob>;
  /** The stored original, when the batch's destination_config asked for it. */
  original: { sha256: string; filename: string | null; size: number } | null;
}

export interface ManifestPayload {
  kind: 'manifest';
  manifest: Record<string, unknown>;
}

/** Why a delivery has nothing to send: its job or batch is gone, or the job was deleted since. */
export type MissingPayload = { missing: string };

export async function loadPayload(db: Db, delivery: Delivery): Promise<JobPayload | ManifestPayload | MissingPayload> {
  if (delivery.kind === 'job') {
    const job = await findJob(db, delivery.tenant_id, delivery.job_id!);
    if (!job) return { missing: 'The job no longer exists.' };
    // A deleted job's data stays home: the user removed it before this delivery went out.
    if (job.deleted_at) return { missing: 'The job was deleted before this delivery was sent.' };
    const artifacts = (await artifactsOf(db, delivery.tenant_id, [job.id])).get(job.id) ?? [];
    const batch = job.batch_id ? await findBatch(db, delivery.tenant_id, job.batch_id) : undefined;
    const includeOriginal = (batch?.destination_config as { include_original?: unknown } | null)?.include_original === true;
    return { kind: 'job', job: presentJob(job, artifacts), original: includeOriginal ? { sha256: job.sha256, filename: job.original_filename, size: Number(job.size_bytes) } : null };
  }
  const batch = await findBatch(db, delivery.tenant_id, delivery.batch_id!);
  if (!batch) return { missing: 'The batch no longer exists.' };
  const jobs = await db
    .selectFrom('jobs')
    .select(['id', 'original_filename', 'status', 'failure_code', 'failure_message', 'finished_at'])
    .where('tenant_id', '=', delivery.tenant_id)
    .where('batch_id', '=', batch.id)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  const presented = presentBatch(batch);
  return {
    kind: 'manifest',
    manifest: {
      batch: presented,
      counts: presented.counts,
      jobs: jobs.map((j) => ({
        job_id: j.id,
        original_filename: j.original_filename,
        status: j.status,
        failure_code: j.failure_code,
        failure_message: j.failure_message,
        finished_at: j.finished_at,
        result: jobObjectName(j.id),
      })),
    },
  };
}
