// The one registry of tenant-policy fields. Everything about a field lives here: its type and
// constraint (exactly those of interface.md, PATCH /v1/admin/tenant-policy/{tenant_id}), whether it
// inherits the platform default or is a kill switch (decisions.md), its built-in platform default
// and its description. The PATCH schemas, the read responses, GET .../registry-spec and
// docs/policy.md are all generated from it, so a new field is added here and nowhere else.

export type PolicyFieldType = 'boolean' | 'string' | 'integer' | 'number' | 'object';
export type FreeForm = Record<string, unknown>;

export interface PolicyField<T = unknown> {
  readonly type: PolicyFieldType;
  /** Allowed values of a string field. */
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  /**
   * true: a tenant's null clears its own value and the field inherits the platform default.
   * false (kill switches and feature_flags): an explicit null is rejected with 422.
   */
  readonly inheritable: boolean;
  /** The built-in platform default, used until a platform admin sets one. */
  readonly default: T;
  /**
   * Set per tenant by platform admins only: the kill switches and what bounds the platform's
   * resources (rate limit, page cap, forge spending). A tenant admin reads it but cannot change
   * or reset it, or they would be no limits at all.
   */
  readonly platformControlled?: boolean;
  readonly description: string;
}

const bool = (value: boolean, description: string): PolicyField<boolean> => ({ type: 'boolean', inheritable: true, default: value, description });
const killSwitch = (value: boolean, description: string): PolicyField<boolean> => ({ type: 'boolean', inheritable: false, default: value, description, platformControlled: true });
/** A field that bounds the platform's resources: platform admins set it per tenant. */
const limit = <T>(field: PolicyField<T>): PolicyField<T> => ({ ...field, platformControlled: true });
const int = (value: number, limits: { minimum?: number }, description: string): PolicyField<number> => ({ type: 'integer', ...limits, inheritable: true, default: value, description });
const num = (value: number, limits: { maximum?: number; exclusiveMinimum?: number }, description: string): PolicyField<number> => ({ type: 'number', ...limits, inheritable: true, default: value, description });
const oneOf = <const V extends readonly string[]>(values: V, value: V[number], description: string): PolicyField<V[number]> => ({ type: 'string', enum: values, inheritable: true, default: value, description });
const object = (description: string): PolicyField<FreeForm> => ({ type: 'object', inheritable: true, default: {}, description });

