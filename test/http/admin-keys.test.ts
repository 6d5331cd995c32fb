import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/identity/principal.js';
import { createKey, ownScope } from '../../src/domain/keys/keys.service.js';
import { type Harness, type Reply, startHarness } from '../helpers/harness.js';
import { expect422, expectError } from '../helpers/expect-errors.js';

type Seeded = { id: string; email: string; token: string | null };

let h: Harness;
let root: string;
let admin: Seeded; // acme admin
let member: Seeded; // acme member
let globexAdmin: Seeded;

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  await h.seedTenant('acme', 'Acme');
  await h.seedTenant('globex', 'Globex');
  admin = await h.seedUser('acme', 'admin');
  member = await h.seedUser('acme', 'member');
  globexAdmin = await h.seedUser('globex', 'admin');
});
afterAll(() => h.close());

async function create(token: string, body: Record<string, unknown>, tenant?: string) {
  const res = await h.request('POST', '/v1/admin/api-keys', { token, body, tenant });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const operations = (publicId: string): [string, string, unknown?][] => [
  ['GET', '/v1/admin/api-keys'],
  ['POST', '/v1/admin/api-keys', { name: 'ci' }],
  ['POST', `/v1/admin/api-keys/${publicId}/revoke`],
  ['POST', `/v1/admin/api-keys/${publicId}/rotate`],
];

describe('access', () => {
  it('answers 401 without a credential and 403 to members', async () => {
    for (const [method, path, body] of operations('key_x')) {
      expect((await h.request(method, path, { body })).status, `${method} ${path}`).toBe(401);
      expectError(await h.request(method, path, { body, token: member.token! }), 403, 'insufficient_role');
    }
  });

  it("answers 404 for another tenant's key, and to a tenant admin naming another tenant", async () => {
    const globexKey = await create(globexAdmin.token!, { name: 'globex-ci' });
    for (const [method, path, body] of operations(globexKey.public_id).slice(2)) {
      expectError(await h.request(method, path, { token: admin.token!, body }), 404, 'not_found');
    }
    for (const [method, path, body] of operations(globexKey.public_id)) {
      expectError(await h.request(method, path, { token: admin.token!, body, tenant: 'globex' }), 404, 'not_found');
    }
    // The globex key still works, with its original secret.
    expect((await h.request('GET', '/v1/me', { token: globexKey.secret })).status).toBe(200);
    const list = await h.request('GET', '/v1/admin/api-keys', { token: admin.token! });
    expect(list.body.items.map((k: { public_id: string }) => k.public_id)).not.toContain(globexKey.public_id);
  });
});

describe('POST /v1/admin/api-keys', () => {
  it('validates the body', async () => {
    const empty = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {} }]);
    const blank = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: { name: '' } });
    expect422(blank, { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } });
    const long = 'k'.repeat(129);
    const tooLong = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: { name: long } });
    expect422(tooLong, { loc: ['body', 'name'], msg: 'String should have at most 128 characters', type: 'string_too_long', input: long, ctx: { max_length: 128 } });
    const role = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: { name: 'x', role: 'platform_admin' } });
    expect422(role, { loc: ['body', 'role'], msg: "Input should be 'admin' or 'member'", type: 'enum', input: 'platform_admin', ctx: { expected: "'admin' or 'member'" } });
    const date = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: { name: 'x', expires_at: 'next week' } });
    expect422(date, { loc: ['body', 'expires_at'], msg: 'Input should be a valid datetime', type: 'datetime_parsing', input: 'next week', ctx: { format: 'RFC 3339' } });
    const past = '2020-01-01T00:00:00.000Z';
    const expired = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: { name: 'x', expires_at: past } });
    expect(expired.status).toBe(422);
    expect(expired.body).toEqual({ detail: [{ loc: ['body', 'expires_at'], msg: 'Input should be in the future', type: 'datetime_future', input: past }] });
    expect((await h.request('GET', '/v1/admin/api-keys', { token: admin.token! })).body.items.map((k: { name: string }) => k.name)).not.toContain('x');
  });

  it('creates a member key by default whose secret is shown once and works', async () => {
    const key = await create(admin.token!, { name: 'ingest' });
    expect(key).toEqual({
      public_id: expect.stringMatching(/^key_/),
      name: 'ingest',
      role: 'member',
      prefix: expect.any(String),
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
      secret: expect.any(String),
    });
    expect(key.secret.startsWith(`qk_${key.public_id}_`)).toBe(true);
    expect(key.secret.startsWith(key.prefix)).toBe(true);
    const me = await h.request('GET', '/v1/me', { token: key.secret });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: null, role: 'member', acting_tenant_id: 'acme', auth: { method: 'api_key', api_key_id: key.public_id } });
    expectError(await h.request('GET', '/v1/admin/api-keys', { token: key.secret }), 403, 'insufficient_role');
    const listed = await h.request('GET', '/v1/admin/api-keys', { token: admin.token! });
    const row = listed.body.items.find((k: { public_id: string }) => k.public_id === key.public_id);
    expect(row.secret).toBeUndefined();
    expect(row.last_used_at).not.toBeNull();
  });

  it('creates an admin key with an expiry', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = await create(admin.token!, { name: 'ops', role: 'admin', expires_at: expiresAt });
    expect(key).toMatchObject({ role: 'admin', expires_at: expiresAt });
    expect((await h.request('GET', '/v1/admin/api-keys', { token: key.secret })).status).toBe(200);
    // A tenant-wide admin key may itself mint keys.
    const minted = await create(key.secret, { name: 'minted-by-key' });
    expect(minted.role).toBe('member');
  });

  it('lets a platform admin create a key for another tenant with X-Tenant-Id', async () => {
    const key = await create(root, { name: 'for-globex', role: 'admin' }, 'globex');
    const me = await h.request('GET', '/v1/me', { token: key.secret });
    expect(me.body).toMatchObject({ acting_tenant_id: 'globex', role: 'admin' });
    const globexList = await h.request('GET', '/v1/admin/api-keys', { token: globexAdmin.token! });
    expect(globexList.body.items.map((k: { public_id: string }) => k.public_id)).toContain(key.public_id);
  });
});

