// Extraction through a model (the vlm endpoint): the pages go to the model in calls sized by
// prompt_budget_policy; each answer is read against the template (asked once more when it does not
// fit); a judge model, when there is one, reads the document again independently. What the answers
// then become (merged by extraction_chunk_merge_strategy, grounded in the canonical words, voted on
// by the embedded extractor, validated and decided, as on the embedded path) is finish.ts: CPU work
// the worker runs in the pipeline thread pool, while the calls here wait on the network.
import type { DocInput } from '../../pipeline/entities/text.js';
import type { ExtractionPolicy, ExtractionTemplate } from '../../pipeline/extract/index.js';
import type { ModelUsage } from '../../pipeline/model-usage.js';
import type { ModelPrice } from '../endpoint-config.js';
import { ModelCallError } from '../backends/errors.js';
import type { ModelAnswer, ModelClient, PageImage } from '../backends/types.js';
import { readAnswer, schemaProblems, schemaRefused, buildData } from './answer.js';
import { budgetOf } from './budget.js';
import { type ModelAnswers, type ModelExtractionOutput, type Prepared, type Reading, finishModelExtraction, prepare } from './finish.js';
import { type PromptPage, coversDocument, userPrompt } from './prompt.js';

export {
  AGREEMENT_BOOST,
  CONTRADICTED_BOOLEAN,
  GROUNDED_CONFIDENCE,
  UNGROUNDED_CONFIDENCE,
  type ModelAnswers,
  type ModelEngineReport,
  type ModelExtractionOutput,
  type ModelJudgeSummary,
  type Prepared,
  finishModelExtraction,
  mergeReadings,
  prepare,
} from './finish.js';

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

export function costOf(usage: { input_tokens: number; output_tokens: number }, price: ModelPrice | null): number {
  if (!price) return 0;
  return Math.round(((usage.input_tokens * price.input + usage.output_tokens * price.output) / 1e6) * 1e6) / 1e6;
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
    const problems = [...read.problems, ...schemaProblems(prep.templateSchema, buildData(prep.fields, read), !coversDocument(chunk, prep.pageCount))];
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
async function readPages(client: ModelClient, prep: Prepared, chunk: PromptPage[], input: ModelCallInput, sendImages: boolean, meter: UsageMeter): Promise<Reading[]> {
  try {
    return [await readChunk(client, prep, chunk, input.images, sendImages, meter, input.signal)];
  } catch (err) {
    if (!(err instanceof ModelCallError && err.answered?.truncated && chunk.length > 1)) throw err;
    const half = Math.ceil(chunk.length / 2);
    return [...(await readPages(client, prep, chunk.slice(0, half), input, sendImages, meter)), ...(await readPages(client, prep, chunk.slice(half), input, sendImages, meter))];
  }
}

/** All chunks through one model: one reading per answered call, in page order. */
async function readDocument(client: ModelClient, prep: Prepared, input: ModelCallInput, meter: UsageMeter): Promise<Reading[]> {
  const sendImages = budgetOf(input.policy.prompt_budget_policy).sendPageImages;
  const readings: Reading[] = [];
  for (const chunk of prep.chunks) readings.push(...(await readPages(client, prep, chunk, input, sendImages, meter)));
  return readings;
}

/** What the model calls need beside the prepared prompts. */
export type ModelCallInput = Pick<ModelExtractionInput, 'policy' | 'images' | 'client' | 'judge' | 'signal' | 'spent'>;

/**
 * Every call of an extraction, the judge model's alongside (it reads the document independently, at
 * the same time). The judge's failure does not fail the extraction: the values stand unconfirmed
 * and go to a person instead (finish.ts).
 */
export async function readModelAnswers(prep: Prepared, input: ModelCallInput): Promise<ModelAnswers> {
  const meter = new UsageMeter(input.client);
  const judgeMeter = input.judge ? new UsageMeter(input.judge) : null;
  input.spent?.push(meter.totals, ...(judgeMeter ? [judgeMeter.totals] : []));
  let judgeFailure: string | null = null;
  const [readings, judgeReadings] = await Promise.all([
    readDocument(input.client, prep, input, meter),
    input.judge && judgeMeter
      ? readDocument(input.judge, prep, input, judgeMeter).catch((err: unknown) => {
          if (input.signal?.aborted || !(err instanceof ModelCallError)) throw err;
          judgeFailure = err.message;
          return null;
        })
      : Promise.resolve(null),
  ]);
  return { readings, judgeReadings, judgeFailure, usage: meter.totals, judgeUsage: judgeMeter?.totals ?? null, corrections: meter.corrections + (judgeMeter?.corrections ?? 0) };
}

/** A whole model extraction in this thread: prepared, called, finished (the worker splits it: queue/run-job.ts). */
export async function runModelExtraction(input: ModelExtractionInput): Promise<ModelExtractionOutput> {
  const prep = prepare(input.canonical, input.template, input.policy, undefined, input.images.keys());
  const answers = await readModelAnswers(prep, input);
  return finishModelExtraction(input.canonical, input.template, input.policy, prep, answers, input.secondReading ?? null, input.now);
}
