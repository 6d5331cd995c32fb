// Templates (every /v1/templates operation except drafts, forge and classify). Rules live in
// domain/templates; these handlers validate, call one function and present the result.
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { type TemplatePayload, createTemplate, deleteTemplate, getTemplate, listTemplates, setActive, templateAudit, templateContent, templateForRun, templateVersions, updateTemplate } from '../../domain/templates/templates.service.js';
import { type TestInput, testTemplate } from '../../domain/templates/template-test.service.js';
import { ruleKindsCatalogue, type ExtractionTemplate } from '../../pipeline/extract/index.js';
import { type App, type RouteModule, caller } from '../context.js';
import { type ValidationItem, notFound, payloadTooLarge, unsupportedMedia, validationError } from '../../lib/errors.js';
import { AuditEntry, presentAudit } from '../schemas/admin.js';
import { ErrorResponse, NoContent, Page, PageQuery } from '../schemas/common.js';
import {
  InlineTemplate,
  RuleKinds,
  TemplateCreate,
  TemplateListQuery,
  TemplateParams,
  TemplateRecord,
  TemplateVersions,
  TemplateVersionsQuery,
  TestForm,
  TestJsonBody,
  TestResult,
  UnifiedTestForm,
  UnifiedTestJsonBody,
} from '../schemas/templates.js';
import { compileBodyValidator, toValidationItems } from '../validation.js';
import { Type } from 'typebox';

const tags = ['templates'];
const errors = { 404: ErrorResponse };

const validateTestJson = compileBodyValidator(TestJsonBody);
const validateUnifiedJson = compileBodyValidator(UnifiedTestJsonBody);
const validateInline = compileBodyValidator(InlineTemplate);

function check(validate: ReturnType<typeof compileBodyValidator>, data: unknown, prefix: (string | number)[] = []): ValidationItem[] {
  if (validate(data)) return [];
  return toValidationItems(validate.errors ?? [], data, 'body').map((i) => ({ ...i, loc: ['body', ...prefix, ...i.loc.slice(1)] }));
}

export interface TestRequest {
  file: { bytes: Uint8Array; filename: string | null } | null;
  fields: Record<string, unknown>;
}

/** Reads the test request: a multipart form (`file` and text fields) or a JSON body. */
export async function readTestRequest(request: FastifyRequest, maxBytes: number): Promise<TestRequest> {
  if (!request.isMultipart()) {
    const body = request.body;
    if (body === undefined || body === null) {
      throw validationError([{ loc: ['body'], msg: 'Field required: send multipart/form-data with `file`, or JSON with `job_id`', type: 'missing', input: null }]);
    }
    if (typeof body !== 'object' || Array.isArray(body)) throw validationError([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: body }]);
    return { file: null, fields: body as Record<string, unknown> };
  }
  const fields: Record<string, unknown> = {};
  let file: TestRequest['file'] = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (typeof part.value === 'string' && part.value.trim() !== '') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'file' || file) {
        part.file.resume();
        if (part.fieldname === 'file') throw validationError([{ loc: ['body', 'file'], msg: 'Send exactly one file', type: 'value_error' }]);
        continue;
      }
      const bytes = await part.toBuffer();
      file = { bytes: new Uint8Array(bytes), filename: part.filename || null };
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      throw payloadTooLarge(`The file is larger than this server accepts (${maxBytes} bytes, QUIRE_MAX_UPLOAD_BYTES). Send a page_range of a smaller export, or test on an existing job with job_id.`);
    }
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') throw unsupportedMedia('unsupported_media_type', 'Send the test as multipart/form-data or JSON.');
    throw err;
  }
  return { file, fields };
}

/** The document to test on: the uploaded file or job_id (exactly one). */
/** A JSON body naming a job (`{job_id}`) checked against its schema; a multipart body has its own checks. */
export function jobBodyProblems(request: FastifyRequest, req: TestRequest): ValidationItem[] {
  return request.isMultipart() ? [] : check(validateTestJson, req.fields);
}

export function testInput(req: TestRequest, extra: ValidationItem[]): TestInput {
  const items = [...extra];
  const jobId = req.fields.job_id;
  const pageRange = req.fields.page_range;
  if (req.file && jobId !== undefined) items.push({ loc: ['body', 'job_id'], msg: 'Send a file or a job_id, not both', type: 'value_error', input: jobId });
  if (!req.file && jobId === undefined) items.push({ loc: ['body', 'file'], msg: 'Field required: upload a `file`, or name an existing job with `job_id`', type: 'missing', input: null });
  if (pageRange !== undefined && (typeof pageRange !== 'string' || pageRange.length > 255)) items.push({ loc: ['body', 'page_range'], msg: 'String should have at most 255 characters', type: 'string_too_long', input: pageRange });
  if (items.length) throw validationError(items);
  if (req.file) return { kind: 'file', bytes: req.file.bytes, filename: req.file.filename, pageRange: typeof pageRange === 'string' ? pageRange : null };
  return { kind: 'job', jobId: String(jobId) };
}

