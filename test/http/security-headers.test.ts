// Protective response headers: nosniff and no-referrer everywhere, no-store on API answers (tokens, secrets),
// CSP and frame protection on the HTML pages, and CORS preflights for configured origins only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;

beforeAll(async () => {
  h = await startHarness({ corsOrigins: ['https://console.example.com'] });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

describe('security headers', () => {
  it('sends nosniff on every response, errors and 404s included', async () => {
    for (const [method, path] of [['GET', '/'], ['GET', '/v1/health/live'], ['GET', '/v1/nothing'], ['GET', '/v1/me'], ['GET', '/docs/'], ['GET', '/openapi.json']]) {
      const res = await h.request(method!, path!);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });

  it('sends no Referer from any page or answer: invitation and reset links carry their token in the URL', async () => {
    for (const [method, path] of [['GET', '/app/accept-invite?token=secret'], ['GET', '/app/reset-password?token=secret'], ['GET', '/docs/'], ['GET', '/v1/me'], ['GET', '/v1/nothing']]) {
      const res = await h.request(method!, path!, { token: member });
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('marks token and secret responses no-store', async () => {
    const login = await h.request('POST', '/v1/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.headers.get('cache-control')).toBe('no-store');
    const key = await h.request('POST', '/v1/account/api-keys', { token: member, body: { name: 'ci' } });
    expect(key.status).toBe(201);
    expect(key.body.secret).toBeTruthy();
    expect(key.headers.get('cache-control')).toBe('no-store');
  });

  it('sends a CSP and frame protection on /docs', async () => {
    const res = await h.request('GET', '/docs/');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers a preflight from a configured origin, and refuses others', async () => {
    const ok = await fetch(`${h.baseUrl}/v1/documents`, {
      method: 'OPTIONS',
      headers: { origin: 'https://console.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://console.example.com');
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST');
    expect(ok.headers.get('access-control-allow-headers')).toContain('authorization');

    const other = await fetch(`${h.baseUrl}/v1/documents`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const simple = await h.request('GET', '/v1/me', { token: member, headers: { origin: 'https://console.example.com' } });
    expect(simple.status).toBe(200);
    expect(simple.headers.get('access-control-allow-origin')).toBe('https://console.example.com');
  });
});
