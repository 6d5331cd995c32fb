// What a model extraction's answers become, once every call is answered: the chunk readings merged
// (a value several calls gave comes from the one the page's words show best), every value
// grounded in the canonical words, the embedded extractor's vote, a judge's comparison,
// post-processing, validation rules and the review decision. Also the prompts built before the
// first call. All of it walks the whole document and none of it waits on the network: the worker
// runs it in the pipeline thread pool (queue/pipeline-thread.ts), the model calls stay on the
// event loop (extract.ts).
import { GUESSED_ORDER_CONFIDENCE, orderGuessed } from '../../pipeline/entities/dates.js';
import { type Entity, documentHints } from '../../pipeline/entities/recognize.js';
import { type DocInput, type Evidence, textLines } from '../../pipeline/entities/text.js';
import { type ExtractionOutput, type ExtractionPolicy, type ExtractionTemplate, type FieldResult, agreementOf, datePathsOf, runExtraction, schemaFields, validateAndDecide } from '../../pipeline/extract/index.js';
import type { FieldSpec } from '../../pipeline/extract/schema-fields.js';
import { genericPath } from '../../pipeline/extract/paths.js';
import type { ModelUsage } from '../../pipeline/model-usage.js';
import { type PostProcessing, postProcess } from '../../pipeline/extract/postprocess.js';
import { type AnswerDates, type ReadAnswer, buildData } from './answer.js';
import { budgetOf, chunkByBudget } from './budget.js';
import { Grounder } from './grounding.js';
import { type PromptPage, answerSchema, promptPages, systemPrompt } from './prompt.js';

/** Confidence of a value found in the words exactly (scaled down for a fuzzy match). */
export const GROUNDED_CONFIDENCE = 0.9;
/** Confidence of a value the words do not show (the job goes to review with ungrounded:<field>). */
export const UNGROUNDED_CONFIDENCE = 0.4;
/** A yes/no the embedded extractor read the other way on the page: below the review floor. */
export const CONTRADICTED_BOOLEAN = 0.6;
/** What the embedded extractor's agreement adds. */
export const AGREEMENT_BOOST = 0.08;

/** decisions.md "Model-path results": result.engine.extraction. */
export interface ModelEngineReport extends ModelUsage {
  method: 'vlm';
  /** Model calls asked again because the answer did not fit the schema. */
  corrections: number;
  grounded: number;
  ungrounded: number;
  /** Values the embedded extractor found the same. */
  embedded_agreed: number;
  judge?: ModelUsage;
}

export interface ModelJudgeSummary {
  method: 'judge_model' | 'second_reading';
  agreement: Record<string, number>;
  disagreements: Record<string, { value: unknown; judge_value: unknown; agreement: number }>;
  /** The judge model could not be read (after its retries): no value was confirmed, so a person checks them. */
  unavailable?: string;
}

export type ModelExtractionOutput = ExtractionOutput & { engine: ModelEngineReport; judge: ModelJudgeSummary | null };

export interface Reading {
  read: ReadAnswer;
  /** The page the model named for each value (evidence planning). */
  pages: Map<string, number>;
}

export interface Prepared {
  fields: FieldSpec[];
  system: string;
  /** What the model answers to (the template's schema, wrapped when planning). */
  schema: Record<string, unknown>;
  templateSchema: Record<string, unknown>;
  planning: boolean;
  chunks: PromptPage[][];
  pageCount: number;
  /** The document's date order, proven or guessed, as the embedded extractor reads it. */
  dates: AnswerDates;
}

/**
 * Everything before the first call: fields, prompts, chunks (also what bench/models.ts measures).
 * `imagePages`: the pages that have an image to send (absent: every page).
 */
export function prepare(canonical: DocInput, template: ExtractionTemplate, policy: ExtractionPolicy, lines = textLines(canonical), imagePages?: Iterable<number>): Prepared {
  const fields = schemaFields(template.json_schema);
  const budget = budgetOf(policy.prompt_budget_policy);
  const planning = policy.extraction_evidence_planning_enabled ?? true;
  const pages = promptPages(canonical.pages, lines, budget, imagePages ? new Set(imagePages) : undefined);
  return {
    fields,
    system: systemPrompt(fields, template.json_schema, template.prompt_overlay, planning),
    schema: answerSchema(template.json_schema, planning),
    templateSchema: template.json_schema,
    planning,
    chunks: chunkByBudget(pages, (p) => p.tokens, budget),
    pageCount: canonical.pages.length,
    dates: documentHints(lines),
  };
}