function inlineTemplate(raw: unknown, fromForm: boolean): { template: ExtractionTemplate | null; items: ValidationItem[] } {
  let value = raw;
  if (fromForm) {
    try {
      value = JSON.parse(String(raw));
    } catch (err) {
      return { template: null, items: [{ loc: ['body', 'template'], msg: 'Invalid JSON', type: 'json_invalid', input: raw, ctx: { error: (err as Error).message } }] };
    }
  }
  const items = check(validateInline, value, ['template']);
  if (items.length) return { template: null, items };
  const payload = value as TemplatePayload;
  const content = templateContent({ ...payload, name: payload.name ?? 'inline' }, ['body', 'template']);
  return { template: { id: null, version: null, ...content }, items: [] };
}

const testSchema = (summary: string, operationId: string, params?: typeof TemplateParams) => ({
  tags,
  operationId,
  summary,
  description:
    'Runs extraction synchronously and persists nothing. Send multipart/form-data with `file` (and optional `page_range`), ' +
    'or JSON `{"job_id": …}` to test on the stored canonical output of an existing job. Answers what the job would produce: ' +
    'status, review reasons, extraction and entities.',
  ...(params ? { params } : {}),
  response: { 200: TestResult, 404: ErrorResponse },
});

function registerTests(app: App, ctx: Parameters<RouteModule>[1]): void {
  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: ctx.config.maxUploadBytes, files: 2, fields: 20, fieldSize: 2 * 1024 * 1024, parts: 30 } });
    const route = scope as unknown as App;

    route.post(
      '/v1/templates/test',
      {
        config: { permission: 'member', openapiBody: UnifiedTestForm, openapiConsumes: ['multipart/form-data', 'application/json'] },
        schema: testSchema('Test a template given inline (or by template_id) on a file or a job, without saving anything', 'templates.test_unified'),
      },
      async (request) => {
        const req = await readTestRequest(request, ctx.config.maxUploadBytes);
        const form = request.isMultipart();
        const items: ValidationItem[] = [];
        if (!form) {
          const { template: _t, ...rest } = req.fields;
          items.push(...check(validateUnifiedJson, { ...rest, ...(rest.job_id === undefined ? { job_id: 'x' } : {}) }).filter((i) => i.loc[1] !== 'template'));
        }
        const hasInline = req.fields.template !== undefined;
        const hasId = req.fields.template_id !== undefined;
        if (hasInline === hasId) items.push({ loc: ['body', 'template'], msg: 'Send the template inline as `template`, or name one with `template_id` (exactly one of them)', type: 'value_error', input: null });
        let template: ExtractionTemplate | null = null;
        if (hasInline && !hasId) {
          const inline = inlineTemplate(req.fields.template, form);
          items.push(...inline.items);
          template = inline.template;
        }
        const input = testInput(req, items);
        const principal = caller(request);
        if (!template) {
          const id = String(req.fields.template_id);
          template = (await templateForRun(ctx.db, principal.tenantId, id)) ?? null;
          if (!template) throw notFound(`Template ${id}`);
        }
        request.audit = { resourceType: 'template_test', resourceId: template.id ?? undefined, details: { source: input.kind, ...(input.kind === 'job' ? { job_id: input.jobId } : {}) } };
        return testTemplate(ctx, principal, await request.policy(), template, input);
      },
    );

    route.post(
      '/v1/templates/:template_id/test',
      {
        config: { permission: 'member', openapiBody: TestForm, openapiConsumes: ['multipart/form-data', 'application/json'] },
        schema: testSchema('Test a template on a file or an existing job, without saving anything', 'templates.test', TemplateParams),
      },
      async (request) => {
        const { template_id: id } = request.params as { template_id: string };
        const req = await readTestRequest(request, ctx.config.maxUploadBytes);
        const input = testInput(req, jobBodyProblems(request, req));
        const principal = caller(request);
        const template = await templateForRun(ctx.db, principal.tenantId, id);
        if (!template) throw notFound(`Template ${id}`);
        request.audit = { resourceType: 'template_test', resourceId: id, details: { source: input.kind, version: template.version, ...(input.kind === 'job' ? { job_id: input.jobId } : {}) } };
        return testTemplate(ctx, principal, await request.policy(), template, input);
      },
    );
  });
}

