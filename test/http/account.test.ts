// The caller's own account through HTTP: profile and own API keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, tenantScope } from '../../src/domain/keys/keys.service.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let tenantKey: string;
let admin: { id: string; email: string; token: string };
let member: { id: string; email: string; token: string };
let otherTenantAdmin: { id: string; email: string; token: string };

const KEY_FIELDS = ['created_at', 'expires_at', 'last_used_at', 'name', 'prefix', 'public_id', 'revoked_at', 'role'];
const future = () => new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  admin = (await h.seedUser('acme', 'admin')) as typeof admin;
  member = (await h.seedUser('acme', 'member')) as typeof member;
  otherTenantAdmin = (await h.seedUser('globex', 'admin')) as typeof otherTenantAdmin;
  const principal = { userId: admin.id, email: admin.email, role: 'admin' as const, tenantId: 'acme', homeTenantId: 'acme', method: 'session' as const, sessionId: null, apiKeyId: null };
  tenantKey = (await createKey(h.db, principal, tenantScope(principal), { name: 'ci' })).secret;
});
afterAll(() => h.close());

async function newKey(token: string, body: Record<string, unknown> = { name: 'laptop' }) {
  const res = await h.request('POST', '/v1/account/api-keys', { token, body });
  expect(res.status).toBe(201);
  return res.body as { public_id: string; secret: string; role: string };
}

describe('tenant-wide keys on /v1/account', () => {
  it('answers 403 user_required on every own-account operation', async () => {
    const calls: [string, string, unknown?][] = [
      ['PATCH', '/v1/account/profile', { display_name: 'CI' }],
      ['GET', '/v1/account/api-keys'],
      ['POST', '/v1/account/api-keys', { name: 'x' }],
      ['POST', '/v1/account/api-keys/key_x/revoke'],
      ['POST', '/v1/account/api-keys/key_x/rotate'],
    ];
    for (const [method, path, body] of calls) {
      const res = await h.request(method, path, { token: tenantKey, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'user_required' });
    }
  });
});

describe('PATCH /v1/account/profile', () => {
  it('needs a credential', async () => {
    const res = await h.request('PATCH', '/v1/account/profile', { body: { display_name: 'x' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('validates display_name', async () => {
    const empty = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: { display_name: '' } });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([
      { loc: ['body', 'display_name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
    const long = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: { display_name: 'x'.repeat(257) } });
    expect(long.body.detail).toEqual([
      { loc: ['body', 'display_name'], msg: 'String should have at most 256 characters', type: 'string_too_long', input: 'x'.repeat(257), ctx: { max_length: 256 } },
    ]);
    const number = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: { display_name: 42 } });
    expect(number.body.detail).toEqual([{ loc: ['body', 'display_name'], msg: 'Input should be a valid string', type: 'string_type', input: 42 }]);
    const notObject = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: ['x'] });
    expect(notObject.body.detail).toEqual([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type', input: ['x'] }]);
  });

  it('sets, keeps and clears the display name of the caller only', async () => {
    const set = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: { display_name: 'Ada Lovelace' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      id: member.id,
      tenant_id: 'acme',
      email: member.email,
      display_name: 'Ada Lovelace',
      role: 'member',
      status: 'active',
      created_at: expect.any(String),
      last_login_at: expect.any(String),
    });
    const kept = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: {} });
    expect(kept.body.display_name).toBe('Ada Lovelace');
    const me = await h.request('GET', '/v1/me', { token: member.token });
    expect(me.body.user.display_name).toBe('Ada Lovelace');
    const otherMe = await h.request('GET', '/v1/me', { token: admin.token });
    expect(otherMe.body.user.display_name).toBeNull();
    const cleared = await h.request('PATCH', '/v1/account/profile', { token: member.token, body: { display_name: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.display_name).toBeNull();
  });

  it('works with an own API key, which acts as its owner', async () => {
    const key = await newKey(member.token);
    const res = await h.request('PATCH', '/v1/account/profile', { token: key.secret, body: { display_name: 'Via key' } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(member.id);
  });
});

describe('POST /v1/account/api-keys', () => {
  it('needs a credential', async () => {
    const res = await h.request('POST', '/v1/account/api-keys', { body: { name: 'x' } });
    expect(res.status).toBe(401);
  });

  it('validates name, role and expires_at', async () => {
    const missing = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {} }]);
    const empty = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: { name: '' } });
    expect(empty.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
    const long = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: { name: 'k'.repeat(129) } });
    expect(long.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at most 128 characters', type: 'string_too_long', input: 'k'.repeat(129), ctx: { max_length: 128 } },
    ]);
    const role = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: { name: 'x', role: 'owner' } });
    expect(role.body.detail).toEqual([
      { loc: ['body', 'role'], msg: "Input should be 'platform_admin', 'admin' or 'member'", type: 'enum', input: 'owner', ctx: { expected: "'platform_admin', 'admin' or 'member'" } },
    ]);
    const date = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: { name: 'x', expires_at: 'next tuesday' } });
    expect(date.body.detail).toEqual([
      { loc: ['body', 'expires_at'], msg: 'Input should be a valid datetime', type: 'datetime_parsing', input: 'next tuesday', ctx: { format: 'RFC 3339' } },
    ]);
    const past = '2020-01-01T00:00:00.000Z';
    const inPast = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: { name: 'x', expires_at: past } });
    expect(inPast.status).toBe(422);
    expect(inPast.body.detail).toEqual([{ loc: ['body', 'expires_at'], msg: 'Input should be in the future', type: 'datetime_future', input: past }]);
  });

  it('refuses a role above the owner\'s with 403 role_exceeds_owner', async () => {
    for (const role of ['admin', 'platform_admin']) {
      const res = await h.request('POST', '/v1/account/api-keys', { token: member.token, body: { name: 'too much', role } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: `A key cannot hold more than its creator's role: ask for member or less, not ${role}.`, code: 'role_exceeds_owner' });
    }
    const adminKey = await newKey(admin.token, { name: 'as member', role: 'member' });
    const viaKey = await h.request('POST', '/v1/account/api-keys', { token: adminKey.secret, body: { name: 'escalate', role: 'admin' } });
    expect(viaKey.status).toBe(403);
    expect(viaKey.body.code).toBe('role_exceeds_owner');
  });

  it('creates a key with the owner\'s role by default, showing the secret once; it works as a bearer token', async () => {
    const expiresAt = future();
    const res = await h.request('POST', '/v1/account/api-keys', { token: admin.token, body: { name: 'deploy', expires_at: expiresAt } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...KEY_FIELDS, 'secret'].sort());
    expect(res.body).toMatchObject({ name: 'deploy', role: 'admin', revoked_at: null, last_used_at: null, expires_at: expiresAt });
    expect(res.body.public_id).toMatch(/^key_/);
    expect(res.body.secret).toMatch(new RegExp(`^qk_${res.body.public_id}_`));
    expect(res.body.secret.startsWith(res.body.prefix)).toBe(true);
    expect(res.body.prefix.length).toBeLessThan(res.body.secret.length - 20);

    const me = await h.request('GET', '/v1/me', { token: res.body.secret });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role: 'admin', user: { id: admin.id }, auth: { method: 'api_key', api_key_id: res.body.public_id, session_id: null } });

    const member_ = await newKey(member.token, { name: 'reader', role: 'member', expires_at: null });
    expect(member_.role).toBe('member');
  });

  it('stops working once it expires', async () => {
    const key = await newKey(member.token, { name: 'short-lived', expires_at: future() });
    await h.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', key.public_id).execute();
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(401);
  });

  it('stops working when its owner is suspended', async () => {
    const user = await h.seedUser('acme', 'member');
    const key = await newKey(user.token!);
    await h.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(401);
  });
});

