// Request schemas that interface.md gives for operations built by later issues. They are
// registered now so the OpenAPI document is complete and requests are validated from day one.
import { Type } from 'typebox';
import { FreeObject, Nullable, StringEnum } from './common.js';

const ProcessingMode = StringEnum(['canonical', 'entities', 'extraction'] as const);

export const ForgeCredentials = Type.Object(
  {
    api_key: Type.Optional(Type.String()),
    access_key_id: Type.Optional(Type.String()),
    secret_access_key: Type.Optional(Type.String()),
    session_token: Type.Optional(Type.String()),
    service_account_json: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'Validated per backend by the service.' },
);

export const ForgeEndpointCreate = Type.Object({
  name: Type.String(),
  backend: Type.String(),
  model: Type.String(),
  credentials: ForgeCredentials,
  base_url: Type.Optional(Type.String()),
  aws_region: Type.Optional(Type.String()),
  gcp_project: Type.Optional(Type.String()),
  gcp_region: Type.Optional(Type.String()),
  default_max_budget_usd: Type.Optional(Type.Number()),
  default_max_turns: Type.Optional(Type.Number()),
  is_default_for_tenant: Type.Optional(Type.Boolean()),
  tenant_id: Type.Optional(Type.String()),
});

export const ForgeEndpointUpdate = Type.Object({
  name: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
  base_url: Type.Optional(Type.String()),
  aws_region: Type.Optional(Type.String()),
  gcp_project: Type.Optional(Type.String()),
  gcp_region: Type.Optional(Type.String()),
  default_max_budget_usd: Type.Optional(Type.Number()),
  default_max_turns: Type.Optional(Type.Number()),
  credentials: Type.Optional(Nullable(ForgeCredentials)),
});

export const JobReprocess = Type.Object({
  template_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  clear_template: Type.Optional(Type.Boolean()),
  processing_mode: Type.Optional(Nullable(ProcessingMode)),
  page_range: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
});

export const ConnectionCreate = Type.Object({
  name: Type.String(),
  protocol: Type.String(),
  direction: Type.String(),
  config: FreeObject,
  credentials: FreeObject,
});

export const ConnectionPatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9 _\\-.]+$' })),
  direction: Type.Optional(StringEnum(['source', 'destination', 'both'] as const)),
  config: Type.Optional(FreeObject),
  credentials: Type.Optional(FreeObject),
});

export const ReviewOverride = Type.Object({ patch: FreeObject, note: Type.Optional(Nullable(Type.String())) });
export const ReviewApprove = Type.Object({ note: Type.Optional(Nullable(Type.String())) });
export const ReviewReprocess = Type.Object({ template_id: Type.Optional(Nullable(Type.String())) });

export const BatchForm = Type.Object({
  files: Nullable(Type.Array(Type.String({ format: 'binary' }))),
  name: Type.Optional(Type.String()),
  template_id: Type.Optional(Type.String()),
  processing_mode: Type.Optional(ProcessingMode),
  page_range: Type.Optional(Type.String({ maxLength: 255 })),
  page_cap_policy: Type.Optional(StringEnum(['fail', 'truncate'] as const)),
  destination_connection_id: Type.Optional(Type.String()),
  destination_config: Type.Optional(Type.String({ description: 'JSON text' })),
});

export const DocumentForm = Type.Object({
  file: Type.String({ format: 'binary' }),
  template_id: Type.Optional(Type.String()),
  processing_mode: Type.Optional(ProcessingMode),
  page_range: Type.Optional(Type.String({ maxLength: 255 })),
  destination_connection_id: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.String({ description: 'JSON text' })),
});
