// What every model backend answers to: page images, the document's text and a prompt in, one JSON
// object matching the schema out, with the tokens it cost.
import type { ModelEndpointConfig } from '../endpoint-config.js';
import type { GuardOptions } from '../../lib/ssrf-guard.js';

export interface PageImage {
  page: number;
  png: Uint8Array;
}

export interface ModelRequest {
  /** Rendered pages, in page order. */
  images: PageImage[];
  /** The instructions (template, rules of the answer). */
  system: string;
  /** The document's canonical text and what to extract. */
  prompt: string;
  /** JSON schema the answer must match. */
  schema: Record<string, unknown>;
  /** The tool (or response format) the answer is given under; default ANSWER_TOOL, for extraction. */
  answer?: AnswerTool;
  signal?: AbortSignal;
}

export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface ModelAnswer {
  json: unknown;
  usage: ModelUsage;
  /** The model that answered, as the backend names it. */
  model: string;
}

export interface ModelClient {
  readonly endpoint: ModelEndpointConfig;
  extract(request: ModelRequest): Promise<ModelAnswer>;
}

/** Everything a backend client is built from. */
export interface BackendContext {
  endpoint: ModelEndpointConfig;
  guard: GuardOptions;
}

/** The tool (Anthropic, Bedrock) or response format (OpenAI) name the answer is given under. */
export const ANSWER_TOOL = 'record_extraction';
export const ANSWER_TOOL_DESCRIPTION = 'Record the values extracted from the document, exactly as the schema describes.';

export interface AnswerTool {
  name: string;
  description: string;
}

export const answerToolOf = (request: ModelRequest): AnswerTool => request.answer ?? { name: ANSWER_TOOL, description: ANSWER_TOOL_DESCRIPTION };

export const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/**
 * What a ```json fence holds, without the spaces around it, or null when `text` is not fenced.
 * Cut by position, not by one regex: `^```(?:json)?\s*([\s\S]*?)\s*```$` tried every split of
 * the spaces between its two `\s*` and the lazy body, cubic in a long run of them (an answer of
 * "```" and 3,000 tabs took longer than a request may).
 */
function fencedBody(text: string): string | null {
  if (text.length < 6 || !text.startsWith('```') || !text.endsWith('```')) return null;
  const inside = text.slice(3, -3);
  return (/^json/i.test(inside) ? inside.slice(4) : inside).trim();
}

/** Reads a JSON object out of a model's text answer (tolerating a ```json fence around it); `usage` is what the answer cost. */
export function parseJsonAnswer(text: string, usage: ModelUsage | null = null): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(fencedBody(trimmed) ?? trimmed);
  } catch {
    throw new ModelAnswerError(`the model's answer is not JSON (starts with ${JSON.stringify(trimmed.slice(0, 60))})`, usage);
  }
}

/** The model answered, but not with something usable (no tool call, not JSON, cut off). */
export class ModelAnswerError extends Error {
  constructor(
    message: string,
    /** What the unusable answer was billed: it counts toward the job's and the month's usage. */
    readonly usage: ModelUsage | null = null,
    /** The answer stopped at the output token limit: what it holds may be missing values. */
    readonly truncated = false,
    /** What came back is no answer of the model API at all (a web page at the base URL). */
    readonly notModelApi = false,
  ) {
    super(message);
  }
}

/** A 200 whose body is no answer of the model API at all (a web page at the base URL): not Quire's failure, the endpoint's. */
export const notAnApiAnswer = (body: unknown) =>
  new ModelAnswerError(`the endpoint's answer is not JSON from the model API (starts with ${JSON.stringify(String(typeof body === 'string' ? body : JSON.stringify(body) ?? '').trim().slice(0, 60))}); check that the base URL is the API's address`, null, false, true);

/** The answer stopped at the output limit: never read as if it were whole (a cut-off list loses its last items). */
export const cutOff = (limit: number | null, usage: ModelUsage) =>
  new ModelAnswerError(`the answer was cut off at the model's output limit${limit ? ` (${limit} tokens)` : ''}`, usage, true);