describe('GET /v1/account/api-keys', () => {
  it('needs a credential', async () => {
    expect((await h.request('GET', '/v1/account/api-keys')).status).toBe(401);
  });

  it('validates limit', async () => {
    const res = await h.request('GET', '/v1/account/api-keys?limit=0', { token: member.token });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } }]);
  });

  it('lists only the caller\'s own keys, newest first, in pages, never with a secret', async () => {
    const user = await h.seedUser('acme', 'member');
    const first = await newKey(user.token!, { name: 'one' });
    const second = await newKey(user.token!, { name: 'two' });
    await newKey(admin.token, { name: 'someone else' });
    await newKey(otherTenantAdmin.token, { name: 'another tenant' });

    const res = await h.request('GET', '/v1/account/api-keys', { token: user.token! });
    expect(res.status).toBe(200);
    expect(res.body.items.map((k: { public_id: string }) => k.public_id)).toEqual([second.public_id, first.public_id]);
    expect(res.body.next_cursor).toBeNull();
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(KEY_FIELDS);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(first.secret);
    expect(text).not.toContain(second.secret);
    expect(text).not.toContain('token_hash');

    const page1 = await h.request('GET', '/v1/account/api-keys?limit=1', { token: user.token! });
    expect(page1.body.items[0].public_id).toBe(second.public_id);
    const page2 = await h.request('GET', `/v1/account/api-keys?limit=1&cursor=${page1.body.next_cursor}`, { token: user.token! });
    expect(page2.body.items[0].public_id).toBe(first.public_id);
    expect(page2.body.next_cursor).toBeNull();
  });

  it('does not list tenant-wide keys', async () => {
    const res = await h.request('GET', '/v1/account/api-keys', { token: admin.token });
    expect(res.body.items.map((k: { name: string }) => k.name)).not.toContain('ci');
  });
});

