// The openai and anthropic SDKs share one error shape (status, headers, a connection error class):
// both become an AttemptFailure here. The SDKs' own retries are off; retry.ts does them.
import { OutboundBlockedError } from '../../lib/ssrf-guard.js';
import { AttemptFailure, retryAfterMs } from './retry.js';
import { ModelAnswerError } from './types.js';

interface SdkApiError {
  status?: number;
  headers?: Headers;
  message: string;
}

/** The first OutboundBlockedError in an error's cause chain. */
export function blockedCause(err: unknown): OutboundBlockedError | null {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundBlockedError) return e;
  }
  return null;
}

export function attemptFailureOf(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof AttemptFailure || err instanceof ModelAnswerError) return err;
  if (signal?.aborted) return err;
  const blocked = blockedCause(err);
  if (blocked) return new AttemptFailure(null, blocked.message, null, true);
  const e = err as SdkApiError;
  if (typeof e?.status === 'number') {
    const retryAfter = e.headers && typeof e.headers.get === 'function' ? retryAfterMs(e.headers.get('retry-after')) : null;
    return new AttemptFailure(e.status, oneLine(withoutStatus(e.message, e.status)), retryAfter);
  }
  const name = (err as Error)?.constructor?.name ?? '';
  if (/Connection|Timeout/.test(name)) return new AttemptFailure(null, oneLine((err as Error).message || name));
  return err;
}

/** Error texts from providers can be long JSON: the first 200 characters of one line. */
export const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 200);

/** The SDKs start a message with its status ("503 The server is overloaded"), which is reported on its own. */
export const withoutStatus = (message: string, status: number) => (message.startsWith(`${status} `) ? message.slice(String(status).length + 1) : message);
