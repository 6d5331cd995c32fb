// Wire shapes of connections and their deliveries (decisions.md "Connections and endpoints").
import { Type } from 'typebox';
import type { Connection, Delivery } from '../../db/connections-schema.js';
import { credentialKeysView } from '../../lib/secret-box.js';
import { DIRECTIONS, PROTOCOLS } from '../../domain/connections/protocol-rules.js';
import { configForAnswer } from '../../domain/connections/webhook-headers.js';
import { FreeObject, Nullable, NullableTimestamp, PageQuery, StringEnum, Timestamp } from './common.js';

const JsonObject = Type.Record(Type.String(), Type.Unknown());
const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9 _\\-.]+$' });

// An unknown field is a 422, not silently dropped: a PATCH naming `protocol` (which cannot change)
// must not answer 200 as if it had.
export const ConnectionCreateBody = Type.Object(
  {
    name: Name,
    protocol: StringEnum(PROTOCOLS),
    direction: StringEnum(DIRECTIONS),
    config: JsonObject,
    credentials: JsonObject,
  },
  { additionalProperties: false },
);

export const ConnectionPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    direction: Type.Optional(StringEnum(DIRECTIONS)),
    config: Type.Optional(JsonObject),
    credentials: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const ConnectionParams = Type.Object({ connection_id: Type.String({ maxLength: 64 }) });

export const ListConnectionsQuery = Type.Object({
  ...PageQuery,
  protocol: Type.Optional(StringEnum(PROTOCOLS)),
  direction: Type.Optional(StringEnum(DIRECTIONS)),
});

export const ConnectionRecord = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  name: Type.String(),
  protocol: StringEnum(PROTOCOLS),
  direction: StringEnum(DIRECTIONS),
  config: FreeObject,
  credentials: Type.Record(Type.String(), Type.Literal('set'), { description: 'Which credentials are set; values are never returned' }),
  last_polled_at: NullableTimestamp,
  last_poll_error: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ConnectionTestAnswer = Type.Object({ ok: Type.Boolean(), latency_ms: Type.Integer(), detail: Type.String() });

export const DeliveryRecord = Type.Object({
  delivery_id: Type.String(),
  connection_id: Type.String(),
  event: Type.String(),
  status: StringEnum(['pending', 'delivering', 'delivered', 'failed'] as const),
  attempts: Type.Integer(),
  last_error: Nullable(Type.String()),
  delivered_at: NullableTimestamp,
  created_at: Timestamp,
});

export function presentConnection(c: Connection) {
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    name: c.name,
    protocol: c.protocol,
    direction: c.direction,
    config: configForAnswer(c.config),
    credentials: credentialKeysView(Object.fromEntries(c.credential_keys.map((k) => [k, true]))),
    last_polled_at: c.last_polled_at,
    last_poll_error: c.last_poll_error,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export function presentDelivery(d: Delivery) {
  return {
    delivery_id: d.id,
    connection_id: d.connection_id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    last_error: d.last_error,
    delivered_at: d.delivered_at,
    created_at: d.created_at,
  };
}
