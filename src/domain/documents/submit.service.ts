// Creating jobs from uploads: the checks every submission gets (template and destination ids,
// the mode/template rule, the real file type), storing the file, and enqueueing the job in the
// same transaction that creates it (style.md: state changes and their follow-up work commit together).
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/database.js';
import type { PageCapPolicy, ProcessingMode } from '../../db/documents-schema.js';
import { badRequest, notFound, unauthorized, unsupportedMedia } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { notifyQueued } from '../../queue/notify.js';
import { storeStaged } from '../../storage/blob-registry.js';
import type { BlobStore, StagedFile } from '../../storage/blob-store.js';
import { discardStaged } from '../../storage/staging.js';
import type { Principal } from '../identity/principal.js';
import { shareLiveTenant } from '../tenants/tenants.repository.js';
import { IdempotentReplay, claimKey, replayOf, requestHash } from './idempotency.repository.js';
import { type JobSummary, SUMMARY_COLUMNS, recordEvent } from './jobs.repository.js';
import { liveConnectionDirection, templateIsLive } from './references.js';
import { type UploadVerdict, sniffUpload } from './upload-sniff.js';

export interface DocumentsDeps {
  db: Db;
  blobs: BlobStore;
  config: Config;
}

export interface UploadedFile {
  filename: string | null;
  staged: StagedFile;
}

export interface JobSettings {
  processing_mode: ProcessingMode;
  template_id: string | null;
  page_range: string | null;
  page_cap_policy: PageCapPolicy;
  destination_connection_id: string | null;
}

/** Single uploads go ahead of batch files: a person is usually waiting on them. */
export const PRIORITY_SINGLE = 0;
export const PRIORITY_BATCH = 5;

export const actorOf = (p: Principal) => p.userId ?? p.apiKeyId;

/** interface.md reprocess rule 2, applied wherever a template meets a mode. */
export function assertTemplateFitsMode(templateId: string | null | undefined, mode: ProcessingMode): void {
  if (templateId && mode !== 'extraction') {
    throw badRequest(
      'template_requires_extraction',
      `A template only applies in processing_mode "extraction", but this request asks for "${mode}" with template_id ${templateId}. ` +
        'Send processing_mode "extraction" to use the template, or leave template_id out.',
    );
  }
}

/** 404 for a template or destination that does not exist in the caller's tenant. */
export async function checkReferences(db: Db | Tx, tenantId: string, refs: { template_id?: string | null; destination_connection_id?: string | null }): Promise<void> {
  if (refs.template_id && !(await templateIsLive(db, tenantId, refs.template_id))) throw notFound(`Template ${refs.template_id}`);
  if (refs.destination_connection_id) {
    const direction = await liveConnectionDirection(db, tenantId, refs.destination_connection_id);
    if (!direction) throw notFound(`Connection ${refs.destination_connection_id}`);
    // A source-only connection takes no deliveries: every result sent there would fail.
    if (direction === 'source') {
      throw badRequest(
        'connection_not_destination',
        `Connection ${refs.destination_connection_id} is a source only and cannot receive results. Name a connection whose direction is destination or both, or change this one's direction (PATCH /v1/admin/connections/${refs.destination_connection_id}).`,
      );
    }
  }
}

/**
 * First in a transaction that queues jobs (uploads, and jobs sent to run again): holds the tenant
 * row so a deletion cannot commit in between (tenants.repository.ts shareLiveTenant), and refuses
 * a tenant deleted after the request was authenticated, as the request's credentials would now
 * be (401; 404 for a platform admin acting in it, as for any tenant that does not exist). Its
 * jobs would otherwise stay queued in a deleted tenant, never run and never cancelled. First,
 * because a deletion locks the tenant before the tenant's jobs.
 */
export async function holdLiveTenant(tx: Tx, p: Principal): Promise<void> {
  if (await shareLiveTenant(tx, p.tenantId)) return;
  throw p.tenantId === p.homeTenantId ? unauthorized('Your tenant was deleted.') : notFound(`Tenant ${p.tenantId}`);
}

export interface NewJobInput {
  tenantId: string;
  actor: string | null;
  batchId: string | null;
  settings: JobSettings;
  metadata: Record<string, unknown>;
  file: UploadedFile;
  verdict: UploadVerdict;
  priority: number;
  maxAttempts: number;
}

