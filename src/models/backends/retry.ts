// Retries of one model call: exponential backoff with full jitter on 429, 5xx and network errors,
// waiting at least what a Retry-After header asks, up to the endpoint's max_retries. Each backend
// turns its SDK's errors into an AttemptFailure; anything else is a bug and is not retried.
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelCallError, hideSecrets } from './errors.js';
import { ModelAnswerError } from './types.js';

export class AttemptFailure extends Error {
  constructor(
    /** HTTP status, or null when no answer came (network error, timeout). */
    readonly status: number | null,
    readonly detail: string,
    /** From a Retry-After header, in milliseconds. */
    readonly retryAfterMs: number | null = null,
    /** A failure no retry can help (the SSRF guard refused the address). */
    readonly permanent = false,
  ) {
    super(detail);
  }

  get retryable(): boolean {
    if (this.permanent) return false;
    return this.status === null || this.status === 408 || this.status === 409 || this.status === 429 || this.status >= 500;
  }
}

/** First wait; doubled at every attempt. */
export const BACKOFF_BASE_MS = 500;
/** No single wait is longer, whatever Retry-After says. */
export const BACKOFF_CAP_MS = 30_000;

/** Retry-After as seconds or an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function backoffMs(retry: number, retryAfter: number | null): number {
  const jittered = Math.random() * BACKOFF_BASE_MS * 2 ** retry;
  return Math.min(BACKOFF_CAP_MS, Math.max(jittered, retryAfter ?? 0));
}

/** What a retry loop needs of its endpoint: the name it reports, its retry budget, the secrets it hides. */
export interface RetriedEndpoint {
  label: string;
  max_retries: number;
  credentials: Record<string, string | null | undefined>;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or max_retries retries are spent; the last
 * failure becomes a ModelCallError naming the endpoint, its detail cleared of the credentials.
 */
export async function withRetries<T>(endpoint: RetriedEndpoint, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const { label, max_retries: maxRetries } = endpoint;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof ModelAnswerError) {
        const answered = { usage: err.usage, truncated: err.truncated, ...(err.notModelApi ? { notModelApi: true } : {}) };
        throw new ModelCallError(label, 200, hideSecrets(err.message, endpoint.credentials), retry + 1, answered);
      }
      if (!(err instanceof AttemptFailure)) throw err;
      if (!err.retryable || retry >= maxRetries || signal?.aborted) throw new ModelCallError(label, err.status, hideSecrets(err.detail, endpoint.credentials), retry + 1);
      await sleep(backoffMs(retry, err.retryAfterMs), undefined, signal ? { signal } : undefined);
    }
  }
}
