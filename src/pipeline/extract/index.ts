// The embedded extractor: a template's JSON schema filled from a canonical document, every value
// with a confidence and its evidence, then post-processing, validation rules and the review
// decision. Pure: no database, HTTP or queue; the job worker and the template test endpoints call
// runExtraction with the canonical document (in memory or as stored JSON), the template and the
// tenant's effective policy.
import { GUESSED_ORDER_CONFIDENCE, orderGuessed } from '../entities/dates.js';
import { type Entity, type LocatedEntity, publicEntity, recogniseDocument } from '../entities/recognize.js';
import type { TaxIdPrefixMode } from '../entities/tax-ids.js';
import { type DocInput, type DocPage, type Evidence, type TextLine, textLines } from '../entities/text.js';
import type { CoerceContext } from './coerce.js';
import { type Decision, type ReviewThresholds, decide } from './decision.js';
import { buildLabelIndex, findLabels } from './labels.js';
import { genericPath, isEmpty, setFieldPath } from './paths.js';
import { type PostProcessing, dateFormatFor, postProcess } from './postprocess.js';
import type { Rule } from './rule-kinds.js';
import { type DateFormatOf, type ValidationEntry, ruleId, runRules } from './rules.js';
import { type Candidate, type ScalarContext, addressCandidates, brandCandidate, preferBrand, fallbackCandidates, keyValueCandidates, labelCandidates, labelCells, labelKeyValues, labelStops, otherMeaningCandidates, tableCandidates } from './scalars.js';
import { layoutItems, splitArticleCodes } from './line-items.js';
import { withoutRecipientEvidence } from './parties.js';
import { documentIdStandIn } from './document-id.js';
import { holdAmongSimilar } from './competing-ids.js';
import { crossCheckAmounts } from './arithmetic.js';
import { addressBlockCandidates } from './address-block.js';
import { weighTotalCandidates } from './receipt-total.js';
import { type FieldSpec, labelWordTest, schemaFields } from './schema-fields.js';
import { breachKind, breachWords, valueBreaches } from './schema-check.js';
import { type Item, type TableMapping, lineItems, tableItems } from './tables.js';

export { agreementOf, decide, type Decision, type DecisionStatus, type ReviewThresholds } from './decision.js';
export { RULE_KINDS, RULE_KIND_NAMES, type Rule, type RuleKind, ruleKindsCatalogue, checkRule } from './rule-kinds.js';
export { runRules, ruleId, type ValidationEntry } from './rules.js';
export { PostProcessingShape, postProcess, type PostProcessing } from './postprocess.js';
export { MAX_FIELD_DEPTH, MAX_FIELDS, fieldsBeyondLimits, schemaFields, type FieldSpec } from './schema-fields.js';
export { expressionError } from './expression.js';

export interface ExtractionTemplate {
  id: string | null;
  version: number | null;
  json_schema: Record<string, unknown>;
  validation_rules?: unknown[] | null;
  review_thresholds?: ReviewThresholds | Record<string, unknown> | null;
  post_processing?: PostProcessing | Record<string, unknown> | null;
  /** Kept for the model path; the embedded extractor does not read prompts. */
  prompt_overlay?: string | null;
}

/** The tenant policy fields extraction reads (EffectivePolicy fits); absent ones take the platform defaults. */
export interface ExtractionPolicy {
  generic_entities_enabled?: boolean;
  table_aware_extraction_enabled?: boolean;
  extraction_postprocessing_enabled?: boolean;
  extraction_evidence_planning_enabled?: boolean;
  extraction_chunk_merge_strategy?: 'field_aware' | 'legacy';
  tax_id_country_prefix_mode?: TaxIdPrefixMode;
  review_confidence_floor?: number;
  review_agreement_floor?: number;
  review_warn_count_threshold?: number;
  prompt_budget_policy?: Record<string, unknown>;
}

export interface FieldResult {
  value: unknown;
  confidence: number;
  evidence: Evidence[];
}

