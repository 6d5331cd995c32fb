import { describe, expect, it } from 'vitest';
import { builtInDefaults } from './policy.registry.js';
import { applyTenantPatch, diffValues, knownValues, platformDefaults, resolvePolicy, sameValue } from './policy.resolve.js';

describe('resolvePolicy', () => {
  it('takes the tenant value where set and the platform default elsewhere, saying which', () => {
    const platform = platformDefaults({ pdf_max_pages: 50 });
    const resolved = resolvePolicy(platform, { rate_limit_per_minute: 5, forge_enabled: false });
    expect(resolved.fields.rate_limit_per_minute).toEqual({ value: 5, source: 'tenant' });
    expect(resolved.fields.forge_enabled).toEqual({ value: false, source: 'tenant' });
    expect(resolved.fields.pdf_max_pages).toEqual({ value: 50, source: 'platform' });
    expect(resolved.fields.default_template_id).toEqual({ value: null, source: 'platform' });
    expect(resolved.effective).toEqual({ ...builtInDefaults(), pdf_max_pages: 50, rate_limit_per_minute: 5, forge_enabled: false });
  });

  it('reads a kill switch the tenant never set from the platform', () => {
    expect(resolvePolicy(platformDefaults({ tenant_infra_overrides_enabled: true }), {}).fields.tenant_infra_overrides_enabled).toEqual({ value: true, source: 'platform' });
  });
});

describe('applyTenantPatch', () => {
  const current = { rate_limit_per_minute: 5, layout_policy: { a: 1 }, forge_enabled: false };

  it('sets present keys, clears inheritable ones on null, leaves absent keys alone', () => {
    expect(applyTenantPatch(current, { pdf_max_pages: 9, rate_limit_per_minute: null })).toEqual({ pdf_max_pages: 9, layout_policy: { a: 1 }, forge_enabled: false });
  });

  it('never clears a kill switch, and ignores unknown keys', () => {
    expect(applyTenantPatch(current, { forge_enabled: null, nonsense: 1 })).toEqual(current);
  });

  it('stores nested objects exactly as given (no merge)', () => {
    expect(applyTenantPatch(current, { layout_policy: { b: { c: [1, null] } } }).layout_policy).toEqual({ b: { c: [1, null] } });
  });
});

describe('diffValues', () => {
  it('lists only the fields that changed, with null for "not set"', () => {
    expect(diffValues({ pdf_max_pages: 9, layout_policy: { a: 1, b: 2 } }, { layout_policy: { b: 2, a: 1 }, forge_enabled: true })).toEqual({
      pdf_max_pages: { old: 9, new: null },
      forge_enabled: { old: null, new: true },
    });
  });
});

describe('helpers', () => {
  it('compares JSON structurally', () => {
    expect(sameValue({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameValue({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(sameValue(1, '1')).toBe(false);
    expect(sameValue(null, {})).toBe(false);
  });

  it('drops unknown and null stored keys', () => {
    expect(knownValues({ pdf_max_pages: 3, retired_field: true, judge_mode_enabled: null })).toEqual({ pdf_max_pages: 3 });
    expect(knownValues(null)).toEqual({});
  });
});
