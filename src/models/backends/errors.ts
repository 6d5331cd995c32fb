// A model call that kept failing, after every retry: the job fails with `model_error`, naming the
// endpoint, what went wrong and what to do about it.
import { PipelineFailure } from '../../queue/pipeline-pool.js';
import type { ModelUsage } from './types.js';

/**
 * Text with the endpoint's credential values blanked out. Providers echo a rejected key in their
 * error bodies ("Incorrect API key provided: sk-…"), and that text reaches job failure messages,
 * test details and logs.
 */
export function hideSecrets(text: string, credentials: Record<string, string | null | undefined>): string {
  let out = text;
  for (const value of Object.values(credentials)) if (value && value.length >= 4) out = out.split(value).join('[hidden]');
  return out;
}

export class ModelCallError extends Error {
  constructor(
    readonly label: string,
    /** HTTP status of the last attempt; null for a network error or timeout. */
    readonly status: number | null,
    readonly detail: string,
    readonly attempts: number,
    /** An answer that came but could not be used: what it was billed, and whether it was cut off at the output limit. */
    readonly answered: { usage: ModelUsage | null; truncated: boolean; notModelApi?: boolean } | null = null,
  ) {
    super(`${label}: ${status ? `HTTP ${status}` : 'no answer'} (${detail}) after ${attempts} attempt${attempts === 1 ? '' : 's'}`);
  }

  /** The job failure: never retried by the queue on its own; the job's retry runs it again. */
  toPipelineFailure(): PipelineFailure {
    return new PipelineFailure('model_error', `The ${this.label} failed: ${this.status ? `HTTP ${this.status}` : 'no answer'} (${this.detail}) after ${this.attempts} attempt${this.attempts === 1 ? '' : 's'}. ${this.answered?.truncated ? TRUNCATED_ADVICE : this.answered?.notModelApi ? NOT_THE_API_ADVICE : advice(this.status)}`, false);
  }
}

// The model was never reached, so what it supports is not in question: only the address is.
const NOT_THE_API_ADVICE = "Point the endpoint's base_url at the model API's address (an OpenAI-compatible server's ends in /v1), then retry the job.";

const TRUNCATED_ADVICE = 'A single page asked for more than the model may answer at once; lower prompt_budget_policy.tokens_per_page or use a model with a larger output limit, then retry the job.';

function advice(status: number | null): string {
  if (status !== null && status < 300) return 'The model answered, but not with the structured output asked for; check that the model supports images and JSON-schema output or tool use, then retry the job.';
  if (status === 401 || status === 403) return 'Check the endpoint\'s credentials, then retry the job.';
  if (status === 404) return 'Check the endpoint\'s model name and base URL, then retry the job.';
  if (status === 400 || status === 422) return 'The model refused the request; check that the model accepts images and structured output, then retry the job.';
  if (status === 429) return 'The model provider is rate-limiting this account; raise the quota or lower the load, then retry the job.';
  if (status === null) return 'Check that the endpoint is reachable from Quire (base URL, network, QUIRE_OUTBOUND_ALLOW) and its timeout_seconds, then retry the job.';
  return 'The model provider is failing; retry the job later, or point the tenant at another endpoint.';
}