/** decisions.md `result.extraction`. */
export interface ExtractionResult {
  template_id: string | null;
  template_version: number | null;
  data: Record<string, unknown>;
  fields: Record<string, FieldResult>;
  validation: ValidationEntry[];
  review_reasons: string[];
}

export interface ExtractionOutput {
  /** decisions.md `result.entities` (empty when generic_entities_enabled is off). */
  entities: Entity[];
  extraction: ExtractionResult;
  decision: Decision;
}

export interface ExtractionOptions {
  /** Agreement per field from a second extraction (judge mode), see agreementOf. */
  agreement?: Record<string, number> | null;
  /** "Today" for `date` rules with not_in_future (tests). */
  now?: Date;
}

/** Pages per chunk when prompt_budget_policy does not say (`pages_per_chunk`). */
export const DEFAULT_PAGES_PER_CHUNK = 4;

interface ChunkResult {
  scalars: Map<string, Candidate>;
  arrays: Map<string, Item[]>;
  lists: Map<string, Candidate[]>;
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

// Totals are printed last: among equally good readings the later one is the document's total.
const LAST_WINS = new Set(['total', 'subtotal', 'tax_amount']);

/** Two pieces of evidence on the same page whose boxes overlap by most of the smaller one. */
function samePlace(a: Evidence | undefined, b: Evidence | undefined): boolean {
  if (!a || !b || a.page !== b.page) return false;
  const w = Math.min(a.bbox[2], b.bbox[2]) - Math.max(a.bbox[0], b.bbox[0]);
  const h = Math.min(a.bbox[3], b.bbox[3]) - Math.max(a.bbox[1], b.bbox[1]);
  if (w <= 0 || h <= 0) return false;
  const area = (x: Evidence) => Math.max(1e-6, (x.bbox[2] - x.bbox[0]) * (x.bbox[3] - x.bbox[1]));
  return (w * h) / Math.min(area(a), area(b)) > 0.5;
}

/** The best candidate, with a small boost for every other piece of evidence that agrees with it. */
function pick(candidates: Candidate[], lastWins = false, largestWins = false): Candidate | null {
  if (!candidates.length) return null;
  // Largest in size: a credit note's total (-1,200.00) is larger than its subtotal (-1,000.00).
  const amount = (c: Candidate) => (typeof c.value === 'number' ? Math.abs(c.value) : 0);
  const sorted = [...candidates].sort((a, b) => {
    // Near-equal readings of a total: the largest amount is the grand total (section subtotals and
    // tax summaries are smaller); otherwise the later one (totals are printed last).
    if (Math.abs(b.confidence - a.confidence) > 0.02) return b.confidence - a.confidence;
    if (largestWins && amount(a) !== amount(b)) return amount(b) - amount(a);
    return b.confidence - a.confidence || (lastWins ? b.order - a.order : a.order - b.order);
  });
  const best = sorted[0]!;
  // A key-value pair and a label reading of the same words are one piece of evidence, not two; a
  // stand-in entity found there is another method agreeing.
  const sameReading = (c: Candidate) => c.source !== 'entity' && best.source !== 'entity' && samePlace(c.evidence[0], best.evidence[0]);
  const agreeing = sorted.slice(1).filter((c) => sameValue(c.value, best.value) && c.evidence[0]?.text !== undefined && !sameReading(c)).length;
  const boost = Math.min(0.06, agreeing * 0.03);
  return { ...best, confidence: Math.round(Math.min(0.98, best.confidence + boost) * 1000) / 1000 };
}

/** A party's name has a word of three letters or more ("NO. : 725186-V" and "JM0032980-V" are registration numbers) and is no label ("REFERENCE NUMBER"). */
const isNameLike = (value: string) => /\p{L}{3}/u.test(value.replace(/\b(?:no|nr|reg|co)\b/giu, '')) && !/\b(?:number|no|nr|id|code)\.?\s*:?$/i.test(value.trim());

/**
 * A free-text value of more than four words read to the end of its line is as likely to carry
 * words that are not its own ("Cash At Hotel (Rs 1939) Rs 1939"): less sure than a short one.
 */
function longTextDoubt(c: Candidate): Candidate {
  if (typeof c.value !== 'string' || c.source === 'table' || c.value.trim().split(/\s+/).length <= 4) return c;
  return { ...c, confidence: Math.round(c.confidence * 0.8 * 1000) / 1000 };
}

/** "03/04/2024" with no date over 12 elsewhere: the order was a guess, and a guess goes to review. */
function heldIfOrderGuessed(field: FieldSpec, c: Candidate, coerce: CoerceContext): Candidate {
  const text = c.evidence[0]?.text;
  if (field.type !== 'date' || !text || c.confidence <= GUESSED_ORDER_CONFIDENCE) return c;
  return orderGuessed(text, c.value, coerce.dateOrder, coerce.dateOrderGuess) ? { ...c, confidence: GUESSED_ORDER_CONFIDENCE } : c;
}

/** Concepts that are the issuer's unless the field's name says otherwise. */
const ISSUER_SIDE = new Set(['address', 'tax_id', 'iban']);
const NAMES_RECIPIENT = /\b(?:customer|buyer|client|recipient|partner|bill(?:ing)?|ship(?:ping)?|delivery|sold to|kunde|acheteur|cliente|klant)\b/i;

function extractChunk(fields: FieldSpec[], pages: DocPage[], lines: TextLine[], entities: LocatedEntity[], coerce: CoerceContext, policy: Required<Pick<ExtractionPolicy, 'table_aware_extraction_enabled' | 'extraction_evidence_planning_enabled'>>, carry: Map<string, { mapping: TableMapping | null }>): ChunkResult {
  const plan = policy.extraction_evidence_planning_enabled;
  const tables = policy.table_aware_extraction_enabled;
  const linesByPage = new Map<number, TextLine[]>();
  for (const l of lines) {
    const own = linesByPage.get(l.page);
    if (own) own.push(l);
    else linesByPage.set(l.page, [l]);
  }
  const scalarFields = fields.filter((f) => f.kind !== 'array_of_objects');
  const index = labelIndexOf(fields, scalarFields);
  const ctx: ScalarContext = {
    coerce,
    pages,
    lines,
    linesByPage,
    entities,
    tables,
    plan,
    labelCells: tables ? labelCells(pages, index.mayBeLabel) : [],
    labelKeyValues: labelKeyValues(pages, index.mayBeLabel),
  };
  const matches = findLabels(index, lines, plan);
  const stops = labelStops(matches);
  const result: ChunkResult = { scalars: new Map(), arrays: new Map(), lists: new Map() };
  // The vendor's name line bounds an address read from the top of the first page.
  const vendorLine = entities.find((e) => e.type === 'organization' && e.page === pages[0]?.page_number)?.line ?? null;
  scalarFields.forEach((field, i) => {
    const own = matches.filter((m) => m.field === i);
    const fromLabels = [...keyValueCandidates(field, ctx), ...labelCandidates(field, ctx, own, stops), ...tableCandidates(field, ctx)];
    if (field.kind === 'array_of_scalars') {
      const distinct: Candidate[] = [];
      for (const c of fromLabels.sort((a, b) => a.order - b.order)) if (!distinct.some((d) => sameValue(d.value, c.value))) distinct.push(c);
      result.lists.set(field.path, distinct);
      return;
    }
    let candidates = [...fromLabels, ...fallbackCandidates(field, ctx), ...addressBlockCandidates(field, ctx, vendorLine), ...addressCandidates(field, ctx, vendorLine)];
    if (!candidates.length) candidates = [...otherMeaningCandidates(field, ctx), ...documentIdStandIn(field, ctx)];
    if (field.concept?.id === 'total') candidates = weighTotalCandidates(candidates, ctx);
    if (field.concept?.id === 'vendor' || field.concept?.id === 'customer') candidates = candidates.filter((c) => typeof c.value !== 'string' || isNameLike(c.value));
    if (field.concept?.id === 'vendor') candidates = preferBrand(candidates, brandCandidate(ctx));
    // An address, VAT id or IBAN is the issuer's unless the field names the customer: one read in the "Bill to" block is the customer's.
    if (ISSUER_SIDE.has(field.concept?.id ?? '') && !NAMES_RECIPIENT.test(field.path.replace(/[_.\-]+/g, ' '))) candidates = withoutRecipientEvidence(candidates, ctx.lines);
    const best = pick(candidates, LAST_WINS.has(field.concept?.id ?? ''), field.concept?.id === 'total');
    if (best) result.scalars.set(field.path, heldIfOrderGuessed(field, longTextDoubt(holdAmongSimilar(field, best, ctx.lines, entities)), coerce));
  });
  for (const field of fields.filter((f) => f.kind === 'array_of_objects')) {
    const state = carry.get(field.path) ?? { mapping: null };
    carry.set(field.path, state);
    // Without table structure (policy off, or pages without any table) items are read from lines.
    const fromTables = tables && pages.some((p) => p.tables.length) ? tableItems(field, pages, lines, coerce, state) : [];
    // Unruled item tables that layout did not make a table of (or cut up) are read from positions under their header row.
    const fromLayout = layoutItems(field, lines, coerce);
    const cells = (list: Item[]) => list.reduce((n, item) => n + Object.keys(item).length, 0);
    const items = cells(fromLayout) > cells(fromTables) ? fromLayout : fromTables.length ? fromTables : lineItems(field, lines, coerce);
    result.arrays.set(field.path, splitArticleCodes(items, field.columns ?? []));
  }
  return result;
}

const labelIndexes = new WeakMap<FieldSpec[], ReturnType<typeof buildLabelIndex> & { mayBeLabel: (labelText: string) => boolean }>();

/** The compiled label regexes of a template's fields (cached with the fields, which schemaFields caches per schema). */
function labelIndexOf(fields: FieldSpec[], scalarFields: FieldSpec[]) {
  let index = labelIndexes.get(fields);
  if (!index) {
    index = { ...buildLabelIndex(scalarFields), mayBeLabel: labelWordTest(scalarFields) };
    labelIndexes.set(fields, index);
  }
  return index;
}

function chunkPages(pages: DocPage[], size: number): DocPage[][] {
  const out: DocPage[][] = [];
  for (let i = 0; i < pages.length; i += size) out.push(pages.slice(i, i + size));
  return out.length ? out : [[]];
}

function pagesPerChunk(policy: ExtractionPolicy): number {
  const n = policy.prompt_budget_policy?.pages_per_chunk;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : DEFAULT_PAGES_PER_CHUNK;
}

const setPath = setFieldPath;

/** Below the default review floor: what a value contradicted by a check is held at. */
const CONTRADICTED = 0.6;

/**
 * A value that a failed `sum` or `arithmetic` rule contradicts never passes silently, whatever the
 * rule's severity: its confidence drops below the review floor (low_confidence:<field>).
 */
function holdContradicted(rules: Rule[], entries: ValidationEntry[], results: Record<string, FieldResult>, confidences: Record<string, number>): void {
  for (const rule of rules) {
    if (rule.kind !== 'sum' && rule.kind !== 'arithmetic') continue;
    const failed = entries.filter((e) => e.rule === ruleId(rule));
    if (!failed.length) continue;
    const named = new Set([...failed.map((e) => e.field), ...(rule.field ? [rule.field] : []), ...(rule.fields ?? [])]);
    for (const path of named) {
      const r = results[path];
      if (!r || r.value === null || r.confidence < CONTRADICTED) continue;
      results[path] = { ...r, confidence: CONTRADICTED };
      confidences[path] = CONTRADICTED;
    }
  }
}

/**
 * The extracted values that break their field's constraints in the template's schema (`pattern`,
 * `format`, `maximum`, `maxLength`, `enum` …): kept, but never silently: each is an error entry
 * named like the rule that checks the same (`range:total`, `pattern:lines[].code`, `format:email`),
 * so the job goes to review with `validation:<that name>`.
 */
export function schemaEntries(schema: Record<string, unknown>, data: Record<string, unknown>): ValidationEntry[] {
  return valueBreaches(schema, data).map((b) => ({
    rule: `${breachKind(b)}:${genericPath(b.path)}`,
    field: b.path,
    severity: 'error',
    message: `${b.path} is ${JSON.stringify(b.value)}; the template's schema says it ${breachWords(b)}.`,
  }));
}

/** The paths of a schema's date fields, generic (`lines[].shipped`, `dates[]`). */
export function datePathsOf(fields: FieldSpec[]): Set<string> {
  const datePaths = new Set<string>();
  for (const f of fields) {
    if (f.type === 'date') datePaths.add(f.kind === 'array_of_scalars' ? `${f.path}[]` : f.path);
    for (const c of f.columns ?? []) if (c.type === 'date') datePaths.add(`${f.path}[].${c.key}`);
  }
  return datePaths;
}

/** The format post-processing wrote each date field in, for the `date` rules to read it back (none when it did not run). */
function dateFormatReader(template: ExtractionTemplate, policy: ExtractionPolicy): DateFormatOf {
  const pp = template.post_processing as PostProcessing | null | undefined;
  if (!pp || !(policy.extraction_postprocessing_enabled ?? true)) return () => undefined;
  const datePaths = datePathsOf(schemaFields(template.json_schema));
  return (path) => (datePaths.has(genericPath(path)) ? dateFormatFor(pp, path) : undefined);
}

/**
 * The template's rules on the final data, a contradicted value held below the floor, then the
 * review decision: the last step of the embedded and the model paths alike.
 */
export function validateAndDecide(
  template: ExtractionTemplate,
  policy: ExtractionPolicy,
  data: Parameters<typeof runRules>[1],
  results: Record<string, FieldResult>,
  confidences: Record<string, number>,
  agreement: Record<string, number> | null,
  now?: Date,
  schemaBreaches: ValidationEntry[] = [],
) {
  const rules = (template.validation_rules ?? []) as Rule[];
  const outcome = runRules(rules, data, now, dateFormatReader(template, policy));
  outcome.entries.push(...schemaBreaches);
  holdContradicted(rules, outcome.entries, results, confidences);
  const thresholds = template.review_thresholds && Object.keys(template.review_thresholds).length ? (template.review_thresholds as ReviewThresholds) : null;
  const decision = decide({
    confidences,
    agreement,
    validation: outcome.entries,
    rejected: outcome.rejected,
    thresholds,
    policy: {
      review_confidence_floor: policy.review_confidence_floor ?? 0.7,
      review_agreement_floor: policy.review_agreement_floor ?? 0.8,
      review_warn_count_threshold: policy.review_warn_count_threshold ?? 3,
    },
  });
  return { outcome, decision };
}

/** Runs the embedded extractor, post-processing, validation and the review decision. */
export function runExtraction(canonical: DocInput, template: ExtractionTemplate, policy: ExtractionPolicy = {}, options: ExtractionOptions = {}): ExtractionOutput {
  const lines = textLines(canonical);
  const taxIdPrefixMode = policy.tax_id_country_prefix_mode ?? 'infer';
  const { hints, entities: located } = recogniseDocument(lines, { taxIdPrefixMode });
  const fields = schemaFields(template.json_schema);
  const coerce: CoerceContext = { dateOrder: hints.dateOrder, dateOrderGuess: hints.dateOrderGuess, currency: hints.currency, country: hints.country, taxIdPrefixMode };
  const flags = {
    table_aware_extraction_enabled: policy.table_aware_extraction_enabled ?? true,
    extraction_evidence_planning_enabled: policy.extraction_evidence_planning_enabled ?? true,
  };
  const strategy = policy.extraction_chunk_merge_strategy ?? 'field_aware';

  // Chunks of pages are extracted independently, then merged.
  const carry = new Map<string, { mapping: TableMapping | null }>();
  const chunks = chunkPages(canonical.pages, pagesPerChunk(policy)).map((pages) => {
    const numbers = new Set(pages.map((p) => p.page_number));
    return extractChunk(fields, pages, lines.filter((l) => numbers.has(l.page)), located.filter((e) => numbers.has(e.page)), coerce, flags, carry);
  });

  const data: Record<string, unknown> = {};
  const fieldResults: Record<string, FieldResult> = {};
  const confidences: Record<string, number> = {};
  for (const field of fields) {
    if (field.kind === 'scalar') {
      const found = chunks.map((c) => c.scalars.get(field.path)).filter((c): c is Candidate => !!c);
      // field_aware: the best-supported value across chunks; legacy: the last chunk with a value wins.
      const chosen = strategy === 'legacy' ? found[found.length - 1] : pick(found);
      if (chosen && !isEmpty(chosen.value)) {
        setPath(data, field.path, chosen.value);
        fieldResults[field.path] = { value: chosen.value, confidence: chosen.confidence, evidence: chosen.evidence };
        confidences[field.path] = chosen.confidence;
      } else {
        fieldResults[field.path] = { value: null, confidence: 0, evidence: [] };
        if (field.required) confidences[field.path] = 0;
      }
      continue;
    }
    if (field.kind === 'array_of_scalars') {
      const list: Candidate[] = [];
      for (const c of chunks.flatMap((ch) => ch.lists.get(field.path) ?? [])) if (!list.some((l) => sameValue(l.value, c.value))) list.push(c);
      setPath(data, field.path, list.map((c) => c.value));
      list.forEach((c, i) => {
        fieldResults[`${field.path}[${i}]`] = { value: c.value, confidence: c.confidence, evidence: c.evidence };
        confidences[`${field.path}[${i}]`] = c.confidence;
      });
      if (!list.length && field.required) confidences[field.path] = 0;
      continue;
    }
    const items = chunks.flatMap((c) => c.arrays.get(field.path) ?? []);
    setPath(
      data,
      field.path,
      items.map((item) => Object.fromEntries(Object.entries(item).map(([k, cell]) => [k, cell.value]))),
    );
    items.forEach((item, i) => {
      for (const [key, cell] of Object.entries(item)) {
        fieldResults[`${field.path}[${i}].${key}`] = cell;
        confidences[`${field.path}[${i}].${key}`] = cell.confidence;
      }
    });
    if (!items.length && field.required) confidences[field.path] = 0;
  }

  crossCheckAmounts(fields, fieldResults, confidences, (path, value) => setPath(data, path, value), located);
  // Checked as read, before post-processing, as model answers are: a date_format or value_map the
  // template asks for is its own writing.
  const breaches = schemaEntries(template.json_schema, data);

  let finalData = data;
  if (policy.extraction_postprocessing_enabled ?? true) {
    const datePaths = datePathsOf(fields);
    finalData = postProcess(data, template.post_processing as PostProcessing | null, (p) => datePaths.has(p), (path, value, defaulted) => {
      const existing = fieldResults[path];
      if (existing) fieldResults[path] = { ...existing, value, ...(defaulted && existing.value === null ? { confidence: 1 } : {}) };
      else fieldResults[path] = { value, confidence: 1, evidence: [] };
      if (defaulted && confidences[path] === 0) delete confidences[path];
    });
  }

  const { outcome, decision } = validateAndDecide(template, policy, finalData, fieldResults, confidences, options.agreement ?? null, options.now, breaches);

  return {
    entities: policy.generic_entities_enabled ?? true ? located.map(publicEntity) : [],
    extraction: {
      template_id: template.id,
      template_version: template.version,
      data: finalData,
      fields: fieldResults,
      validation: outcome.entries,
      review_reasons: decision.review_reasons,
    },
    decision,
  };
}

/** Processing mode `entities`: the recognised entities alone (empty when generic_entities_enabled is off). */
export function runEntities(canonical: DocInput, policy: ExtractionPolicy = {}): Entity[] {
  if (policy.generic_entities_enabled === false) return [];
  const lines = textLines(canonical);
  return recogniseDocument(lines, { taxIdPrefixMode: policy.tax_id_country_prefix_mode ?? 'infer' }).entities.map(publicEntity);
}