describe('POST /v1/account/api-keys/{public_id}/revoke', () => {
  it('needs a credential', async () => {
    expect((await h.request('POST', '/v1/account/api-keys/key_x/revoke')).status).toBe(401);
  });

  it('answers 404 for an unknown key, another user\'s key, another tenant\'s key and a tenant-wide key', async () => {
    const mine = await newKey(member.token);
    const sameTenant = await newKey(admin.token);
    const otherTenant = await newKey(otherTenantAdmin.token);
    const tenantWide = await h.db.selectFrom('api_keys').select('id').where('scope', '=', 'tenant').executeTakeFirstOrThrow();
    for (const id of ['key_nope', sameTenant.public_id, otherTenant.public_id, tenantWide.id]) {
      const res = await h.request('POST', `/v1/account/api-keys/${id}/revoke`, { token: member.token });
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await h.request('GET', '/v1/me', { token: sameTenant.secret })).status).toBe(200);
    expect((await h.request('GET', '/v1/me', { token: mine.secret })).status).toBe(200);
  });

  it('revokes the key, which then gets 401; a second revoke is 409', async () => {
    const key = await newKey(member.token);
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(200);
    const res = await h.request('POST', `/v1/account/api-keys/${key.public_id}/revoke`, { token: member.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(KEY_FIELDS);
    expect(res.body).toMatchObject({ public_id: key.public_id, revoked_at: expect.any(String) });
    const me = await h.request('GET', '/v1/me', { token: key.secret });
    expect(me.status).toBe(401);
    expect(me.headers.get('www-authenticate')).toBe('Bearer');

    const again = await h.request('POST', `/v1/account/api-keys/${key.public_id}/revoke`, { token: member.token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String), code: 'key_revoked' });
  });
});

describe('POST /v1/account/api-keys/{public_id}/rotate', () => {
  it('needs a credential', async () => {
    expect((await h.request('POST', '/v1/account/api-keys/key_x/rotate')).status).toBe(401);
  });

  it('answers 404 for another user\'s key and another tenant\'s key', async () => {
    const sameTenant = await newKey(admin.token);
    const otherTenant = await newKey(otherTenantAdmin.token);
    for (const key of [sameTenant, otherTenant]) {
      const res = await h.request('POST', `/v1/account/api-keys/${key.public_id}/rotate`, { token: member.token });
      expect(res.status).toBe(404);
      expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(200);
    }
  });

  it('replaces the secret: the new one works and the old one gets 401', async () => {
    const key = await newKey(member.token, { name: 'rotating' });
    const res = await h.request('POST', `/v1/account/api-keys/${key.public_id}/rotate`, { token: member.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...KEY_FIELDS, 'secret'].sort());
    expect(res.body).toMatchObject({ public_id: key.public_id, name: 'rotating', revoked_at: null });
    expect(res.body.secret).not.toBe(key.secret);
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(401);
    expect((await h.request('GET', '/v1/me', { token: res.body.secret })).status).toBe(200);
  });

  it('refuses a credential below the key\'s role with 403 role_exceeds_owner, and the key keeps its secret', async () => {
    const memberKey = await newKey(admin.token, { name: 'as member', role: 'member' });
    const adminKey = await newKey(admin.token, { name: 'full', role: 'admin' });
    const res = await h.request('POST', `/v1/account/api-keys/${adminKey.public_id}/rotate`, { token: memberKey.secret });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'role_exceeds_owner' });
    expect((await h.request('GET', '/v1/me', { token: adminKey.secret })).body.role).toBe('admin');
    // Its own key, of its own role, it may rotate; the owner's session may rotate either.
    expect((await h.request('POST', `/v1/account/api-keys/${memberKey.public_id}/rotate`, { token: memberKey.secret })).status).toBe(200);
    expect((await h.request('POST', `/v1/account/api-keys/${adminKey.public_id}/rotate`, { token: admin.token })).status).toBe(200);
  });

  it('answers 409 for a revoked or expired key', async () => {
    const revoked = await newKey(member.token);
    await h.request('POST', `/v1/account/api-keys/${revoked.public_id}/revoke`, { token: member.token });
    const res = await h.request('POST', `/v1/account/api-keys/${revoked.public_id}/rotate`, { token: member.token });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('key_revoked');

    const expired = await newKey(member.token, { name: 'old', expires_at: future() });
    await h.db.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', expired.public_id).execute();
    const late = await h.request('POST', `/v1/account/api-keys/${expired.public_id}/rotate`, { token: member.token });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('key_expired');
  });
});

describe('platform admin acting on another tenant', () => {
  it('manages the keys it owns in its home tenant', async () => {
    const token = await h.adminToken();
    const res = await h.request('POST', '/v1/account/api-keys', { token, tenant: 'acme', body: { name: 'platform' } });
    expect(res.status).toBe(201);
    const stored = await h.db.selectFrom('api_keys').select('tenant_id').where('id', '=', res.body.public_id).executeTakeFirstOrThrow();
    expect(stored.tenant_id).toBe('default');
    const listed = await h.request('GET', '/v1/account/api-keys', { token, tenant: 'acme' });
    expect(listed.body.items.map((k: { public_id: string }) => k.public_id)).toContain(res.body.public_id);
    const me = await h.request('GET', '/v1/me', { token: res.body.secret });
    expect(me.body).toMatchObject({ acting_tenant_id: 'default', role: 'platform_admin' });
  });
});