describe('no tenant-wide key with platform power', () => {
  it("refuses platform_admin to a platform admin acting in a tenant, and keeps its own platform_admin key out of the tenant admin's reach", async () => {
    const asRoot = await h.request('POST', '/v1/admin/api-keys', { token: root, tenant: 'acme', body: { name: 'platform', role: 'platform_admin' } });
    expect422(asRoot, { loc: ['body', 'role'], msg: "Input should be 'admin' or 'member'", type: 'enum', input: 'platform_admin', ctx: { expected: "'admin' or 'member'" } });
    // Its own key, made while acting in acme, belongs to the platform admin in its home tenant.
    const own = await h.request('POST', '/v1/account/api-keys', { token: root, tenant: 'acme', body: { name: 'root-own', role: 'platform_admin' } });
    expect(own.status).toBe(201);
    const listed = await h.request('GET', '/v1/admin/api-keys', { token: admin.token! });
    expect(listed.body.items.map((k: { role: string }) => k.role)).not.toContain('platform_admin');
    for (const action of ['rotate', 'revoke']) {
      expectError(await h.request('POST', `/v1/admin/api-keys/${own.body.public_id}/${action}`, { token: admin.token! }), 404, 'not_found');
    }
    expect((await h.request('GET', '/v1/platform/tenants', { token: own.body.secret })).status).toBe(200);
    // A tenant-wide admin key stays in its tenant.
    const tenantAdminKey = await create(globexAdmin.token!, { name: 'globex-admin-key', role: 'admin' });
    expectError(await h.request('GET', '/v1/platform/tenants', { token: tenantAdminKey.secret }), 403, 'insufficient_role');
    expectError(await h.request('GET', '/v1/admin/api-keys', { token: tenantAdminKey.secret, tenant: 'acme' }), 404, 'not_found');
    expectError(await h.request('POST', '/v1/account/api-keys', { token: tenantAdminKey.secret, body: { name: 'x', role: 'platform_admin' } }), 403, 'user_required');
  });

  it('treats a tenant-wide key whose row says platform_admin (written by hand) as an admin of its tenant', async () => {
    const key = await create(globexAdmin.token!, { name: 'globex-hand-edited', role: 'admin' });
    await h.db.updateTable('api_keys').set({ role: 'platform_admin' }).where('id', '=', key.public_id).execute();
    expectError(await h.request('GET', '/v1/platform/tenants', { token: key.secret }), 403, 'insufficient_role');
    expectError(await h.request('GET', '/v1/admin/api-keys', { token: key.secret, tenant: 'acme' }), 404, 'not_found');
    expect((await h.request('GET', '/v1/me', { token: key.secret })).body).toMatchObject({ acting_tenant_id: 'globex', role: 'admin' });
  });
});

