// The retry rules of model calls: which failures are retried, how long each wait is, and what the
// job is told when every attempt failed.
import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../../src/models/backends/errors.js';
import { AttemptFailure, BACKOFF_BASE_MS, BACKOFF_CAP_MS, backoffMs, retryAfterMs, withRetries } from '../../src/models/backends/retry.js';
import { ModelAnswerError } from '../../src/models/backends/types.js';

describe('Retry-After and backoff', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('0.5')).toBe(500);
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfterMs('Mon, 23 Nov 2026 10:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });

  it('grows exponentially with jitter, never under Retry-After, never over the cap', () => {
    for (let retry = 0; retry < 6; retry++) {
      for (let i = 0; i < 50; i++) {
        const ms = backoffMs(retry, null);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry));
      }
    }
    expect(backoffMs(0, 1200)).toBeGreaterThanOrEqual(1200);
    expect(backoffMs(0, 10 * 60_000)).toBe(BACKOFF_CAP_MS);
  });
});

const endpoint = (label: string, max_retries: number, credentials: Record<string, string> = {}) => ({ label, max_retries, credentials });

describe('withRetries', () => {
  it('retries 429, 5xx and network failures up to max_retries, then names the endpoint', async () => {
    let attempts = 0;
    const err = await withRetries(endpoint('tenant vlm endpoint', 2), async () => {
      attempts++;
      throw new AttemptFailure(attempts === 1 ? 429 : attempts === 2 ? null : 502, 'busy', 0);
    }).catch((e) => e);
    expect(attempts).toBe(3);
    expect(err).toBeInstanceOf(ModelCallError);
    const failure = err.toPipelineFailure();
    expect(failure.code).toBe('model_error');
    expect(failure.internal).toBe(false);
    expect(failure.message).toBe('The tenant vlm endpoint failed: HTTP 502 (busy) after 3 attempts. The model provider is failing; retry the job later, or point the tenant at another endpoint.');
  });

  it('does not retry what a retry cannot fix', async () => {
    for (const failure of [new AttemptFailure(401, 'bad key'), new AttemptFailure(404, 'no such model'), new AttemptFailure(null, 'blocked', null, true)]) {
      let attempts = 0;
      const err = await withRetries(endpoint('platform vlm endpoint', 5), async () => {
        attempts++;
        throw failure;
      }).catch((e) => e);
      expect(attempts).toBe(1);
      expect(err.status).toBe(failure.status);
    }
    const unusable = await withRetries(endpoint('platform vlm endpoint', 5), async () => {
      throw new ModelAnswerError('the answer is not JSON');
    }).catch((e) => e);
    expect(unusable.toPipelineFailure().message).toMatch(/HTTP 200 \(the answer is not JSON\) after 1 attempt\. The model answered, but not with the structured output/);
  });

  it('hides the endpoint\'s credentials in what the provider answered (a rejected key is often echoed)', async () => {
    const err = await withRetries(endpoint('platform vlm endpoint', 0, { api_key: 'sk-PLATFORM-777abc' }), async () => {
      throw new AttemptFailure(401, '401 Incorrect API key provided: sk-PLATFORM-777abc', 0);
    }).catch((e) => e);
    expect(err.toPipelineFailure().message).toBe("The platform vlm endpoint failed: HTTP 401 (401 Incorrect API key provided: [hidden]) after 1 attempt. Check the endpoint's credentials, then retry the job.");
    const answer = await withRetries(endpoint('platform vlm endpoint', 0, { api_key: 'sk-PLATFORM-777abc' }), async () => {
      throw new ModelAnswerError('the answer echoed sk-PLATFORM-777abc');
    }).catch((e) => e);
    expect(answer.message).not.toContain('sk-PLATFORM');
  });

  it('answers as soon as an attempt succeeds', async () => {
    let attempts = 0;
    const value = await withRetries(endpoint('x', 3), async () => {
      if (++attempts < 3) throw new AttemptFailure(503, 'down', 0);
      return 'ok';
    });
    expect(value).toBe('ok');
  });
});