/**
 * Chunk answers as one: lists are concatenated in page order; a single value comes from the chunk
 * whose value the words show best (field_aware), or from the last chunk that has one (legacy).
 */
export function mergeReadings(fields: FieldSpec[], readings: Reading[], strategy: 'field_aware' | 'legacy', grounder: Grounder): Reading {
  const values = new Map<string, unknown>();
  const itemCounts = new Map<string, number>();
  const pages = new Map<string, number>();
  const rejected = new Set<string>();
  for (const field of fields) {
    if (field.kind === 'scalar') {
      if (readings.some((r) => r.read.rejected.has(field.path))) rejected.add(field.path);
      const found = readings.filter((r) => r.read.values.has(field.path));
      let chosen = found[found.length - 1];
      if (strategy === 'field_aware' && found.length > 1) {
        let best = -1;
        for (const r of found) {
          const score = grounder.ground(r.read.values.get(field.path), field.type, r.pages.get(field.path) ?? null)?.score ?? 0;
          if (score > best) [best, chosen] = [score, r];
        }
      }
      if (chosen) {
        values.set(field.path, chosen.read.values.get(field.path));
        if (chosen.pages.has(field.path)) pages.set(field.path, chosen.pages.get(field.path)!);
      }
      continue;
    }
    let offset = 0;
    for (const r of readings) {
      const prefix = `${field.path}[`;
      let count = field.kind === 'array_of_objects' ? (r.read.itemCounts.get(field.path) ?? 0) : 0;
      if (r.read.rejected.has(field.path)) rejected.add(field.path);
      for (const path of r.read.rejected) {
        const m = path.startsWith(prefix) ? /^\[(\d+)\](.*)$/.exec(path.slice(field.path.length)) : null;
        if (m) rejected.add(`${field.path}[${Number(m[1]) + offset}]${m[2]}`);
      }
      for (const [path, value] of r.read.values) {
        if (!path.startsWith(prefix)) continue;
        const m = /^\[(\d+)\](.*)$/.exec(path.slice(field.path.length));
        if (!m) continue;
        const index = Number(m[1]) + offset;
        const renamed = `${field.path}[${index}]${m[2]}`;
        if (field.kind === 'array_of_scalars') {
          if ([...values.entries()].some(([p, v]) => p.startsWith(prefix) && v === value)) continue;
          count = Math.max(count, Number(m[1]) + 1);
        }
        values.set(renamed, value);
        const page = r.pages.get(path);
        if (page !== undefined) pages.set(renamed, page);
      }
      offset += count;
    }
    if (field.kind === 'array_of_objects') itemCounts.set(field.path, offset);
  }
  // Array-of-scalars indexes may have gaps after de-duplication: renumber them.
  for (const field of fields.filter((f) => f.kind === 'array_of_scalars')) {
    const own = [...values.entries()].filter(([p]) => p.startsWith(`${field.path}[`));
    own.forEach(([p]) => values.delete(p));
    own.forEach(([, v], i) => values.set(`${field.path}[${i}]`, v));
  }
  // A value one chunk's answer got wrong and another's gave stands.
  for (const path of rejected) if (values.has(path)) rejected.delete(path);
  return { read: { values, itemCounts, problems: [], rejected }, pages };
}

/** What the model calls answered: each call's reading in page order, and what they cost. */
export interface ModelAnswers {
  readings: Reading[];
  /** The judge model's readings; null without a judge, or when it could not be read. */
  judgeReadings: Reading[] | null;
  /** Why the judge model could not be read (after its retries); null when it was, or there is none. */
  judgeFailure: string | null;
  usage: ModelUsage;
  judgeUsage: ModelUsage | null;
  /** Calls asked again because the answer did not fit the schema (both models). */
  corrections: number;
}

/** The parts of a prepared extraction the answers are settled with (the prompts are not needed again). */
export type PreparedFields = Pick<Prepared, 'fields' | 'dates'>;

/**
 * The answers settled against the document: merged, grounded, voted on by the embedded extractor
 * (and by `secondReading` in judge mode without a judge model), post-processed, validated, decided.
 */
