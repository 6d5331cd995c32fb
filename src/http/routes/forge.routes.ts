// The template forge: /v1/templates/forge/jobs/*. Rules live in domain/forge.
import { optionalBody } from './documents.routes.js';
import { type ForgeSubmit as ForgeSubmitBody, abortForgeJob, getForgeJob, getIteration, listForgeJobPage, listIterationPage, promoteForgeJob, submitForgeJob } from '../../domain/forge/forge.service.js';
import { type RouteModule, caller } from '../context.js';
import { ErrorResponse, Page } from '../schemas/common.js';
import { ForgeIteration, ForgeJob, ForgeListQuery, ForgeParams, ForgePromote, ForgeSubmit, IterationListQuery, IterationParams } from '../schemas/forge.js';
import { TemplateRecord } from '../schemas/templates.js';

const tags = ['templates'];
const errors = { 404: ErrorResponse };

export const forgeRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/templates/forge/jobs',
    { config: { permission: 'member' }, schema: { tags, operationId: 'forge.list', summary: 'List forge jobs, newest first (filter: status)', querystring: ForgeListQuery, response: { 200: Page(ForgeJob) } } },
    async (request) => {
      const { limit, cursor, status } = request.query;
      return listForgeJobPage(ctx.db, caller(request), { status }, { limit, cursor });
    },
  );

  app.post(
    '/v1/templates/forge/jobs',
    {
      config: { permission: 'member' },
      schema: {
        tags,
        operationId: 'forge.submit',
        summary: 'Submit a forge job: a template inferred from sample jobs (and expected outputs), refined over iterations',
        body: ForgeSubmit,
        response: { 202: ForgeJob, 403: ErrorResponse, 409: ErrorResponse, 429: ErrorResponse, ...errors },
      },
    },
    async (request, reply) => {
      const job = await submitForgeJob(ctx.db, caller(request), await request.policy(), request.body as ForgeSubmitBody);
      request.audit = { resourceType: 'forge_job', resourceId: job.id, details: { samples: job.sample_job_ids.length, endpoint_id: job.endpoint_id, limits: job.limits } };
      return reply.status(202).send(job);
    },
  );

  app.get(
    '/v1/templates/forge/jobs/:job_id',
    { config: { permission: 'member' }, schema: { tags, operationId: 'forge.get', summary: 'Fetch a forge job', params: ForgeParams, response: { 200: ForgeJob, ...errors } } },
    async (request) => getForgeJob(ctx.db, caller(request), request.params.job_id),
  );

  app.post(
    '/v1/templates/forge/jobs/:job_id/abort',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'forge.abort', summary: 'Abort a forge job (a running one stops at its next checkpoint)', params: ForgeParams, response: { 200: ForgeJob, 409: ErrorResponse, ...errors } },
    },
    async (request) => {
      const job = await abortForgeJob(ctx.db, caller(request), request.params.job_id);
      request.audit = { resourceType: 'forge_job', resourceId: job.id, details: { action: 'abort' } };
      return job;
    },
  );

  app.post(
    '/v1/templates/forge/jobs/:job_id/promote',
    {
      config: { permission: 'admin' },
      // Both fields are optional, so the body is too.
      preValidation: optionalBody,
      schema: {
        tags,
        operationId: 'forge.promote',
        summary: "Promote a succeeded forge job's best candidate: a new template (`name`; without it, named forged-<forge job id>) or a new version of `template_id`",
        params: ForgeParams,
        body: ForgePromote,
        response: { 200: TemplateRecord, 409: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const template = await promoteForgeJob(ctx.db, caller(request), request.params.job_id, request.body as { name?: string; template_id?: string });
      request.audit = { resourceType: 'forge_job', resourceId: request.params.job_id, details: { action: 'promote', template_id: template.id, version: template.version } };
      return template;
    },
  );

  app.get(
    '/v1/templates/forge/jobs/:job_id/iterations',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'forge.iterations', summary: "A forge job's iterations, newest first", params: ForgeParams, querystring: IterationListQuery, response: { 200: Page(ForgeIteration), ...errors } },
    },
    async (request) => listIterationPage(ctx.db, caller(request), request.params.job_id, request.query),
  );

  app.get(
    '/v1/templates/forge/jobs/:job_id/iterations/:iteration_id',
    { config: { permission: 'member' }, schema: { tags, operationId: 'forge.iteration', summary: 'One iteration: its candidate, scores, tokens, dollars and notes', params: IterationParams, response: { 200: ForgeIteration, ...errors } } },
    async (request) => getIteration(ctx.db, caller(request), request.params.job_id, request.params.iteration_id),
  );
};
