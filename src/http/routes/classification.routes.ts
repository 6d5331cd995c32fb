// Classification and template drafts: POST /v1/templates/classify and /v1/templates/drafts/*.
// Rules live in domain/classification and domain/drafts; handlers validate, call, present.
import multipart from '@fastify/multipart';
import { classifyRequest } from '../../domain/classification/classify.service.js';
import type { DraftChanges } from '../../domain/drafts/drafts.repository.js';
import { type DraftCreate as DraftCreateBody, acceptDraft, createDraft, getDraft, listDraftPage, patchDraft, rejectDraft } from '../../domain/drafts/drafts.service.js';
import { type App, type RouteModule, caller } from '../context.js';
import { ClassifyForm, ClassifyResponse, DraftCreate, DraftListQuery, DraftParams, DraftPatch, DraftResponse } from '../schemas/classification.js';
import { ErrorResponse, Page } from '../schemas/common.js';
import { jobBodyProblems, readTestRequest, testInput } from './templates.routes.js';

const tags = ['templates'];
const errors = { 404: ErrorResponse };

function registerClassify(app: App, ctx: Parameters<RouteModule>[1]): void {
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: ctx.config.maxUploadBytes, files: 2, fields: 10, fieldSize: 64 * 1024, parts: 20 } });
    (scope as unknown as App).post(
      '/v1/templates/classify',
      {
        config: { permission: 'member', openapiBody: ClassifyForm, openapiConsumes: ['multipart/form-data', 'application/json'] },
        schema: {
          tags,
          operationId: 'templates.classify',
          summary: 'Rank the active templates for a document (multipart `file`, or JSON `{job_id}`), with the evidence and the decision',
          response: { 200: ClassifyResponse, ...errors },
        },
      },
      async (request) => {
        const req = await readTestRequest(request, ctx.config.maxUploadBytes);
        const input = testInput(req, jobBodyProblems(request, req));
        const principal = caller(request);
        return classifyRequest(ctx, principal, await request.policy(), input);
      },
    );
  });
}

export const classificationRoutes: RouteModule = (app, ctx) => {
  registerClassify(app, ctx);
  const audit = (request: { audit: unknown }, id: string, details: Record<string, unknown> = {}) => {
    (request as { audit: object }).audit = { resourceType: 'template_draft', resourceId: id, details };
  };

  app.get(
    '/v1/templates/drafts',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'drafts.list', summary: 'List template drafts, newest first (filter: status)', querystring: DraftListQuery, response: { 200: Page(DraftResponse) } },
    },
    async (request) => {
      const { limit, cursor, status } = request.query;
      return listDraftPage(ctx.db, caller(request), { status }, { limit, cursor });
    },
  );

  app.post(
    '/v1/templates/drafts',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'drafts.create', summary: 'Propose a draft from finished jobs (the fields at least half of their documents have)', body: DraftCreate, response: { 201: DraftResponse, 409: ErrorResponse, ...errors } },
    },
    async (request, reply) => {
      const draft = await createDraft(ctx.db, caller(request), request.body as DraftCreateBody);
      audit(request, draft.id, { job_ids: draft.proposed_from_job_ids });
      return reply.status(201).send(draft);
    },
  );

  app.get(
    '/v1/templates/drafts/:draft_id',
    { config: { permission: 'member' }, schema: { tags, operationId: 'drafts.get', summary: 'Fetch a draft', params: DraftParams, response: { 200: DraftResponse, ...errors } } },
    async (request) => getDraft(ctx.db, caller(request), request.params.draft_id),
  );

  app.patch(
    '/v1/templates/drafts/:draft_id',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'drafts.patch', summary: 'Edit a pending draft (409 once accepted or rejected)', params: DraftParams, body: DraftPatch, response: { 200: DraftResponse, 409: ErrorResponse, ...errors } },
    },
    async (request) => {
      const draft = await patchDraft(ctx.db, caller(request), request.params.draft_id, request.body as DraftChanges);
      audit(request, draft.id, { fields: Object.keys(request.body as object) });
      return draft;
    },
  );

  app.delete(
    '/v1/templates/drafts/:draft_id',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'drafts.reject', summary: 'Reject a pending draft (the record stays, status rejected)', params: DraftParams, response: { 200: DraftResponse, 409: ErrorResponse, ...errors } },
    },
    async (request) => {
      const draft = await rejectDraft(ctx.db, caller(request), request.params.draft_id);
      audit(request, draft.id, { status: 'rejected' });
      return draft;
    },
  );

  app.post(
    '/v1/templates/drafts/:draft_id/accept',
    {
      config: { permission: 'admin' },
      schema: {
        tags,
        operationId: 'drafts.accept',
        summary: 'Accept a pending draft: it becomes template version 1 (accepted_as_template_id), its documents the first exemplars',
        params: DraftParams,
        response: { 200: DraftResponse, 409: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const { draft, template } = await acceptDraft(ctx.db, caller(request), request.params.draft_id);
      audit(request, draft.id, { status: 'accepted', template_id: template.id });
      return draft;
    },
  );
};