export function finishModelExtraction(
  canonical: DocInput,
  template: ExtractionTemplate,
  policy: ExtractionPolicy,
  prep: PreparedFields,
  answers: ModelAnswers,
  secondReading: DocInput | null = null,
  now?: Date,
  lines = textLines(canonical),
): ModelExtractionOutput {
  const grounder = new Grounder(lines, prep.dates);
  const strategy = policy.extraction_chunk_merge_strategy ?? 'field_aware';
  const merged = (readings: Reading[]) => (readings.length === 1 ? readings[0]! : mergeReadings(prep.fields, readings, strategy, grounder));
  const reading = merged(answers.readings);
  const judgeReading = answers.judgeReadings ? merged(answers.judgeReadings) : null;
  const judgeFailure = answers.judgeFailure;

  // The embedded extractor votes (it costs no call): its entities are the job's entities too.
  const embedded = runExtraction(canonical, template, policy, { now });
  const fieldResults: Record<string, FieldResult> = {};
  const confidences: Record<string, number> = {};
  const ungrounded: string[] = [];
  let groundedCount = 0;
  let agreed = 0;
  const embeddedAgreement = agreementOf(Object.fromEntries([...reading.read.values].map(([p, value]) => [p, { value }])), embedded.extraction.fields);
  const rows = itemRows(prep.fields, reading, grounder);
  for (const [path, value] of reading.read.values) {
    const spec = specOf(prep.fields, path);
    const agrees = embeddedAgreement[path] === 1;
    // A value printed in several places (a total equal to the subtotal) is boxed where its item's row is, or where the embedded extractor read the same value by its label.
    const near = rows.get(ITEM_CELL.exec(path)?.[1] ?? '') ?? (agrees ? embedded.extraction.fields[path]?.evidence[0] : null) ?? null;
    const grounded = grounder.ground(value, spec?.type ?? 'string', reading.pages.get(path) ?? null, near);
    if (agrees) agreed++;
    let evidence: Evidence[] = [];
    let confidence: number;
    if (grounded) {
      evidence = [grounded.evidence];
      confidence = GROUNDED_CONFIDENCE * grounded.score;
    } else if (agrees && embedded.extraction.fields[path]?.evidence.length) {
      // The words did not match the model's form of the value, but the embedded extractor read the same value there.
      evidence = embedded.extraction.fields[path]!.evidence;
      confidence = GROUNDED_CONFIDENCE * 0.9;
    } else if (typeof value === 'boolean') {
      // A tick box has no words to find: the embedded extractor's reading is its only check, and
      // the opposite reading ("Paid: No" against the model's true) is a contradiction a person settles.
      const embeddedValue = embedded.extraction.fields[path]?.value;
      confidence = agrees ? GROUNDED_CONFIDENCE : typeof embeddedValue === 'boolean' ? CONTRADICTED_BOOLEAN : 0.75;
    } else {
      confidence = UNGROUNDED_CONFIDENCE;
      if (!ungrounded.includes(genericPath(path))) ungrounded.push(genericPath(path));
    }
    if (evidence.length) groundedCount++;
    if (agrees) confidence += AGREEMENT_BOOST;
    // A date printed in a day/month order nothing proves is a guess in either reading: a person confirms it.
    if (spec?.type === 'date' && evidence[0] && orderGuessed(evidence[0].text, value, prep.dates.dateOrder, prep.dates.dateOrderGuess)) confidence = Math.min(confidence, GUESSED_ORDER_CONFIDENCE);
    confidence = Math.round(Math.min(0.99, confidence) * 1000) / 1000;
    fieldResults[path] = { value, confidence, evidence };
    // An ungrounded value has its own reason; low_confidence would only repeat it.
    if (evidence.length || typeof value === 'boolean') confidences[path] = confidence;
  }
  for (const field of prep.fields) {
    if (field.kind === 'scalar' && !reading.read.values.has(field.path)) {
      fieldResults[field.path] = { value: null, confidence: 0, evidence: [] };
      if (field.required) confidences[field.path] = 0;
    } else if (field.kind !== 'scalar' && field.required && ![...reading.read.values.keys()].some((p) => p.startsWith(`${field.path}[`))) {
      confidences[field.path] = 0;
    }
  }
  // A value the model gave that did not fit the template (after its second chance) was dropped: a person supplies it.
  for (const path of reading.read.rejected) {
    fieldResults[path] = { value: null, confidence: 0, evidence: [] };
    confidences[path] = 0;
  }

  // The judge votes on the values as read: post-processing (a date_format, a default) changes only
  // this reading's values, and would set apart two readings of the same words.
  const read: Record<string, { value: unknown }> = Object.fromEntries(Object.entries(fieldResults).map(([p, f]) => [p, { value: f.value }]));
  const data = finishData(prep.fields, buildData(prep.fields, reading.read), template, policy, fieldResults, confidences);
  let judge: ModelJudgeSummary | null = null;
  let agreement: Record<string, number> | null = null;
  const unprocessed = { ...policy, extraction_postprocessing_enabled: false };
  const judgeValues = judgeReading
    ? judgeReading.read.values
    : secondReading
      ? new Map(Object.entries(runExtraction(secondReading, template, unprocessed, { now }).extraction.fields).map(([p, f]) => [p, f.value]))
      : null;
  if (judgeFailure !== null) {
    // Nothing confirmed any value: every field read counts as unagreed (low_agreement:<field>).
    agreement = Object.fromEntries(Object.keys(read).filter((p) => read[p]!.value !== null).map((p) => [p, 0]));
    judge = { method: 'judge_model', agreement, disagreements: {}, unavailable: `${judgeFailure}. The values were not confirmed by a second model.` };
  } else if (judgeValues) {
    agreement = agreementOf(read, Object.fromEntries([...judgeValues].map(([p, value]) => [p, { value }])));
    const disagreements: ModelJudgeSummary['disagreements'] = {};
    for (const [path, score] of Object.entries(agreement)) {
      if (score < 1) disagreements[path] = { value: read[path]?.value ?? null, judge_value: judgeValues.get(path) ?? null, agreement: score };
    }
    judge = { method: judgeReading ? 'judge_model' : 'second_reading', agreement, disagreements };
  }

  const { outcome, decision: decided } = validateAndDecide(template, policy, data, fieldResults, confidences, agreement, now);
  const reasons = [...decided.review_reasons, ...ungrounded.map((p) => `ungrounded:${p}`)];
  const decision = { ...decided, review_reasons: reasons, status: decided.status === 'rejected' ? ('rejected' as const) : reasons.length ? ('needs_review' as const) : ('completed' as const) };

  return {
    entities: embedded.entities as Entity[],
    extraction: { template_id: template.id, template_version: template.version, data, fields: fieldResults, validation: outcome.entries, review_reasons: reasons },
    decision,
    engine: {
      method: 'vlm',
      ...answers.usage,
      corrections: answers.corrections,
      grounded: groundedCount,
      ungrounded: reading.read.values.size - groundedCount - [...reading.read.values.values()].filter((v) => typeof v === 'boolean').length,
      embedded_agreed: agreed,
      ...(answers.judgeUsage ? { judge: answers.judgeUsage } : {}),
    },
    judge,
  };
}

