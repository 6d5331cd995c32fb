// Rate limits: per tenant by rate_limit_per_minute, in-process and shared through a real Redis;
// sign-in limits per IP and per account; the endpoints that are never limited.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Harness, PASSWORD, startHarness } from '../helpers/harness.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Windows are aligned to the clock minute; a test that counts requests must not straddle two.
 * When fewer than 10 s are left in this minute, wait for the next one (a bounded, computed wait).
 */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
}

async function setLimit(h: Harness, tenant: string, limit: number) {
  const res = await h.request('PATCH', `/v1/admin/tenant-policy/${tenant}`, { token: await h.adminToken(), body: { rate_limit_per_minute: limit } });
  expect(res.status).toBe(200);
}

function expectHeaders(res: { headers: Headers }, limit: number, remaining: number) {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

function expectRefused(res: { status: number; body: any; headers: Headers }, limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
  const retry = Number(res.headers.get('retry-after'));
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expectHeaders(res, limit, 0);
}

describe('per-tenant limit, in-process counters', () => {
  let h: Harness;
  let member: string;
  let other: string;
  beforeAll(async () => {
    h = await startHarness({ redisUrl: null });
    await h.seedTenant('acme');
    await h.seedTenant('globex');
    member = (await h.seedUser('acme', 'member')).token!;
    other = (await h.seedUser('globex', 'member')).token!;
  });
  afterAll(() => h.close());

  it('allows rate_limit_per_minute requests, then answers 429 with Retry-After and RateLimit-* headers', async () => {
    await setLimit(h, 'acme', 3);
    await freshWindow();
    for (let i = 0; i < 3; i++) {
      const res = await h.request('GET', '/v1/me', { token: member });
      expect(res.status).toBe(200);
      expectHeaders(res, 3, 2 - i);
    }
    const refused = await h.request('GET', '/v1/me', { token: member });
    expectRefused(refused, 3);
    expect(refused.body.detail).toMatch(/rate_limit_per_minute/);
    // Every credential of the tenant shares the limit; another tenant has its own.
    const admin = await h.request('GET', '/v1/me', { token: (await h.seedUser('acme', 'admin')).token! });
    expect(admin.status).toBe(429);
    expect((await h.request('GET', '/v1/me', { token: other })).status).toBe(200);
  });

  it('takes a raised limit at once', async () => {
    await setLimit(h, 'acme', 1000);
    const res = await h.request('GET', '/v1/me', { token: member });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
  });

  it('counts a platform admin acting through X-Tenant-Id against that tenant', async () => {
    await setLimit(h, 'globex', 2);
    await freshWindow();
    const token = await h.adminToken();
    expect((await h.request('GET', '/v1/me', { token, tenant: 'globex' })).headers.get('ratelimit-limit')).toBe('2');
    await h.request('GET', '/v1/me', { token: other });
    expectRefused(await h.request('GET', '/v1/me', { token, tenant: 'globex' }), 2);
    await setLimit(h, 'globex', 1000);
  });

  it('never limits health, root, OpenAPI, docs or the token peek endpoints', async () => {
    for (const path of ['/v1/health', '/v1/health/live', '/v1/health/ready', '/', '/openapi.json', '/docs/', '/v1/auth/invites/nope', '/v1/auth/reset-tokens/nope']) {
      for (let i = 0; i < 3; i++) {
        const res = await h.request('GET', path);
        expect(res.status, path).not.toBe(429);
        expect(res.headers.get('ratelimit-limit'), path).toBeNull();
      }
    }
  });
});

describe('sign-in limits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisUrl: null, authRateLimitPerIp: 5, loginRateLimitPerAccount: 2 });
    await h.seedTenant('acme');
  });
  afterAll(() => h.close());

  const login = (email: string, password: string) => h.request('POST', '/v1/auth/login', { body: { email, password } });

  it('limits failed sign-ins per account, then per IP; successes do not count', async () => {
    await freshWindow();
    const a = await h.seedUser('acme', 'member');
    const b = await h.seedUser('acme', 'member');
    // Successful sign-ins (the two seeds above, and this one) use up nothing.
    const ok = await login(a.email, PASSWORD);
    expect(ok.status).toBe(200);
    expectHeaders(ok, 2, 2);

    expect((await login(a.email, 'wrong-password-1')).status).toBe(401);
    const second = await login(a.email.toUpperCase(), 'wrong-password-2');
    expect(second.status).toBe(401);
    expectHeaders(second, 2, 0);
    // The account's limit is used up: even the right password waits, and the lockout is not what answers.
    const refused = await login(a.email, PASSWORD);
    expectRefused(refused, 2);
    expect(refused.body.detail).toMatch(/this account/);

    // Another account from the same IP still may (IP: 2 of 5 failures used).
    expect((await login(b.email, PASSWORD)).status).toBe(200);
    for (const email of ['x@acme.test', 'y@acme.test', 'z@acme.test']) expect((await login(email, 'whatever-password')).status).toBe(401);
    const ip = await login(b.email, PASSWORD);
    expectRefused(ip, 5);
    expect(ip.body.detail).toMatch(/your address/);
  });

  it('counts invite and reset redemptions per IP, but not the token peeks', async () => {
    // This IP has used its 5 in this window (previous test) unless the minute turned; either way
    // the peeks stay open and the redemptions end in 429 within 6 attempts.
    for (let i = 0; i < 8; i++) expect((await h.request('GET', `/v1/auth/invites/t${i}`)).status).not.toBe(429);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await h.request('POST', '/v1/auth/reset-password', { body: { token: `nope-${i}`, new_password: 'a-new-long-password' } })).status);
    expect(statuses).toContain(429);
    expect(statuses.slice(statuses.indexOf(429))).toEqual(statuses.slice(statuses.indexOf(429)).map(() => 429));
  });
});

