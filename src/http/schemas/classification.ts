// Wire shapes of classification and drafts (decisions.md "Templates, drafts, forge";
// interface.md DraftResponse).
import { Type } from 'typebox';
import { FreeObject, Nullable, PageQuery, StringEnum, Timestamp } from './common.js';

export const ClassifyCandidate = Type.Object({
  template_id: Type.String(),
  version: Type.Integer(),
  name: Type.String(),
  score: Type.Number(),
  evidence: FreeObject,
});

export const ClassifyResponse = Type.Object({
  matched: Type.Boolean(),
  template_id: Nullable(Type.String()),
  version: Nullable(Type.Integer()),
  score: Type.Number(),
  threshold: Type.Number(),
  margin: Type.Number(),
  method: Type.String({ description: 'Who decided: embedded (the ranking, a winner or a miss), embedded_leader (the leader of a close ranking, well above the threshold), vlm (the vlm endpoint chose among close candidates) or vlm_none (it chose none)' }),
  reason_code: Type.Optional(StringEnum(['no_templates', 'below_threshold', 'ambiguous', 'none_fits'] as const, { description: 'Why nothing matched (a miss only): no active templates, the best score under the threshold, two leaders within the margin, or the vlm endpoint found none fits' })),
  reason: Type.Optional(Type.String()),
  model: Type.Optional(Type.Object({ backend: Type.String(), model: Type.String(), calls: Type.Integer(), input_tokens: Type.Integer(), output_tokens: Type.Integer(), cost_usd: Type.Number() }, { description: 'What the vlm endpoint spent settling an ambiguous ranking' })),
  candidates: Type.Array(ClassifyCandidate, { description: 'Every active template, best first' }),
});

export const ClassifyForm = Type.Object({
  file: Type.Optional(Type.String({ format: 'binary' })),
  page_range: Type.Optional(Type.String()),
  job_id: Type.Optional(Type.String()),
});

export const DraftStatus = StringEnum(['pending', 'accepted', 'rejected'] as const);

// interface.md types the optional fields "string", not "string or null" (as ReviewSummary's are):
// a field without a value is left out.
export const DraftResponse = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    proposed_by: Type.Optional(Type.String()),
    proposed_from_job_ids: Type.Array(Type.String()),
    proposed_from_hint: Type.Optional(Type.String()),
    auto_seen_count: Type.Integer(),
    proposed_name: Type.String(),
    proposed_description: Type.Optional(Type.String()),
    json_schema: FreeObject,
    prompt_overlay: Type.Optional(Type.String()),
    validation_rules: Type.Array(FreeObject),
    field_examples: FreeObject,
    drafter_notes: Type.Optional(Type.String()),
    status: Type.String(),
    accepted_as_template_id: Type.Optional(Type.String()),
    created_at: Timestamp,
    resolved_at: Type.Optional(Timestamp),
    resolved_by: Type.Optional(Type.String()),
  },
  { $id: 'DraftResponse' },
);

export const DraftParams = Type.Object({ draft_id: Type.String({ maxLength: 64 }) });

export const DraftListQuery = Type.Object({ ...PageQuery, status: Type.Optional(DraftStatus) });

export const DraftCreate = Type.Object(
  {
    job_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 20, description: 'Finished jobs whose documents the draft is inferred from' }),
    hint: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-z0-9][a-z0-9_\\-]*$' })),
  },
  { additionalProperties: false },
);

export const DraftPatch = Type.Object(
  {
    proposed_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-z0-9][a-z0-9_\\-]*$' })),
    proposed_description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    json_schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
    prompt_overlay: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
    validation_rules: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 500 })),
    field_examples: Type.Optional(FreeObject),
    drafter_notes: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
  },
  { additionalProperties: false },
);