/** A line item's cell path ("lines[2].qty"), with its item ("lines[2]"). */
const ITEM_CELL = /^(.+\[\d+\])\.[^.[\]]+$/;

/**
 * Where each line item is printed: the place of its most distinctive cell (the one printed in the
 * fewest places, a description rather than a quantity), so its other cells are grounded on its row.
 */
function itemRows(fields: FieldSpec[], reading: Reading, grounder: Grounder): Map<string, Evidence> {
  const best = new Map<string, { places: number; length: number; path: string; value: unknown }>();
  for (const [path, value] of reading.read.values) {
    const item = ITEM_CELL.exec(path)?.[1];
    if (!item) continue;
    const places = grounder.matches(value, specOf(fields, path)?.type ?? 'string').length;
    const length = String(value).length;
    const current = best.get(item);
    if (places && (!current || places < current.places || (places === current.places && length > current.length))) best.set(item, { places, length, path, value });
  }
  const rows = new Map<string, Evidence>();
  for (const [item, cell] of best) {
    const at = grounder.ground(cell.value, specOf(fields, cell.path)?.type ?? 'string', reading.pages.get(cell.path) ?? null);
    if (at) rows.set(item, at.evidence);
  }
  return rows;
}

function specOf(fields: FieldSpec[], path: string): Pick<FieldSpec, 'type'> | undefined {
  const m = /^([^[]+)(?:\[\d+\](?:\.(.+))?)?$/.exec(path);
  const field = fields.find((f) => f.path === m?.[1]);
  if (!field || !m?.[2]) return field;
  return field.columns?.find((c) => c.key === m[2]);
}

/** Post-processing as the embedded path does it (defaults, casing, date formats), keeping field results in step. */
function finishData(fields: FieldSpec[], data: Record<string, unknown>, template: ExtractionTemplate, policy: ExtractionPolicy, fieldResults: Record<string, FieldResult>, confidences: Record<string, number>): Record<string, unknown> {
  if (!(policy.extraction_postprocessing_enabled ?? true)) return data;
  const datePaths = datePathsOf(fields);
  return postProcess(data, template.post_processing as PostProcessing | null, (p) => datePaths.has(p), (path, value, defaulted) => {
    const existing = fieldResults[path];
    if (existing) fieldResults[path] = { ...existing, value, ...(defaulted && existing.value === null ? { confidence: 1 } : {}) };
    else fieldResults[path] = { value, confidence: 1, evidence: [] };
    if (defaulted && confidences[path] === 0) delete confidences[path];
  });
}
