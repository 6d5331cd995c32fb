import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from './webhook-signature.js';

describe('webhook signature', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 as t=<t>,v1=<hex>', () => {
    const header = signWebhook('secret-secret-secret', '{"a":1}', 1_700_000_000);
    const mac = createHmac('sha256', 'secret-secret-secret').update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${mac}`);
  });

  it('verifies the right secret and body within the tolerance only', () => {
    const now = 1_700_000_000;
    const header = signWebhook('secret-secret-secret', 'body', now);
    expect(verifyWebhook('secret-secret-secret', 'body', header, 300, now + 10)).toBe(true);
    expect(verifyWebhook('another-secret-here', 'body', header, 300, now)).toBe(false);
    expect(verifyWebhook('secret-secret-secret', 'body!', header, 300, now)).toBe(false);
    expect(verifyWebhook('secret-secret-secret', 'body', header, 300, now + 301)).toBe(false);
    expect(verifyWebhook('secret-secret-secret', 'body', 'v1=abc', 300, now)).toBe(false);
  });
});
