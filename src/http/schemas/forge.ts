// Wire shapes of the template forge (decisions.md "Templates, drafts, forge").
import { Type } from 'typebox';
import { FreeObject, Nullable, PageQuery, StringEnum, Timestamp } from './common.js';

export const ForgeStatus = StringEnum(['queued', 'running', 'succeeded', 'failed', 'aborted', 'promoted'] as const);

export const ForgeSubmit = Type.Object(
  {
    sample_job_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 20 }),
    hint: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    expected_outputs: Type.Optional(Nullable(Type.Record(Type.String(), FreeObject, { description: '{<sample job_id>: <the data wanted from that document>}' }))),
    endpoint_id: Type.Optional(
      Nullable(Type.String({ maxLength: 64, description: "A forge endpoint of the tenant: the model-driven forge through it. Left out: the tenant's default forge endpoint, if any; null: the deterministic forge." })),
    ),
    max_iterations: Type.Optional(Type.Integer({ minimum: 1 })),
    max_dollars: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    max_wall_seconds: Type.Optional(Type.Integer({ minimum: 60 })),
  },
  { additionalProperties: false },
);

export const ForgeJob = Type.Object({
  id: Type.String(),
  status: ForgeStatus,
  sample_job_ids: Type.Array(Type.String()),
  hint: Nullable(Type.String()),
  endpoint_id: Nullable(Type.String()),
  limits: Type.Object({ max_iterations: Type.Integer(), max_dollars: Type.Number(), max_wall_seconds: Type.Integer() }),
  iterations_count: Type.Integer(),
  best_iteration_id: Nullable(Type.String()),
  best_score: Nullable(Type.Number()),
  tokens: Type.Integer(),
  dollars: Type.Number(),
  promoted_template_id: Nullable(Type.String()),
  failure_message: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ForgeIteration = Type.Object({
  id: Type.String(),
  forge_job_id: Type.String(),
  number: Type.Integer(),
  candidate: Type.Object({ json_schema: FreeObject, validation_rules: Type.Array(FreeObject), prompt_overlay: Type.String() }),
  scores: Type.Object({ overall: Type.Number(), field_coverage: Type.Number(), validation_pass_rate: Type.Number(), expected_agreement: Type.Number() }),
  tokens: Type.Integer(),
  dollars: Type.Number(),
  notes: Nullable(Type.String()),
  created_at: Timestamp,
});

export const ForgeParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) });
export const IterationParams = Type.Object({ job_id: Type.String({ maxLength: 64 }), iteration_id: Type.String({ maxLength: 64 }) });
export const ForgeListQuery = Type.Object({ ...PageQuery, status: Type.Optional(ForgeStatus) });
export const IterationListQuery = Type.Object(PageQuery);

export const ForgePromote = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-z0-9][a-z0-9_\\-]*$' })),
    template_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