describe('GET /v1/admin/api-keys', () => {
  it('validates its query', async () => {
    const limit = await h.request('GET', '/v1/admin/api-keys?limit=500', { token: admin.token! });
    expect422(limit, { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 200', type: 'less_than_equal', input: 500, ctx: { le: 200 } });
  });

  it("lists the tenant's tenant-wide keys only (not own keys), newest first, in pages", async () => {
    const p: Principal = { userId: admin.id, email: admin.email, role: 'admin', tenantId: 'acme', homeTenantId: 'acme', method: 'session', sessionId: null, apiKeyId: null };
    const own = await createKey(h.db, p, ownScope(p), { name: 'my-laptop' });
    const all = await h.request('GET', '/v1/admin/api-keys', { token: admin.token! });
    expect(all.status).toBe(200);
    const names = all.body.items.map((k: { name: string }) => k.name);
    expect(names).toEqual(['minted-by-key', 'ops', 'ingest']);
    expect(all.body.items.map((k: { public_id: string }) => k.public_id)).not.toContain(own.key.id);

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply = await h.request('GET', `/v1/admin/api-keys?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { token: admin.token! });
      walked.push(...page.body.items.map((k: { name: string }) => k.name));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(names);
  });
});

describe('rotate and revoke', () => {
  it('rotates: the new secret works and the old one stops at once', async () => {
    const key = await create(admin.token!, { name: 'rotating' });
    const res = await h.request('POST', `/v1/admin/api-keys/${key.public_id}/rotate`, { token: admin.token! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ public_id: key.public_id, name: 'rotating', revoked_at: null, secret: expect.stringMatching(new RegExp(`^qk_${key.public_id}_`)) });
    expect(res.body.secret).not.toBe(key.secret);
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(401);
    expect((await h.request('GET', '/v1/me', { token: res.body.secret })).status).toBe(200);
  });

  it('revokes once; a revoked key stops working and cannot be rotated', async () => {
    const key = await create(admin.token!, { name: 'doomed' });
    const res = await h.request('POST', `/v1/admin/api-keys/${key.public_id}/revoke`, { token: admin.token! });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      public_id: key.public_id,
      name: 'doomed',
      role: 'member',
      prefix: key.prefix,
      created_at: key.created_at,
      last_used_at: null,
      revoked_at: expect.any(String),
      expires_at: null,
    });
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(401);
    expectError(await h.request('POST', `/v1/admin/api-keys/${key.public_id}/revoke`, { token: admin.token! }), 409, 'key_revoked');
    expectError(await h.request('POST', `/v1/admin/api-keys/${key.public_id}/rotate`, { token: admin.token! }), 409, 'key_revoked');
  });

  it("answers 404 for an unknown key and for someone's own key", async () => {
    const p: Principal = { userId: member.id, email: member.email, role: 'member', tenantId: 'acme', homeTenantId: 'acme', method: 'session', sessionId: null, apiKeyId: null };
    const own = await createKey(h.db, p, ownScope(p), { name: 'members-own' });
    for (const id of ['key_unknown', own.key.id]) {
      for (const action of ['revoke', 'rotate']) {
        expectError(await h.request('POST', `/v1/admin/api-keys/${id}/${action}`, { token: admin.token! }), 404, 'not_found');
      }
    }
    expect((await h.request('GET', '/v1/me', { token: own.secret })).status).toBe(200);
  });
});
