// /v1/documents (jobs) and /v1/artifacts/{artifact_id}. Routes parse, call one domain function,
// and present; rules live in src/domain/documents/.
import { deliveriesOfJob } from '../../delivery/deliveries.repository.js';
import { submitDocument } from '../../domain/documents/submit.service.js';
import {
  cancelJob,
  deleteJob,
  getJob,
  listJobPage,
  reextractJob,
  reprocessJob,
  restoreJob,
  retryJob,
  reuploadContext,
} from '../../domain/documents/jobs.service.js';
import { createBlobStore } from '../../storage/index.js';
import { type RouteModule, caller } from '../context.js';
import { validationError } from '../../lib/errors.js';
import { parseDocumentForm } from '../forms.js';
import { discardForm, receiveForm, registerMultipart } from '../multipart.js';
import { ErrorResponse, NoContent, Page } from '../schemas/common.js';
import {
  JobActionResponse,
  JobListItem,
  JobParams,
  JobRecord,
  ListJobsQuery,
  ReextractBody,
  ReuploadContext,
  presentAction,
  presentJob,
  presentJobSummary,
} from '../schemas/documents.js';
import { presentDelivery } from '../schemas/connections.js';
import { DocumentForm, JobReprocess } from '../schemas/job-requests.js';
import { serveArtifact } from './artifacts.js';
import { getJobWithResultText } from '../../domain/documents/job-text.js';
import { jobRecordText } from '../job-text.js';

const tags = ['documents'];
const config = { permission: 'member' as const };
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** preValidation: an action whose body is optional treats a missing body as `{}`. */
export async function optionalBody(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export function idempotencyKey(headers: Record<string, unknown>): string | null {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY.test(raw)) {
    throw validationError([{ loc: ['header', 'idempotency-key'], msg: 'String should be 1 to 255 printable ASCII characters', type: 'value_error', input: raw }]);
  }
  return raw;
}

