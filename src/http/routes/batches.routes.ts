// /v1/batches: many files under one set of settings, each an ordinary document job.
import {
  cancelBatch,
  createBatch,
  getBatch,
  listBatchJobs,
  listBatchPage,
  reconcileBatch,
  reprocessBatch,
  retryFailed,
} from '../../domain/batches/batches.service.js';
import { artifactsOf } from '../../domain/documents/jobs.repository.js';
import { createBlobStore } from '../../storage/index.js';
import { type RouteModule, caller } from '../context.js';
import { MAX_BATCH_FILES, parseBatchForm } from '../forms.js';
import { discardForm, receiveForm, registerMultipart } from '../multipart.js';
import { ErrorResponse, Page } from '../schemas/common.js';
import {
  BatchAction,
  BatchCreated,
  BatchParams,
  BatchReconciled,
  BatchRecord,
  JobListItem,
  ListBatchJobsQuery,
  ListBatchesQuery,
  presentBatch,
  presentJobSummary,
} from '../schemas/documents.js';
import { BatchForm, JobReprocess } from '../schemas/job-requests.js';
import { idempotencyKey, optionalBody } from './documents.routes.js';

const tags = ['batches'];
const config = { permission: 'member' as const };

export const batchesRoutes: RouteModule = (app, ctx) => {
  const blobs = createBlobStore(ctx.config);
  const deps = { db: ctx.db, blobs, config: ctx.config };

  app.register(async (scope) => {
    await registerMultipart(scope as never, ctx.config.maxUploadBytes);
    scope.post(
      '/v1/batches',
      {
        config: { ...config, openapiBody: BatchForm, openapiConsumes: ['multipart/form-data'] },
        schema: {
          tags,
          operationId: 'batches.create',
          summary: `Upload 1..${MAX_BATCH_FILES} files as one batch; answers 202 with the batch and its jobs`,
          description:
            'multipart/form-data: `files` (repeat the field per file), `name`, `template_id`, `processing_mode`, `page_range`, ' +
            '`page_cap_policy` (fail | truncate), `destination_connection_id`, `destination_config` (JSON object). ' +
            'A file of an unsupported type becomes a job that failed with unsupported_format; the others are queued.',
          response: { 202: BatchCreated, 400: ErrorResponse },
        },
      },
      async (request, reply) => {
        const key = idempotencyKey(request.headers);
        const form = await receiveForm(request, { fileField: 'files', maxFiles: MAX_BATCH_FILES, maxFileBytes: ctx.config.maxUploadBytes, stagingDir: blobs.stagingDir });
        try {
          const input = parseBatchForm(form);
          const p = caller(request);
          const { batchId, replayed } = await createBatch(deps, p, { ...input, idempotencyKey: key });
          request.audit = { resourceType: 'batch', resourceId: batchId, details: { files: input.files.length, replayed, name: input.name, ...input.settings } };
          if (replayed) reply.header('idempotent-replayed', 'true');
          const batch = await getBatch(ctx.db, p, batchId);
          const jobs = await ctx.db
            .selectFrom('jobs')
            .select(['id', 'original_filename', 'status', 'failure_code', 'failure_message'])
            .where('tenant_id', '=', p.tenantId)
            .where('batch_id', '=', batchId)
            .orderBy('id')
            .execute();
          return reply.status(202).send({
            ...presentBatch(batch),
            jobs: jobs.map((j) => ({ job_id: j.id, original_filename: j.original_filename, status: j.status, failure_code: j.failure_code, failure_message: j.failure_message })),
          });
        } finally {
          await discardForm(form);
        }
      },
    );
  });

  app.get(
    '/v1/batches',
    { config, schema: { tags, operationId: 'batches.list', summary: 'List batches, newest first', querystring: ListBatchesQuery, response: { 200: Page(BatchRecord) } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listBatchPage(ctx.db, caller(request), filters, { limit, cursor });
      return { items: page.items.map(presentBatch), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/v1/batches/:batch_id',
    { config, schema: { tags, operationId: 'batches.get', summary: 'A batch with per-status counts of its jobs', params: BatchParams, response: { 200: BatchRecord } } },
    async (request) => presentBatch(await getBatch(ctx.db, caller(request), request.params.batch_id)),
  );

  app.get(
    '/v1/batches/:batch_id/jobs',
    {
      config,
      schema: { tags, operationId: 'batches.jobs', summary: "The batch's jobs, newest first", params: BatchParams, querystring: ListBatchJobsQuery, response: { 200: Page(JobListItem) } },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const p = caller(request);
      const page = await listBatchJobs(ctx.db, p, request.params.batch_id, filters, { limit, cursor });
      const artifacts = await artifactsOf(ctx.db, p.tenantId, page.items.map((j) => j.id), { withPageImages: false });
      return { items: page.items.map((j) => presentJobSummary(j, artifacts.get(j.id) ?? [])), next_cursor: page.next_cursor };
    },
  );

  const present = ({ batch, affected }: { batch: Parameters<typeof presentBatch>[0]; affected: string[] }) => ({ ...presentBatch(batch), affected_job_ids: affected });

  app.post(
    '/v1/batches/:batch_id/cancel',
    { config, schema: { tags, operationId: 'batches.cancel', summary: 'Cancel every job not yet finished (409 when all have)', params: BatchParams, response: { 200: BatchAction } } },
    async (request) => present(await cancelBatch(ctx.db, caller(request), request.params.batch_id)),
  );

  app.post(
    '/v1/batches/:batch_id/retry-failed',
    { config, schema: { tags, operationId: 'batches.retry_failed', summary: 'Retry the failed and rejected jobs', params: BatchParams, response: { 200: BatchAction } } },
    async (request) => present(await retryFailed(ctx.db, caller(request), request.params.batch_id)),
  );

  app.post(
    '/v1/batches/:batch_id/reprocess',
    {
      config,
      preValidation: optionalBody,
      schema: {
        tags,
        operationId: 'batches.reprocess',
        summary: 'Reprocess every finished job with the job reprocess body (same rules)',
        params: BatchParams,
        body: JobReprocess,
        response: { 200: BatchAction, 400: ErrorResponse },
      },
    },
    async (request) => present(await reprocessBatch(ctx.db, caller(request), request.params.batch_id, request.body as never)),
  );

  app.post(
    '/v1/batches/:batch_id/reconcile',
    {
      config,
      schema: { tags, operationId: 'batches.reconcile', summary: 'Recompute counts and status from the jobs; re-send failed deliveries', params: BatchParams, response: { 200: BatchReconciled } },
    },
    async (request) => {
      const { batch, deliveries } = await reconcileBatch(ctx.db, caller(request), request.params.batch_id);
      return { ...presentBatch(batch), deliveries };
    },
  );
};