/**
 * Inserts a job with its source artifact and first history entry. A file the sniffer surely cannot
 * read (possible in a batch, where one bad file must not sink the rest) is born failed with
 * `unsupported_format`, never queued.
 */
export async function insertJob(tx: Tx, input: NewJobInput): Promise<JobSummary> {
  const id = newId('job');
  const unsupported = input.verdict.kind === 'unsupported';
  const contentType = input.verdict.kind === 'supported' ? input.verdict.contentType : null;
  const job = await tx
    .insertInto('jobs')
    .values({
      id,
      tenant_id: input.tenantId,
      batch_id: input.batchId,
      status: unsupported ? 'failed' : 'queued',
      processing_mode: input.settings.processing_mode,
      template_id: input.settings.template_id,
      original_filename: input.file.filename,
      content_type: contentType,
      size_bytes: input.file.staged.size,
      sha256: input.file.staged.sha256,
      page_range: input.settings.page_range,
      page_cap_policy: input.settings.page_cap_policy,
      metadata: JSON.stringify(input.metadata),
      destination_connection_id: input.settings.destination_connection_id,
      priority: input.priority,
      max_attempts: input.maxAttempts,
      created_by: input.actor,
      ...(input.verdict.kind === 'unsupported' ? { failure_code: 'unsupported_format', failure_message: input.verdict.message, finished_at: new Date() } : {}),
    })
    .returning(SUMMARY_COLUMNS)
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('artifacts')
    .values({
      id: newId('art'),
      tenant_id: input.tenantId,
      job_id: id,
      kind: 'source',
      page_number: null,
      filename: input.file.filename ?? 'upload',
      content_type: contentType ?? 'application/octet-stream',
      size_bytes: input.file.staged.size,
      sha256: input.file.staged.sha256,
    })
    .execute();
  await recordEvent(tx, { tenantId: input.tenantId, jobId: id, kind: 'created', to: job.status, actor: input.actor, detail: unsupported ? { failure_code: 'unsupported_format' } : {} });
  return job;
}

export interface SubmitInput {
  file: UploadedFile;
  settings: JobSettings;
  metadata: Record<string, unknown>;
  idempotencyKey: string | null;
}

/** POST /v1/documents. Returns the job id and whether it is a replay of an earlier request. */
export async function submitDocument(deps: DocumentsDeps, p: Principal, input: SubmitInput): Promise<{ jobId: string; replayed: boolean }> {
  const { db } = deps;
  const staged = input.file.staged;
  try {
    assertTemplateFitsMode(input.settings.template_id, input.settings.processing_mode);
    const hash = requestHash({ file: staged.sha256, filename: input.file.filename, settings: input.settings, metadata: input.metadata });
    if (input.idempotencyKey) {
      const prior = await replayOf(db, p.tenantId, 'documents', input.idempotencyKey, hash);
      if (prior) return { jobId: prior, replayed: true };
    }
    await checkReferences(db, p.tenantId, input.settings);
    const verdict = await sniffUpload(staged);
    if (verdict.kind === 'unsupported') throw unsupportedMedia('unsupported_media_type', verdict.message);
    await storeStaged(db, deps.blobs, staged);
    try {
      const job = await db.transaction().execute(async (tx) => {
        await holdLiveTenant(tx, p);
        const created = await insertJob(tx, {
          tenantId: p.tenantId,
          actor: actorOf(p),
          batchId: null,
          settings: input.settings,
          metadata: input.metadata,
          file: input.file,
          verdict,
          priority: PRIORITY_SINGLE,
          maxAttempts: deps.config.jobMaxAttempts,
        });
        if (input.idempotencyKey && !(await claimKey(tx, p.tenantId, 'documents', input.idempotencyKey, hash, created.id))) throw new IdempotentReplay();
        await notifyQueued(tx);
        return created;
      });
      return { jobId: job.id, replayed: false };
    } catch (err) {
      if (!(err instanceof IdempotentReplay)) throw err;
      // A concurrent request with the same key won the race: answer what it created.
      const prior = await replayOf(db, p.tenantId, 'documents', input.idempotencyKey!, hash);
      if (!prior) throw err;
      return { jobId: prior, replayed: true };
    }
  } finally {
    await discardStaged(staged);
  }
}