export const POLICY_REGISTRY = {
  auto_classify_enabled: bool(true, 'A job submitted without a template is classified against the active templates; off: it uses default_template_id.'),
  default_template_id: {
    type: 'string',
    inheritable: true,
    default: null,
    description: 'Template used for extraction when a job names none and auto-classification is off or finds no match. The platform default is none (null) and cannot be set (422: templates belong to tenants); a tenant sets one of its own live template ids (404 for any other).',
  } as PolicyField<string | null>,
  review_agreement_floor: num(0.8, { maximum: 1 }, 'With judge mode on, a field whose agreement between the two extractions is below this opens a review (`low_agreement:<field>`).'),
  review_confidence_floor: num(0.7, { maximum: 1 }, 'A field whose confidence is below this opens a review (`low_confidence:<field>`).'),
  review_warn_count_threshold: int(3, { minimum: 1 }, 'This many warn-severity validation failures on one job open a review (`warn_count`).'),
  rate_limit_per_minute: limit(int(1200, { minimum: 1 }, 'Requests the tenant may make in one 60-second window, across all its users and keys; over it the API answers 429.')),
  pdf_max_pages: limit(int(200, { minimum: 1 }, 'Page cap of one document: a job over it fails with `page_cap_exceeded` when all pages are selected; a narrower page_range fits it.')),
  pptx_notes_mode: oneOf(['margin', 'pages', 'off'] as const, 'margin', 'Where presentation speaker notes go in the canonical output: beside the slide, as extra pages, or dropped. With `pages`, a notes page is a page of the document after its slide: `page_count`, page numbers, `page_range` and the page cap count it like a slide.'),
  characterisation_enabled: bool(true, 'Characterise each document (kind, language, layout) before extraction.'),
  generic_entities_enabled: bool(true, 'Extract generic entities (people, organisations, dates, amounts, identifiers) alongside template fields.'),
  judge_mode_enabled: bool(false, 'A second, independent extraction votes on every field: the judge model endpoint when one is in effect (docs/models.md), otherwise the embedded extractor on each page\'s second reading (the other OCR engine for a scan, an OCR of the rendered page for a text-layer page). Off by default: without a judge model it OCRs every page, several seconds each.'),
  table_aware_extraction_enabled: bool(true, 'Keep table structure when extracting repeated fields (line items).'),
  draft_on_miss_enabled: bool(true, 'A document that matches no template proposes a template draft (or raises auto_seen_count of a similar one).'),
  extraction_postprocessing_enabled: bool(true, 'Run the template post-processing steps (normalisation of dates, amounts, identifiers) after extraction.'),
  extraction_evidence_planning_enabled: bool(true, 'Plan where on the pages each field\'s evidence is expected before extraction, so that every value carries its page and bounding box.'),
  extraction_chunk_merge_strategy: oneOf(['field_aware', 'legacy'] as const, 'field_aware', 'How results of a long document processed in chunks are merged: field_aware keeps the best-supported value per field; legacy lets later chunks win.'),
  tax_id_country_prefix_mode: oneOf(['infer', 'preserve', 'off'] as const, 'infer', 'Tax ids (VAT numbers): infer adds the country prefix from the document\'s country, preserve keeps what is printed, off leaves them untouched.'),
  feature_flags: { type: 'object', inheritable: false, platformControlled: true, default: {}, description: 'Free-form switches for features being rolled out. Not inheritable: a tenant value replaces the platform flags as a whole and cannot be cleared with null (set {} instead).' } as PolicyField<FreeForm>,
  forge_enabled: killSwitch(true, 'Kill switch for the template forge: false refuses new forge jobs for the tenant. Not inheritable: null is rejected.'),
  tenant_infra_overrides_enabled: killSwitch(false, 'Kill switch letting the tenant replace platform infrastructure endpoints (vlm, judge, ocr, smtp) with its own. Off by default. Not inheritable: null is rejected.'),
  forge_monthly_token_quota: limit(int(2_000_000, {}, 'Model tokens the forge may spend for the tenant per calendar month (UTC); 0 or less allows none.')),
  forge_monthly_dollar_quota: limit(num(50, {}, 'US dollars the forge may spend for the tenant per calendar month (UTC); 0 or less allows none.')),
  forge_per_job_max_iterations: limit(int(5, { minimum: 1 }, 'Most iterations one forge job may run; a job asking for more is capped here.')),
  forge_per_job_max_dollars: limit(num(2, { exclusiveMinimum: 0 }, 'Most US dollars one forge job may spend.')),
  forge_per_job_max_wall_seconds: limit(int(900, { minimum: 60 }, 'Longest one forge job may run, in seconds.')),
  ocr_selection_mode: oneOf(['tesseract_priority', 'paddle_priority', 'confidence_based'] as const, 'confidence_based', 'Which OCR engine\'s text wins per region: always tesseract, always paddle, or the more confident one.'),
  ocr_priority_margin: num(0.1, { maximum: 1 }, 'With a `*_priority` mode, the other engine wins only when its confidence is higher by more than this margin.'),
  layout_policy: object('Free-form layout analysis settings. read_text_in_images (boolean): OCR the images of text-layer pages (a letterhead or footer pasted in as a picture) and add their words; unset, on for entities and extraction jobs and off for canonical ones (docs/ocr.md). Stored as given; {} means engine defaults.'),
  paddle_risk_policy: object('Free-form settings for when paddle OCR output is considered risky and checked against tesseract. Stored as given; {} means engine defaults.'),
  prompt_budget_policy: object('Limits on what one call to the extraction model carries: pages_per_chunk, tokens_per_page, tokens_per_call, image_tokens_per_page, send_page_images (docs/models.md). Stored as given; {} means engine defaults.'),
  language_policy: object('Free-form OCR and extraction language settings (expected languages, fallbacks). Stored as given; {} means automatic detection.'),
  preprocessing_policy: object('Free-form image preprocessing settings (deskew, denoise, DPI). Stored as given; {} means engine defaults.'),
} as const satisfies Record<string, PolicyField<unknown>>;

export type PolicyName = keyof typeof POLICY_REGISTRY;
type ValueOf<F> = F extends PolicyField<infer T> ? T : never;
/** Every field with its effective value: what consumers read. */
export type EffectivePolicy = { [K in PolicyName]: ValueOf<(typeof POLICY_REGISTRY)[K]> };
export type PolicyValues = Partial<Record<PolicyName, unknown>>;

export const POLICY_NAMES = Object.keys(POLICY_REGISTRY) as PolicyName[];
export const KILL_SWITCHES = POLICY_NAMES.filter((name) => !POLICY_REGISTRY[name].inheritable);
/** Fields only a platform admin sets for a tenant (PolicyField.platformControlled). */
export const PLATFORM_CONTROLLED: readonly PolicyName[] = POLICY_NAMES.filter((name) => (POLICY_REGISTRY[name] as PolicyField).platformControlled === true);

export function isPolicyName(name: string): name is PolicyName {
  return Object.prototype.hasOwnProperty.call(POLICY_REGISTRY, name);
}

export function policyField(name: PolicyName): PolicyField {
  return POLICY_REGISTRY[name];
}

/** The built-in platform defaults, one per field. */
export function builtInDefaults(): EffectivePolicy {
  return Object.fromEntries(POLICY_NAMES.map((name) => [name, structuredClone(POLICY_REGISTRY[name].default)])) as EffectivePolicy;
}

/** The constraint of a field in words, as interface.md states it ("at most 1", "greater than 0"). */
export function describeConstraint(field: PolicyField): string {
  const parts: string[] = [];
  if (field.enum) parts.push(`one of ${field.enum.join(', ')}`);
  if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`);
  if (field.exclusiveMinimum !== undefined) parts.push(`greater than ${field.exclusiveMinimum}`);
  if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`);
  if (field.type === 'object') parts.push('free-form object');
  return parts.join(', ');
}