export const templatesRoutes: RouteModule = (app, ctx) => {
  const audit = (request: FastifyRequest, id: string, details: Record<string, unknown> = {}) => {
    request.audit = { resourceType: 'template', resourceId: id, details };
  };

  app.get(
    '/v1/templates',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'templates.list', summary: 'List templates, newest first (filters: active, q)', querystring: TemplateListQuery, response: { 200: Page(TemplateRecord) } },
    },
    async (request) => {
      const { limit, cursor, active, q } = request.query;
      return listTemplates(ctx.db, caller(request), { active, q }, { limit, cursor });
    },
  );

  app.post(
    '/v1/templates',
    {
      config: { permission: 'admin' },
      schema: { tags, operationId: 'templates.create', summary: 'Create a template (version 1, active)', body: TemplateCreate, response: { 201: TemplateRecord, 409: ErrorResponse } },
    },
    async (request, reply) => {
      const template = await createTemplate(ctx.db, caller(request), request.body as TemplatePayload);
      audit(request, template.id, { name: template.name, version: template.version });
      return reply.status(201).send(template);
    },
  );

  app.get(
    '/v1/templates/meta/rule-kinds',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'templates.rule_kinds', summary: 'Every validation rule kind with its params and an example', response: { 200: RuleKinds } },
    },
    async () => ruleKindsCatalogue(),
  );

  app.get(
    '/v1/templates/:template_id',
    {
      config: { permission: 'member' },
      schema: { tags, operationId: 'templates.get', summary: 'Fetch a template (its current version)', params: TemplateParams, response: { 200: TemplateRecord, ...errors } },
    },
    async (request) => getTemplate(ctx.db, caller(request), request.params.template_id),
  );

  app.put(
    '/v1/templates/:template_id',
    {
      config: { permission: 'admin' },
      schema: {
        tags,
        operationId: 'templates.update',
        summary: 'Replace a template: the payload becomes its next immutable version',
        params: TemplateParams,
        body: TemplateCreate,
        response: { 200: TemplateRecord, 409: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const template = await updateTemplate(ctx.db, caller(request), request.params.template_id, request.body as TemplatePayload);
      audit(request, template.id, { name: template.name, version: template.version });
      return template;
    },
  );

  app.delete(
    '/v1/templates/:template_id',
    {
      config: { permission: 'admin' },
      schema: { tags, operationId: 'templates.delete', summary: 'Delete a template (soft: jobs keep the version they used)', params: TemplateParams, response: { 204: NoContent, ...errors } },
    },
    async (request, reply) => {
      await deleteTemplate(ctx.db, caller(request), request.params.template_id);
      audit(request, request.params.template_id);
      return reply.status(204).send(null);
    },
  );

  for (const [action, active] of [['activate', true], ['deactivate', false]] as const) {
    app.post(
      `/v1/templates/:template_id/${action}`,
      {
        config: { permission: 'admin' },
        schema: {
          tags,
          operationId: `templates.${action}`,
          summary: active ? 'Make a template available to auto-classification' : 'Withdraw a template from auto-classification (it can still be named explicitly)',
          params: TemplateParams,
          response: { 200: TemplateRecord, 409: ErrorResponse, ...errors },
        },
      },
      async (request) => {
        const template = await setActive(ctx.db, caller(request), request.params.template_id, active);
        audit(request, template.id, { active });
        return template;
      },
    );
  }

  app.get(
    '/v1/templates/:template_id/versions',
    {
      config: { permission: 'member' },
      schema: {
        tags,
        operationId: 'templates.versions',
        summary: 'Every version of a template, newest first (filter: version)',
        params: TemplateParams,
        querystring: TemplateVersionsQuery,
        response: { 200: TemplateVersions, ...errors },
      },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      return templateVersions(ctx.db, caller(request), request.params.template_id, filters, { limit, cursor });
    },
  );

  app.get(
    '/v1/templates/:template_id/audit',
    {
      config: { permission: 'member' },
      schema: {
        tags,
        operationId: 'templates.audit',
        summary: "The template's audit trail (every change made to it), newest first",
        params: TemplateParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Page(AuditEntry), ...errors },
      },
    },
    async (request) => {
      const page = await templateAudit(ctx.db, caller(request), request.params.template_id, request.query);
      return { items: page.items.map(presentAudit), next_cursor: page.next_cursor };
    },
  );

  registerTests(app, ctx);
};