export const documentsRoutes: RouteModule = (app, ctx) => {
  const blobs = createBlobStore(ctx.config);
  const deps = { db: ctx.db, blobs, config: ctx.config };
  const load = async (tenantRequest: Parameters<typeof caller>[0], jobId: string) => {
    const p = caller(tenantRequest);
    const { job, artifacts } = await getJob(ctx.db, p, jobId);
    return { ...presentJob(job, artifacts), deliveries: (await deliveriesOfJob(ctx.db, p.tenantId, job.id)).map(presentDelivery) };
  };

  app.register(async (scope) => {
    await registerMultipart(scope as never, ctx.config.maxUploadBytes);
    scope.post(
      '/v1/documents',
      {
        config: { ...config, openapiBody: DocumentForm, openapiConsumes: ['multipart/form-data'] },
        schema: {
          tags,
          operationId: 'documents.create',
          summary: 'Upload one document; answers 202 with the queued job',
          description:
            'multipart/form-data with `file` and optional `template_id`, `processing_mode` (default extraction), `page_range` ("1-3,7"), ' +
            '`destination_connection_id`, `metadata` (JSON object). The type is sniffed from the bytes: an unsupported file is 415, ' +
            'a file over QUIRE_MAX_UPLOAD_BYTES is 413. `Idempotency-Key`: the same key and request within 24 hours answers the first job.',
          response: { 202: JobRecord, 400: ErrorResponse },
        },
      },
      async (request, reply) => {
        const key = idempotencyKey(request.headers);
        const form = await receiveForm(request, { fileField: 'file', maxFiles: 1, maxFileBytes: ctx.config.maxUploadBytes, stagingDir: blobs.stagingDir });
        try {
          const input = parseDocumentForm(form);
          const { jobId, replayed } = await submitDocument(deps, caller(request), { ...input, idempotencyKey: key });
          request.audit = { resourceType: 'job', resourceId: jobId, details: { filename: input.file.filename, replayed, ...input.settings } };
          if (replayed) reply.header('idempotent-replayed', 'true');
          return reply.status(202).send(await load(request, jobId));
        } finally {
          await discardForm(form);
        }
      },
    );
  });

  app.get(
    '/v1/documents',
    { config, schema: { tags, operationId: 'documents.list', summary: 'List jobs, newest first (deleted ones are hidden)', querystring: ListJobsQuery, response: { 200: Page(JobListItem) } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listJobPage(ctx.db, caller(request), filters, { limit, cursor });
      return { items: page.items.map(({ job, artifacts }) => presentJobSummary(job, artifacts)), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/v1/documents/:job_id',
    { config, schema: { tags, operationId: 'documents.get', summary: 'A job with its artifacts and, once finished, its result', params: JobParams, response: { 200: JobRecord } } },
    async (request, reply) => {
      const p = caller(request);
      const { job, artifacts, deliveries, reviewHistory, resultText } = await getJobWithResultText(ctx.db, p, request.params.job_id);
      // A JSON string is sent as is: the stored result is not parsed and serialised again.
      return reply.type('application/json; charset=utf-8').send(jobRecordText(reply, job, artifacts, deliveries.map(presentDelivery), reviewHistory, resultText) as never);
    },
  );

  app.delete(
    '/v1/documents/:job_id',
    {
      config,
      schema: { tags, operationId: 'documents.delete', summary: 'Soft-delete a job (restorable for 30 days; a running job is cancelled)', params: JobParams, response: { 204: NoContent } },
    },
    async (request, reply) => {
      await deleteJob(ctx.db, caller(request), request.params.job_id);
      return reply.status(204).send(null);
    },
  );

  const action = (
    path: string,
    operationId: string,
    summary: string,
    run: (request: { params: { job_id: string }; body?: unknown; principal: Parameters<typeof caller>[0]['principal'] }) => Promise<Parameters<typeof presentAction>[0]>,
    body?: typeof JobReprocess | typeof ReextractBody,
  ) =>
    app.post(
      `/v1/documents/:job_id/${path}`,
      {
        config,
        // The body is optional: no body means `{}` (keep everything).
        ...(body ? { preValidation: optionalBody } : {}),
        // 400: reprocess rule 2 (a template with canonical or entities), interface.md.
        schema: { tags, operationId, summary, params: JobParams, ...(body ? { body } : {}), response: { 200: JobActionResponse, ...(body === JobReprocess ? { 400: ErrorResponse } : {}) } },
      },
      async (request) => presentAction(await run(request as never)),
    );

  action('cancel', 'documents.cancel', 'Cancel: a queued job fails as cancelled at once, a processing one at its next checkpoint; 409 once finished', (r) =>
    cancelJob(ctx.db, caller(r), r.params.job_id),
  );
  action('retry', 'documents.retry', 'Run a failed or rejected job again with the same input and settings (409 otherwise)', (r) =>
    retryJob(ctx.db, caller(r), r.params.job_id),
  );
  action(
    'reprocess',
    'documents.reprocess',
    'Run a finished job again: template kept, cleared or swapped; processing mode and page range may change',
    (r) => reprocessJob(ctx.db, caller(r), r.params.job_id, (r.body ?? {}) as never),
    JobReprocess,
  );
  action(
    'reextract',
    'documents.reextract',
    'Run extraction again on the stored canonical output (no re-reading, no OCR), optionally with another template',
    (r) => reextractJob(ctx.db, caller(r), r.params.job_id, (r.body ?? {}) as never),
    ReextractBody,
  );

  app.post(
    '/v1/documents/:job_id/restore',
    { config, schema: { tags, operationId: 'documents.restore', summary: 'Bring back a deleted job (within 30 days)', params: JobParams, response: { 200: JobRecord } } },
    async (request) => {
      await restoreJob(ctx.db, caller(request), request.params.job_id);
      return load(request, request.params.job_id);
    },
  );

  app.get(
    '/v1/documents/:job_id/reupload-context',
    {
      config,
      schema: { tags, operationId: 'documents.reupload_context', summary: 'What to send to upload a replacement file with the same settings', params: JobParams, response: { 200: ReuploadContext } },
    },
    async (request) => reuploadContext(ctx.db, caller(request), request.params.job_id),
  );

  serveArtifact(app, ctx, blobs);
};
