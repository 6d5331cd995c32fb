// Extraction through a model (the vlm endpoint): the pages go to the model in calls sized by
// prompt_budget_policy; each answer is read against the template (asked once more when it does not
// fit); chunk answers are merged by extraction_chunk_merge_strategy; every value is grounded in
// the canonical words; the embedded extractor votes; and a judge model, when there is one, extracts
// again independently. Post-processing, validation rules and the review decision are the
// embedded path's own.
import { GUESSED_ORDER_CONFIDENCE, orderGuessed } from '../../pipeline/entities/dates.js';
import { type Entity, documentHints } from '../../pipeline/entities/recognize.js';
import { type DocInput, type Evidence, textLines } from '../../pipeline/entities/text.js';
import { type ExtractionOutput, type ExtractionPolicy, type ExtractionTemplate, type FieldResult, agreementOf, datePathsOf, runExtraction, schemaFields, validateAndDecide } from '../../pipeline/extract/index.js';
import type { FieldSpec } from '../../pipeline/extract/schema-fields.js';
import { genericPath } from '../../pipeline/extract/paths.js';
import type { ModelUsage } from '../../pipeline/model-usage.js';
import { type PostProcessing, postProcess } from '../../pipeline/extract/postprocess.js';
import type { ModelPrice } from '../endpoint-config.js';
import { ModelCallError } from '../backends/errors.js';
import type { ModelAnswer, ModelClient, PageImage } from '../backends/types.js';
import { type AnswerDates, type ReadAnswer, buildData, readAnswer, schemaProblems, schemaRefused } from './answer.js';
import { budgetOf, chunkByBudget } from './budget.js';
import { Grounder } from './grounding.js';
import { type PromptPage, answerSchema, promptPages, systemPrompt, userPrompt } from './prompt.js';

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

export interface ModelExtractionInput {
  canonical: DocInput;
  template: ExtractionTemplate;
  policy: ExtractionPolicy;
  /** Rendered pages by page number (PNG). */
  images: Map<number, Uint8Array>;
  client: ModelClient;
  judge?: ModelClient | null;
  /** Judge mode without a judge endpoint: the document's second reading, read by the embedded extractor, votes. */
  secondReading?: DocInput | null;
  signal?: AbortSignal;
  now?: Date;
  /**
   * Receives each model's running usage as its reading starts, so the caller can record what the
   * calls cost even when the extraction fails after some of them were billed.
   */
  spent?: ModelUsage[];
}

export type ModelExtractionOutput = ExtractionOutput & { engine: ModelEngineReport; judge: ModelJudgeSummary | null };

interface Reading {
  read: ReadAnswer;
  /** The page the model named for each value (evidence planning). */
  pages: Map<string, number>;
}

