// Forge and infrastructure endpoint bodies and records (interface.md "Forge endpoint",
// decisions.md "Connections and endpoints"). Credentials are write-only: records show their keys.
import { Type } from 'typebox';
import { INFRA_TYPES } from '../../db/endpoints-schema.js';
import { ModelPriceBody } from '../../domain/endpoints/price-schema.js';
import { Nullable, StringEnum, Timestamp } from './common.js';

const Name = Type.String({ minLength: 1, maxLength: 128 });
const Text = Type.String({ minLength: 1, maxLength: 2048 });
const CredentialsPayload = Type.Record(
  Type.String(),
  Type.Unknown(),
  {
    description:
      'Per backend: anthropic {api_key}; bedrock {access_key_id, secret_access_key, session_token?}; vertex {service_account_json}; custom_url {api_key?}. Never returned.',
  },
);
const Price = ModelPriceBody;
const CredentialKeys = Type.Record(Type.String(), Type.Literal('set'), { description: 'Each credential key that is set, never its value.' });

/** What a forge endpoint's create and update bodies both set, besides its name, model and credentials. */
const ForgeEndpointSettings = {
  base_url: Type.Optional(Text),
  aws_region: Type.Optional(Text),
  gcp_project: Type.Optional(Text),
  gcp_region: Type.Optional(Text),
  default_max_budget_usd: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  default_max_turns: Type.Optional(Type.Number({ minimum: 1 })),
  price_per_mtok: Type.Optional(Nullable(Price)),
};

// Unknown fields are a 422 (a PUT naming `backend`, which cannot change, must not answer 200).
export const ForgeEndpointCreateBody = Type.Object(
  {
    name: Name,
    backend: Type.String({ description: 'anthropic, bedrock, vertex or custom_url' }),
    model: Type.String({ minLength: 1, maxLength: 256 }),
    credentials: CredentialsPayload,
    ...ForgeEndpointSettings,
    is_default_for_tenant: Type.Optional(Type.Boolean()),
    tenant_id: Type.Optional(Type.String({ minLength: 2, maxLength: 63 })),
  },
  { additionalProperties: false },
);

export const ForgeEndpointUpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    ...ForgeEndpointSettings,
    credentials: Type.Optional(Nullable(CredentialsPayload)),
  },
  { additionalProperties: false },
);

export const ForgeEndpointRecord = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  name: Type.String(),
  backend: Type.String(),
  model: Type.String(),
  base_url: Nullable(Type.String()),
  aws_region: Nullable(Type.String()),
  gcp_project: Nullable(Type.String()),
  gcp_region: Nullable(Type.String()),
  credentials: CredentialKeys,
  default_max_budget_usd: Nullable(Type.Number()),
  default_max_turns: Nullable(Type.Number()),
  price_per_mtok: Nullable(Price),
  is_default_for_tenant: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const EndpointParams = Type.Object({ endpoint_id: Type.String({ maxLength: 64 }) });

export const BackendRecord = Type.Object({
  backend: Type.String(),
  description: Type.String(),
  required_fields: Type.Array(Type.String()),
  optional_fields: Type.Array(Type.String()),
  required_credentials: Type.Array(Type.String()),
  optional_credentials: Type.Array(Type.String()),
});

export const InfraType = StringEnum(INFRA_TYPES);
export const InfraTypeParams = Type.Object({ endpoint_type: InfraType });
export const TenantInfraParams = Type.Object({ tenant_id: Type.String({ maxLength: 63 }) });
export const TenantInfraTypeParams = Type.Object({ tenant_id: Type.String({ maxLength: 63 }), endpoint_type: InfraType });

/** The PUT body is checked per type by the service; this documents the three shapes. */
export const InfraPutBody = Type.Object({}, {
  additionalProperties: true,
  description: 'vlm and judge: the model body; ocr: {base_url, credentials?: {api_key}, timeout_seconds?}; smtp: {host, port, secure?, from, credentials?: {username, password}}.',
});

export const InfraRecord = Type.Object(
  {
    endpoint_type: InfraType,
    scope: StringEnum(['platform', 'tenant'] as const),
    tenant_id: Nullable(Type.String()),
    credentials: CredentialKeys,
    updated_at: Timestamp,
  },
  { additionalProperties: true, description: 'The body fields of the endpoint type (defaults filled in), its scope and which credential keys are set.' },
);

export const InfraList = Type.Object({ items: Type.Array(InfraRecord), next_cursor: Nullable(Type.String()) });

export const RoundTrip = Type.Object({ ok: Type.Boolean(), latency_ms: Type.Integer(), detail: Type.String() });
