// The effective policy is cached per process and invalidated on change, also across processes:
// two PolicyService instances (and two API apps) on separate connection pools to one database.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Db, createDb } from '../../src/db/database.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { PolicyService } from '../../src/domain/policy/policy.service.js';
import { buildApp } from '../../src/http/app.js';
import type { App } from '../../src/http/context.js';
import { apiClient } from '../helpers/api-client.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let otherDb: Db;

const actor: Principal = { userId: null, email: null, role: 'platform_admin', tenantId: 'default', homeTenantId: 'default', method: 'api_key', sessionId: null, apiKeyId: 'key_test' };

/** Polls `check` until it holds or the deadline passes (never a blind sleep). */
async function eventually(check: () => Promise<boolean>, deadlineMs = 5_000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > deadlineMs) throw new Error(`condition not met within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
}

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme');
  const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(h.db);
  const url = new URL(inject('serverUrl'));
  url.pathname = `/${rows[0]!.name}`;
  otherDb = createDb(url.toString(), 2);
});
afterAll(async () => {
  await otherDb.destroy();
  await h.close();
});

describe('PolicyService', () => {
  it('caches, drops its cache on its own change at once, and sees another process\'s change within seconds', async () => {
    const writer = new PolicyService(h.db, { pollMs: 200 });
    const reader = new PolicyService(otherDb, { pollMs: 200 });
    await Promise.all([writer.start(), reader.start()]);
    try {
      const first = await reader.effective('acme');
      expect(await reader.effective('acme')).toBe(first); // served from the cache
      expect(Object.isFrozen(first)).toBe(true);

      await writer.patchTenant(actor, 'acme', { pdf_max_pages: 5 });
      expect((await writer.effective('acme')).pdf_max_pages).toBe(5);
      const took = await eventually(async () => (await reader.effective('acme')).pdf_max_pages === 5);
      expect(took).toBeLessThan(2_000);

      await writer.patchPlatform(actor, { judge_mode_enabled: true });
      await eventually(async () => (await reader.effective('acme')).judge_mode_enabled === true);

      await writer.resetTenant(actor, 'acme');
      await eventually(async () => (await reader.effective('acme')).pdf_max_pages !== 5);
    } finally {
      await writer.stop();
      await reader.stop();
    }
  });
});

describe('two API processes', () => {
  let second: App;
  let secondUrl: string;
  beforeAll(async () => {
    second = await buildApp({ db: otherDb, config: h.config, version: 'test', workerCount: () => 0 });
    await second.listen({ port: 0, host: '127.0.0.1' });
    const address = second.server.address();
    secondUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => second.close());

  it('enforces a rate limit changed through the other process within seconds', async () => {
    const member = (await h.seedUser('acme', 'member')).token!;
    const memberOnSecond = apiClient(secondUrl, { token: member });
    const limitSeenBySecond = async () => (await memberOnSecond.GET('/v1/me')).response.headers.get('ratelimit-limit');
    expect(await limitSeenBySecond()).not.toBe('5000');
    const admin = apiClient(h.baseUrl, { token: await h.adminToken() });
    const res = await admin.PATCH('/v1/admin/tenant-policy/{tenant_id}', { params: { path: { tenant_id: 'acme' } }, body: { rate_limit_per_minute: 5000 } });
    expect(res.response.status).toBe(200);
    expect(res.data?.fields.rate_limit_per_minute).toEqual({ value: 5000, source: 'tenant' });
    await eventually(async () => (await limitSeenBySecond()) === '5000');
  });
});