interface Prepared {
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

export function costOf(usage: { input_tokens: number; output_tokens: number }, price: ModelPrice | null): number {
  if (!price) return 0;
  return Math.round(((usage.input_tokens * price.input + usage.output_tokens * price.output) / 1e6) * 1e6) / 1e6;
}

/** Everything before the first call: fields, prompts, chunks (also what bench/models.ts measures). */
export function prepare(canonical: DocInput, template: ExtractionTemplate, policy: ExtractionPolicy, lines = textLines(canonical)): Prepared {
  const fields = schemaFields(template.json_schema);
  const budget = budgetOf(policy.prompt_budget_policy);
  const planning = policy.extraction_evidence_planning_enabled ?? true;
  const pages = promptPages(canonical.pages, lines, budget);
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

class UsageMeter {
  readonly totals: ModelUsage;
  corrections = 0;
  constructor(private readonly client: ModelClient) {
    this.totals = { backend: client.endpoint.backend, model: client.endpoint.model, calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  }
  add(usage: { input_tokens: number; output_tokens: number }, model: string) {
    this.totals.calls++;
    this.totals.input_tokens += usage.input_tokens;
    this.totals.output_tokens += usage.output_tokens;
    this.totals.model = model || this.totals.model;
    this.totals.cost_usd = costOf(this.totals, this.client.endpoint.price_per_mtok);
  }
}

/** One chunk through one model: asked, read, and asked once more with the problems if it did not fit. */
async function readChunk(client: ModelClient, prep: Prepared, chunk: PromptPage[], images: Map<number, Uint8Array>, sendImages: boolean, meter: UsageMeter, signal?: AbortSignal): Promise<Reading> {
  const pageImages: PageImage[] = sendImages ? chunk.flatMap((p) => (images.has(p.page_number) ? [{ page: p.page_number, png: images.get(p.page_number)! }] : [])) : [];
  let corrections: string[] = [];
  let reading: Reading | null = null;
  for (let round = 0; round < 2; round++) {
    let answer: ModelAnswer;
    try {
      answer = await client.extract({ images: pageImages, system: prep.system, prompt: userPrompt(chunk, prep.pageCount, corrections, sendImages), schema: prep.schema, signal });
    } catch (err) {
      // An unusable answer was billed all the same.
      if (err instanceof ModelCallError && err.answered?.usage) meter.add(err.answered.usage, client.endpoint.model);
      // An answer that is not JSON at all (small local models do that) gets the same second chance;
      // one cut off at the output limit is read again in smaller parts (readPages).
      if (!(err instanceof ModelCallError && err.status === 200 && round === 0 && !err.answered?.truncated)) throw err;
      corrections = [`${err.detail}; answer with one JSON object only`];
      meter.corrections++;
      continue;
    }
    meter.add(answer.usage, answer.model);
    const values = prep.planning && answer.json && typeof answer.json === 'object' && 'values' in answer.json ? (answer.json as { values: unknown }).values : answer.json;
    const read = readAnswer(prep.fields, values, prep.dates);
    const pages = new Map<string, number>();
    const planned = prep.planning && answer.json && typeof answer.json === 'object' ? (answer.json as { evidence_pages?: unknown }).evidence_pages : null;
    if (Array.isArray(planned)) for (const e of planned) if (e && typeof e.field === 'string' && Number.isInteger(e.page)) pages.set(e.field, e.page);
    reading = { read, pages };
    const problems = [...read.problems, ...schemaProblems(prep.templateSchema, buildData(prep.fields, read), chunk.length < prep.pageCount)];
    if (!problems.length || round === 1) break;
    corrections = problems.slice(0, 20);
    meter.corrections++;
  }
  if (!reading) throw new ModelCallError(client.endpoint.label, 200, 'no usable answer in two attempts', 2);
  // What the template's schema still refuses after the second chance is dropped, never kept as if it fit.
  for (const path of schemaRefused(prep.templateSchema, buildData(prep.fields, reading.read), reading.read.values)) {
    reading.read.values.delete(path);
    reading.read.rejected.add(path);
  }
  return reading;
}

/**
 * One chunk's readings: an answer cut off at the model's output limit would silently lose the
 * values it did not reach (a long list's last items), so the chunk is read again as two halves.
 */
async function readPages(client: ModelClient, prep: Prepared, chunk: PromptPage[], input: ModelExtractionInput, sendImages: boolean, meter: UsageMeter): Promise<Reading[]> {
  try {
    return [await readChunk(client, prep, chunk, input.images, sendImages, meter, input.signal)];
  } catch (err) {
    if (!(err instanceof ModelCallError && err.answered?.truncated && chunk.length > 1)) throw err;
    const half = Math.ceil(chunk.length / 2);
    return [...(await readPages(client, prep, chunk.slice(0, half), input, sendImages, meter)), ...(await readPages(client, prep, chunk.slice(half), input, sendImages, meter))];
  }
}

/** All chunks through one model, merged into one reading. */
async function readDocument(client: ModelClient, prep: Prepared, input: ModelExtractionInput, grounder: Grounder, meter: UsageMeter): Promise<Reading> {
  const sendImages = budgetOf(input.policy.prompt_budget_policy).sendPageImages;
  const readings: Reading[] = [];
  for (const chunk of prep.chunks) readings.push(...(await readPages(client, prep, chunk, input, sendImages, meter)));
  if (readings.length === 1) return readings[0]!;
  return mergeReadings(prep.fields, readings, input.policy.extraction_chunk_merge_strategy ?? 'field_aware', grounder);
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

export async function runModelExtraction(input: ModelExtractionInput): Promise<ModelExtractionOutput> {
  const { canonical, template, policy } = input;
  const lines = textLines(canonical);
  const prep = prepare(canonical, template, policy, lines);
  const grounder = new Grounder(lines, prep.dates);
  const meter = new UsageMeter(input.client);
  const judgeMeter = input.judge ? new UsageMeter(input.judge) : null;
  input.spent?.push(meter.totals, ...(judgeMeter ? [judgeMeter.totals] : []));

  // The judge model reads the document independently, at the same time. Its failure does not fail
  // the extraction: the values stand unconfirmed and go to a person instead.
  let judgeFailure: string | null = null;
  const [reading, judgeReading] = await Promise.all([
    readDocument(input.client, prep, input, grounder, meter),
    input.judge && judgeMeter
      ? readDocument(input.judge, prep, input, grounder, judgeMeter).catch((err: unknown) => {
          if (input.signal?.aborted || !(err instanceof ModelCallError)) throw err;
          judgeFailure = err.message;
          return null;
        })
      : Promise.resolve(null),
  ]);

  // The embedded extractor votes (it costs no call): its entities are the job's entities too.
  const embedded = runExtraction(canonical, template, policy, { now: input.now });
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

  const data = finishData(prep.fields, buildData(prep.fields, reading.read), template, policy, fieldResults, confidences);
  let judge: ModelJudgeSummary | null = null;
  let agreement: Record<string, number> | null = null;
  const judgeValues = judgeReading
    ? judgeReading.read.values
    : input.secondReading
      ? new Map(Object.entries(runExtraction(input.secondReading, template, policy, { now: input.now }).extraction.fields).map(([p, f]) => [p, f.value]))
      : null;
  if (judgeFailure !== null) {
    // Nothing confirmed any value: every field read counts as unagreed (low_agreement:<field>).
    agreement = Object.fromEntries(Object.keys(fieldResults).filter((p) => fieldResults[p]!.value !== null).map((p) => [p, 0]));
    judge = { method: 'judge_model', agreement, disagreements: {}, unavailable: `${judgeFailure}. The values were not confirmed by a second model.` };
  } else if (judgeValues) {
    agreement = agreementOf(fieldResults, Object.fromEntries([...judgeValues].map(([p, value]) => [p, { value }])));
    const disagreements: ModelJudgeSummary['disagreements'] = {};
    for (const [path, score] of Object.entries(agreement)) {
      if (score < 1) disagreements[path] = { value: fieldResults[path]?.value ?? null, judge_value: judgeValues.get(path) ?? null, agreement: score };
    }
    judge = { method: judgeReading ? 'judge_model' : 'second_reading', agreement, disagreements };
  }

  const { outcome, decision: decided } = validateAndDecide(template, policy, data, fieldResults, confidences, agreement, input.now);
  const reasons = [...decided.review_reasons, ...ungrounded.map((p) => `ungrounded:${p}`)];
  const decision = { ...decided, review_reasons: reasons, status: decided.status === 'rejected' ? ('rejected' as const) : reasons.length ? ('needs_review' as const) : ('completed' as const) };

  return {
    entities: embedded.entities as Entity[],
    extraction: { template_id: template.id, template_version: template.version, data, fields: fieldResults, validation: outcome.entries, review_reasons: reasons },
    decision,
    engine: {
      method: 'vlm',
      ...meter.totals,
      corrections: meter.corrections + (judgeMeter?.corrections ?? 0),
      grounded: groundedCount,
      ungrounded: reading.read.values.size - groundedCount - [...reading.read.values.values()].filter((v) => typeof v === 'boolean').length,
      embedded_agreed: agreed,
      ...(judgeMeter ? { judge: judgeMeter.totals } : {}),
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
