// Wire shapes of templates (interface.md TemplateCreatePayload; decisions.md template record and
// versions). The payload schema checks shapes; template-check.ts checks what a schema cannot
// (json_schema compiles, rules fit their kind and name real fields).
import { Type } from 'typebox';
import { PostProcessingShape } from '../../pipeline/extract/index.js';
import { FreeObject, Nullable, PageQuery, Timestamp } from './common.js';

export const ReviewThresholds = Type.Object(
  {
    confidence_floor: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    agreement_floor: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    warn_count_threshold: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false, description: 'Override the tenant policy review_confidence_floor, review_agreement_floor and review_warn_count_threshold for this template' },
);

const payloadFields = {
  name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-z0-9][a-z0-9_\\-]*$' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
  prompt_overlay: Type.Optional(Type.String({ default: '', maxLength: 100_000 })),
  json_schema: Type.Object({}, { additionalProperties: true, description: 'A JSON Schema (draft 2020-12 or 07) of the extracted data: an object with properties' }),
  validation_rules: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 500, description: 'See GET /v1/templates/meta/rule-kinds' })),
  review_thresholds: Type.Optional(ReviewThresholds),
  post_processing: Type.Optional(Nullable(PostProcessingShape)),
};

/** interface.md TemplateCreatePayload (POST /v1/templates and PUT /v1/templates/{id}). */
export const TemplateCreate = Type.Object(payloadFields);

/** A template given inline to the unified test: the payload, with the name optional. */
export const InlineTemplate = Type.Object({ ...payloadFields, name: Type.Optional(payloadFields.name) });

export const TemplateRecord = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  prompt_overlay: Type.String(),
  json_schema: FreeObject,
  validation_rules: Type.Array(FreeObject),
  review_thresholds: FreeObject,
  post_processing: Nullable(FreeObject),
  version: Type.Integer(),
  active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  created_by: Nullable(Type.String()),
  updated_by: Nullable(Type.String()),
});

export const TemplateParams = Type.Object({ template_id: Type.String({ maxLength: 64 }) });

export const TemplateListQuery = Type.Object({
  ...PageQuery,
  active: Type.Optional(Type.Boolean()),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Case-insensitive substring of the name or description' })),
});

export const TemplateVersions = Type.Object({
  items: Type.Array(Type.Object({ version: Type.Integer(), created_at: Timestamp, created_by: Nullable(Type.String()), template: FreeObject })),
  next_cursor: Nullable(Type.String()),
});

export const TemplateVersionsQuery = Type.Object({
  ...PageQuery,
  version: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this version' })),
});

export const RuleKinds = Type.Object({
  items: Type.Array(Type.Object({ kind: Type.String(), description: Type.String(), target: Type.String(), params: FreeObject, example: FreeObject })),
  severities: Type.Array(Type.String()),
  on_fail: Type.Array(Type.String()),
  rule_shape: FreeObject,
});

/** JSON body of the test endpoints (the multipart form takes the same fields, `template` as JSON text). */
export const TestJsonBody = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
export const UnifiedTestJsonBody = Type.Object(
  {
    job_id: Type.String({ minLength: 1, maxLength: 64 }),
    template_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    template: Type.Optional(InlineTemplate),
  },
  { additionalProperties: false },
);

/** For the OpenAPI document: what the test endpoints accept (multipart form or JSON). */
export const TestForm = Type.Object({
  file: Type.Optional(Type.String({ format: 'binary', description: 'The document to test on (or send job_id)' })),
  job_id: Type.Optional(Type.String({ description: 'Test on the stored canonical output of this job instead of a file' })),
  page_range: Type.Optional(Type.String({ maxLength: 255 })),
});
export const UnifiedTestForm = Type.Object({
  ...TestForm.properties,
  template: Type.Optional(Type.String({ description: 'The template inline: a TemplateCreatePayload as JSON (name optional)' })),
  template_id: Type.Optional(Type.String({ description: 'Or an existing template' })),
});

export const TestResult = Type.Object({
  template_id: Nullable(Type.String()),
  template_version: Nullable(Type.Integer()),
  source: FreeObject,
  status: Type.String({ description: 'What the job would end as: completed, needs_review or rejected' }),
  review_reasons: Type.Array(Type.String()),
  thresholds: FreeObject,
  extraction: FreeObject,
  entities: Type.Array(FreeObject),
  warnings: Type.Array(Type.String()),
  timings_ms: FreeObject,
});