describe('shared counters through Redis', () => {
  const prefix = `quire-test:${inject('runId')}:${randomBytes(4).toString('hex')}:`;
  let a: Harness;
  let b: Harness;
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    // CI starts Redis (.ci/run); a missing Redis fails this suite rather than skipping it.
    await redis.connect();
    a = await startHarness({ redisUrl: REDIS_URL, redisKeyPrefix: prefix });
    b = await startHarness({ redisUrl: REDIS_URL, redisKeyPrefix: prefix });
    for (const h of [a, b]) {
      await h.seedTenant('shared');
      await setLimit(h, 'shared', 4);
    }
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await a?.close();
    await b?.close();
  });

  it('counts requests made through two API processes against one limit', async () => {
    const ta = (await a.seedUser('shared', 'member')).token!;
    const tb = (await b.seedUser('shared', 'member')).token!;
    await freshWindow();
    expect((await a.request('GET', '/v1/me', { token: ta })).headers.get('ratelimit-remaining')).toBe('3');
    expect((await b.request('GET', '/v1/me', { token: tb })).headers.get('ratelimit-remaining')).toBe('2');
    expect((await a.request('GET', '/v1/me', { token: ta })).headers.get('ratelimit-remaining')).toBe('1');
    expect((await b.request('GET', '/v1/me', { token: tb })).headers.get('ratelimit-remaining')).toBe('0');
    expectRefused(await a.request('GET', '/v1/me', { token: ta }), 4);
    expectRefused(await b.request('GET', '/v1/me', { token: tb }), 4);
    const keys = await redis.keys(`${prefix}rl:tenant:shared:*`);
    expect(keys).toHaveLength(1);
    expect(Number(await redis.get(keys[0]!))).toBe(6);
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(61_000);
  });

  it('shares the sign-in failure counts too, under digested keys', async () => {
    await a.request('POST', '/v1/auth/login', { body: { email: 'Nobody@shared.test', password: 'wrong-password' } });
    const keys = await redis.keys(`${prefix}rl:login:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('nobody');
  });
});

describe('Redis configured but unreachable', () => {
  let h: Harness;
  beforeAll(async () => {
    // Port 1 on loopback: nothing listens there.
    h = await startHarness({ redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: 'quire-test-down:' });
    await h.seedTenant('acme');
  });
  afterAll(() => h.close());

  it('serves requests and still limits, counting in the process', async () => {
    const member = (await h.seedUser('acme', 'member')).token!;
    expect((await h.request('GET', '/v1/health')).status).toBe(200);
    await setLimit(h, 'acme', 2);
    await freshWindow();
    expect((await h.request('GET', '/v1/me', { token: member })).status).toBe(200);
    expect((await h.request('GET', '/v1/me', { token: member })).status).toBe(200);
    expectRefused(await h.request('GET', '/v1/me', { token: member }), 2);
  });
});
