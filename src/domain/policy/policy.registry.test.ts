import { describe, expect, it } from 'vitest';
import { KILL_SWITCHES, POLICY_NAMES, POLICY_REGISTRY, builtInDefaults, describeConstraint } from './policy.registry.js';

// The PATCH table of interface.md, with decisions.md's names for the engines.
const INTERFACE_TABLE: Record<string, string> = {
  auto_classify_enabled: 'boolean',
  default_template_id: 'string',
  review_agreement_floor: 'number, at most 1',
  review_confidence_floor: 'number, at most 1',
  review_warn_count_threshold: 'integer, at least 1',
  rate_limit_per_minute: 'integer, at least 1',
  pdf_max_pages: 'integer, at least 1',
  pptx_notes_mode: 'string, one of margin, pages, off',
  characterisation_enabled: 'boolean',
  generic_entities_enabled: 'boolean',
  judge_mode_enabled: 'boolean',
  table_aware_extraction_enabled: 'boolean',
  draft_on_miss_enabled: 'boolean',
  extraction_postprocessing_enabled: 'boolean',
  extraction_evidence_planning_enabled: 'boolean',
  extraction_chunk_merge_strategy: 'string, one of field_aware, legacy',
  tax_id_country_prefix_mode: 'string, one of infer, preserve, off',
  feature_flags: 'object, free-form object',
  forge_enabled: 'boolean',
  tenant_infra_overrides_enabled: 'boolean',
  forge_monthly_token_quota: 'integer',
  forge_monthly_dollar_quota: 'number',
  forge_per_job_max_iterations: 'integer, at least 1',
  forge_per_job_max_dollars: 'number, greater than 0',
  forge_per_job_max_wall_seconds: 'integer, at least 60',
  ocr_selection_mode: 'string, one of tesseract_priority, paddle_priority, confidence_based',
  ocr_priority_margin: 'number, at most 1',
  layout_policy: 'object, free-form object',
  paddle_risk_policy: 'object, free-form object',
  prompt_budget_policy: 'object, free-form object',
  language_policy: 'object, free-form object',
  preprocessing_policy: 'object, free-form object',
};

describe('policy registry', () => {
  it('has exactly the fields of interface.md, in its order, with exactly its constraints', () => {
    expect(POLICY_NAMES).toEqual(Object.keys(INTERFACE_TABLE));
    for (const name of POLICY_NAMES) {
      const f = POLICY_REGISTRY[name];
      expect([f.type, describeConstraint(f)].filter(Boolean).join(', '), name).toBe(INTERFACE_TABLE[name]);
    }
  });

  it('names the three kill switches of decisions.md as the only non-inheritable fields', () => {
    expect(KILL_SWITCHES).toEqual(['feature_flags', 'forge_enabled', 'tenant_infra_overrides_enabled']);
  });

  it('gives every field a default that meets its own constraint, and a description', () => {
    for (const [name, value] of Object.entries(builtInDefaults())) {
      const f = POLICY_REGISTRY[name as keyof typeof POLICY_REGISTRY];
      expect(f.description.length, name).toBeGreaterThan(20);
      if (value === null) {
        expect(name).toBe('default_template_id');
        continue;
      }
      if (f.type === 'object') expect(typeof value).toBe('object');
      else if (f.type === 'integer') expect(Number.isInteger(value)).toBe(true);
      else if (f.type === 'number') expect(typeof value).toBe('number');
      else expect(typeof value).toBe(f.type);
      if (f.enum) expect(f.enum).toContain(value);
      if (f.minimum !== undefined) expect(value).toBeGreaterThanOrEqual(f.minimum);
      if (f.maximum !== undefined) expect(value).toBeLessThanOrEqual(f.maximum);
      if (f.exclusiveMinimum !== undefined) expect(value).toBeGreaterThan(f.exclusiveMinimum);
    }
  });

  it('hands out copies of the defaults, so a caller cannot change them for everyone', () => {
    const a = builtInDefaults();
    (a.layout_policy as Record<string, unknown>).changed = true;
    expect(builtInDefaults().layout_policy).toEqual({});
  });
});
