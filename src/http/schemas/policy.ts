// Tenant-policy schemas, generated from the policy registry (src/domain/policy/policy.registry.ts):
// the two PATCH bodies, the read responses and the registry spec. Nothing here names a field.
import { type TSchema, Type } from 'typebox';
import { KILL_SWITCHES, PLATFORM_CONTROLLED, POLICY_NAMES, POLICY_REGISTRY, type PolicyField, type PolicyName, describeConstraint } from '../../domain/policy/policy.registry.js';
import type { ValidationItem } from '../../lib/errors.js';
import { Nullable, NullableTimestamp, StringEnum } from './common.js';

/** The JSON Schema of one field's value (never null), with or without its description. */
export function fieldSchema(name: PolicyName, withDescription = true): TSchema {
  const f: PolicyField = POLICY_REGISTRY[name];
  const options: Record<string, unknown> = {};
  if (withDescription) options.description = f.description;
  if (f.minimum !== undefined) options.minimum = f.minimum;
  if (f.maximum !== undefined) options.maximum = f.maximum;
  if (f.exclusiveMinimum !== undefined) options.exclusiveMinimum = f.exclusiveMinimum;
  switch (f.type) {
    case 'boolean':
      return Type.Boolean(options);
    case 'integer':
      return Type.Integer(options);
    case 'number':
      return Type.Number(options);
    case 'string':
      return f.enum ? StringEnum(f.enum, options) : Type.String(options);
    case 'object':
      return Type.Object({}, { ...options, additionalProperties: true });
  }
}

function objectOf(each: (name: PolicyName) => TSchema, options: Record<string, unknown> = {}) {
  return Type.Object(Object.fromEntries(POLICY_NAMES.map((name) => [name, each(name)])) as Record<PolicyName, TSchema>, options);
}

/**
 * PATCH /v1/admin/tenant-policy/{tenant_id}: every field optional and nullable (interface.md).
 * Null on a kill switch is schema-valid here and refused by killSwitchNulls, so that the 422 lists
 * it together with any other bad field. Unknown fields are refused (a typo must not pass silently).
 */
export const TenantPolicyPatch = objectOf((name) => Type.Optional(Nullable(fieldSchema(name))), {
  additionalProperties: false,
  description: 'Present: set. null: clear, so the field inherits the platform default (422 on a kill switch). Absent: unchanged.',
});

/** PATCH /v1/platform/defaults: the same fields, optional, never null (decisions.md). */
export const PlatformDefaultsPatch = objectOf((name) => Type.Optional(fieldSchema(name)), {
  additionalProperties: false,
  description: 'Present: set the platform default. null is refused with 422: every field always has a platform default.',
});

const valueSchema = (name: PolicyName) => (POLICY_REGISTRY[name].default === null ? Nullable(fieldSchema(name, false)) : fieldSchema(name, false));

export const TenantPolicyRead = Type.Object({
  tenant_id: Type.String(),
  fields: objectOf((name) => Type.Object({ value: valueSchema(name), source: StringEnum(['tenant', 'platform'] as const) })),
  effective: objectOf(valueSchema),
});

export const PlatformDefaultsRead = Type.Object({
  defaults: objectOf(valueSchema),
  updated_at: NullableTimestamp,
});

export const RegistrySpec = Type.Object({
  fields: Type.Array(
    Type.Object({
      name: Type.String(),
      type: StringEnum(['boolean', 'string', 'integer', 'number', 'object'] as const),
      enum: Nullable(Type.Array(Type.String())),
      minimum: Nullable(Type.Number()),
      maximum: Nullable(Type.Number()),
      exclusive_minimum: Nullable(Type.Number()),
      constraint: Type.String({ description: 'The constraint in words, e.g. "at most 1"; empty when none.' }),
      nullable: Type.Boolean({ description: 'Whether a tenant PATCH may send null (false for kill switches).' }),
      inheritable: Type.Boolean(),
      kill_switch: Type.Boolean(),
      platform_controlled: Type.Boolean(),
      default: Type.Unknown({ description: 'Built-in platform default; GET defaults-view shows the platform defaults in force.' }),
      description: Type.String(),
      schema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of a (non-null) value.' }),
    }),
  ),
  kill_switches: Type.Array(Type.String()),
  platform_controlled: Type.Array(Type.String()),
});

export function registrySpec() {
  return {
    fields: POLICY_NAMES.map((name) => {
      const f: PolicyField = POLICY_REGISTRY[name];
      return {
        name,
        type: f.type,
        enum: f.enum ? [...f.enum] : null,
        minimum: f.minimum ?? null,
        maximum: f.maximum ?? null,
        exclusive_minimum: f.exclusiveMinimum ?? null,
        constraint: describeConstraint(f),
        nullable: f.inheritable,
        inheritable: f.inheritable,
        kill_switch: !f.inheritable,
        platform_controlled: f.platformControlled === true,
        default: f.default,
        description: f.description,
        schema: JSON.parse(JSON.stringify(fieldSchema(name, false))) as Record<string, unknown>,
      };
    }),
    kill_switches: [...KILL_SWITCHES],
    platform_controlled: [...PLATFORM_CONTROLLED],
  };
}

/** One 422 item per kill switch sent as null (interface.md rule 4). */
export function killSwitchNulls(body: unknown): ValidationItem[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  return KILL_SWITCHES.filter((name) => (body as Record<string, unknown>)[name] === null).map((name) => ({
    loc: ['body', name],
    msg: `Value error, ${name} is not inheritable and cannot be cleared: send ${POLICY_REGISTRY[name].type === 'boolean' ? 'true or false' : 'an object ({} for none)'}, or DELETE the tenant policy to reset every field`,
    type: 'value_error',
    input: null,
  }));
}
