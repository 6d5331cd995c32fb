// Pure policy logic: how the stored values become the effective policy, how a PATCH applies,
// and what changed. No I/O here, so every rule is unit-tested directly (policy.resolve.test.ts).
import {
  type EffectivePolicy,
  POLICY_NAMES,
  type PolicyName,
  type PolicyValues,
  builtInDefaults,
  isPolicyName,
  policyField,
} from './policy.registry.js';

export type PolicySource = 'tenant' | 'platform';

export interface ResolvedPolicy {
  fields: Record<PolicyName, { value: unknown; source: PolicySource }>;
  effective: EffectivePolicy;
}

export interface Change {
  old: unknown;
  new: unknown;
}

/** Keeps only known fields holding a value (null and unknown keys are dropped). */
export function knownValues(stored: Record<string, unknown> | null | undefined): PolicyValues {
  const values: PolicyValues = {};
  for (const [name, value] of Object.entries(stored ?? {})) {
    if (isPolicyName(name) && value !== null && value !== undefined) values[name] = value;
  }
  return values;
}

/** Platform defaults: the built-in default of each field, replaced by what a platform admin set. */
export function platformDefaults(overrides: PolicyValues): EffectivePolicy {
  return { ...builtInDefaults(), ...knownValues(overrides) } as EffectivePolicy;
}

/**
 * The one resolution rule: a field the tenant has set is the tenant's; any other field is the
 * platform default. Kill switches follow it too: until a tenant sets one, it reads the platform
 * default; once set it can be changed but never cleared (only DELETE resets it).
 */
export function resolvePolicy(platform: EffectivePolicy, tenant: PolicyValues): ResolvedPolicy {
  const fields = {} as ResolvedPolicy['fields'];
  const effective = {} as Record<PolicyName, unknown>;
  for (const name of POLICY_NAMES) {
    const own = tenant[name];
    const set = own !== undefined && own !== null;
    const value = set ? own : platform[name];
    fields[name] = { value, source: set ? 'tenant' : 'platform' };
    effective[name] = value;
  }
  return { fields, effective: effective as EffectivePolicy };
}

/**
 * Applies a validated tenant PATCH: a present value is set, a null clears the field (it inherits
 * again), an absent key is unchanged. Null on a kill switch never reaches here (422 earlier).
 */
export function applyTenantPatch(current: PolicyValues, patch: Record<string, unknown>): PolicyValues {
  const next: PolicyValues = { ...current };
  for (const [name, value] of Object.entries(patch)) {
    if (!isPolicyName(name) || value === undefined) continue;
    if (value === null) {
      if (policyField(name).inheritable) delete next[name];
      continue;
    }
    next[name] = value;
  }
  return next;
}

/** The fields whose value differs between two states, with both values (null = not set). */
export function diffValues(before: PolicyValues, after: PolicyValues): Partial<Record<PolicyName, Change>> {
  const changes: Partial<Record<PolicyName, Change>> = {};
  for (const name of POLICY_NAMES) {
    const a = before[name] ?? null;
    const b = after[name] ?? null;
    if (!sameValue(a, b)) changes[name] = { old: a, new: b };
  }
  return changes;
}

/** Structural equality of JSON values (object key order does not matter). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
