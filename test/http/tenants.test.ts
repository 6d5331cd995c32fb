import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLiveUserToken } from '../../src/domain/identity/user-tokens.js';
import { createKey, tenantScope } from '../../src/domain/keys/keys.service.js';
import { DEFAULT_TENANT_ID, type Harness, PASSWORD, type Reply, startHarness } from '../helpers/harness.js';
import { expect422 } from '../helpers/expect-errors.js';

let h: Harness;
let root: string;
let acmeAdmin: { id: string; email: string; token: string | null };
let acmeMember: { id: string; email: string; token: string | null };

const ID_PATTERN = '^[a-z0-9][a-z0-9\\-]{1,62}$';

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  await h.seedTenant('acme', 'Acme');
  acmeAdmin = await h.seedUser('acme', 'admin');
  acmeMember = await h.seedUser('acme', 'member');
});
afterAll(() => h.close());

async function createTenant(id: string, email = `owner@${id}.test`, name = `Tenant ${id}`) {
  const res = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id, name, initial_admin_email: email } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const OPERATIONS: [string, string, unknown?][] = [
  ['GET', '/v1/platform/tenants'],
  ['POST', '/v1/platform/tenants', { id: 'zeta', name: 'Zeta', initial_admin_email: 'z@zeta.test' }],
  ['GET', '/v1/platform/tenants/acme'],
  ['PATCH', '/v1/platform/tenants/acme', { name: 'Renamed' }],
  ['POST', '/v1/platform/tenants/acme/suspend'],
  ['POST', '/v1/platform/tenants/acme/activate'],
  ['DELETE', '/v1/platform/tenants/acme'],
  ['GET', '/v1/platform/users'],
];

describe('access', () => {
  it('answers 401 without a credential', async () => {
    for (const [method, path, body] of OPERATIONS) {
      const res = await h.request(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.code).toBe('unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('answers 403 to tenant admins and members', async () => {
    for (const token of [acmeAdmin.token!, acmeMember.token!]) {
      for (const [method, path, body] of OPERATIONS) {
        const res = await h.request(method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('insufficient_role');
      }
    }
    // Nothing happened to acme on the way.
    expect((await h.request('GET', '/v1/platform/tenants/acme', { token: root })).body).toMatchObject({ name: 'Acme', status: 'active' });
  });

  it('answers 403 to a tenant-wide admin key', async () => {
    const principal = { userId: acmeAdmin.id, email: acmeAdmin.email, role: 'admin' as const, tenantId: 'acme', homeTenantId: 'acme', method: 'session' as const, sessionId: null, apiKeyId: null };
    const { secret } = await createKey(h.db, principal, tenantScope(principal), { name: 'ci', role: 'admin' });
    const res = await h.request('GET', '/v1/platform/tenants', { token: secret });
    expect(res.status).toBe(403);
  });
});

describe('POST /v1/platform/tenants', () => {
  it('requires a body with every field', async () => {
    const none = await h.request('POST', '/v1/platform/tenants', { token: root });
    expect(none.status).toBe(422);
    // Fastify hands an absent body to the validator as null; its msg/type is the shared validator's business.
    expect(none.body.detail).toEqual([expect.objectContaining({ loc: ['body'], input: null })]);

    const empty = await h.request('POST', '/v1/platform/tenants', { token: root, body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toHaveLength(3);
    expect422(
      empty,
      { loc: ['body', 'id'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'initial_admin_email'], msg: 'Field required', type: 'missing', input: {} },
    );
  });

  it('validates the id pattern (2..63 lowercase letters, digits, hyphens; no leading hyphen)', async () => {
    for (const id of ['Acme', 'a', '-lead', 'under_score', 'dot.ted', 'x'.repeat(64), '']) {
      const res = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id, name: 'X', initial_admin_email: 'x@x.test' } });
      expect422(res, { loc: ['body', 'id'], msg: `String should match pattern '${ID_PATTERN}'`, type: 'string_pattern_mismatch', input: id, ctx: { pattern: ID_PATTERN } });
      expect(res.body.detail).toHaveLength(1);
    }
    const wrongType = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 42, name: 'X', initial_admin_email: 'x@x.test' } });
    expect422(wrongType, { loc: ['body', 'id'], msg: 'Input should be a valid string', type: 'string_type', input: 42 });
  });

  it('validates the name length (1..256) and the email', async () => {
    const short = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'ok-id', name: '', initial_admin_email: 'x@x.test' } });
    expect422(short, { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } });
    const long = 'n'.repeat(257);
    const tooLong = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'ok-id', name: long, initial_admin_email: 'x@x.test' } });
    expect422(tooLong, { loc: ['body', 'name'], msg: 'String should have at most 256 characters', type: 'string_too_long', input: long, ctx: { max_length: 256 } });
    const email = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'ok-id', name: 'Ok', initial_admin_email: 'not-an-email' } });
    expect422(email, {
      loc: ['body', 'initial_admin_email'],
      msg: 'value is not a valid email address',
      type: 'value_error',
      input: 'not-an-email',
      ctx: { reason: 'not an email address' },
    });
    // None of the invalid requests created anything.
    expect((await h.request('GET', '/v1/platform/tenants/ok-id', { token: root })).status).toBe(404);
  });

  it('creates the tenant, its invited admin and a live invitation', async () => {
    const res = await h.request('POST', '/v1/platform/tenants', {
      token: root,
      body: { id: 'initech', name: 'Initech', initial_admin_email: 'bill@initech.test' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: 'initech',
      name: 'Initech',
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
      invitation: { token: expect.any(String), url: expect.any(String), expires_at: expect.any(String) },
    });
    const { token, url, expires_at } = res.body.invitation;
    expect(url).toBe(`${h.baseUrl}/app/accept-invite?token=${encodeURIComponent(token)}`);
    const lifetime = Date.parse(expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(7 * 24 * 3_600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 24 * 3_600_000);

    const live = await findLiveUserToken(h.db, token, 'invite');
    expect(live?.user).toMatchObject({ tenant_id: 'initech', email: 'bill@initech.test', role: 'admin', status: 'invited', password_hash: null });
    expect(live?.token.expires_at.toISOString()).toBe(expires_at);

    const detail = await h.request('GET', '/v1/platform/tenants/initech', { token: root });
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({ id: 'initech', name: 'Initech', status: 'active', created_at: res.body.created_at, updated_at: res.body.updated_at });
    const users = await h.request('GET', '/v1/platform/users?tenant_id=initech', { token: root });
    expect(users.body.items).toEqual([expect.objectContaining({ email: 'bill@initech.test', role: 'admin', status: 'invited' })]);
  });

  it('refuses a taken id with 409 tenant_exists', async () => {
    for (const id of ['acme', DEFAULT_TENANT_ID]) {
      const res = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id, name: 'Again', initial_admin_email: `new@${id}.test` } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: expect.stringContaining(id), code: 'tenant_exists' });
    }
  });

  it('refuses an email of a live user with 409 email_taken, and creates nothing', async () => {
    const res = await h.request('POST', '/v1/platform/tenants', {
      token: root,
      body: { id: 'hooli', name: 'Hooli', initial_admin_email: acmeMember.email.toUpperCase() },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('email_taken');
    expect((await h.request('GET', '/v1/platform/tenants/hooli', { token: root })).status).toBe(404);
    // The id was not consumed by the failed attempt.
    await createTenant('hooli');
  });
});

describe('GET /v1/platform/tenants', () => {
  it('validates its query', async () => {
    const status = await h.request('GET', '/v1/platform/tenants?status=gone', { token: root });
    expect422(status, { loc: ['query', 'status'], msg: "Input should be 'active' or 'suspended'", type: 'enum', input: 'gone', ctx: { expected: "'active' or 'suspended'" } });
    const limit = await h.request('GET', '/v1/platform/tenants?limit=0', { token: root });
    expect422(limit, { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } });
    const big = await h.request('GET', '/v1/platform/tenants?limit=201', { token: root });
    expect422(big, { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 200', type: 'less_than_equal', input: 201, ctx: { le: 200 } });
    const cursor = await h.request('GET', '/v1/platform/tenants?cursor=nonsense', { token: root });
    expect422(cursor, { loc: ['query', 'cursor'], msg: 'Cursor is not one this API issued', type: 'value_error', input: 'nonsense' });
  });

  it('lists newest first, filters by status and q, and pages without duplicates', async () => {
    await createTenant('list-one', undefined, 'Umbrella Corp');
    await createTenant('list-two', undefined, 'Umbrella Health');
    await h.request('POST', '/v1/platform/tenants/list-two/suspend', { token: root });

    const all = await h.request('GET', '/v1/platform/tenants', { token: root });
    expect(all.status).toBe(200);
    const ids = all.body.items.map((t: { id: string }) => t.id);
    expect(ids.indexOf('list-two')).toBeLessThan(ids.indexOf('list-one'));
    expect(ids).toContain(DEFAULT_TENANT_ID);
    expect(all.body.next_cursor).toBeNull();

    const q = await h.request('GET', '/v1/platform/tenants?q=umbrella', { token: root });
    expect(q.body.items.map((t: { id: string }) => t.id)).toEqual(['list-two', 'list-one']);
    const byId = await h.request('GET', '/v1/platform/tenants?q=LIST-ONE', { token: root });
    expect(byId.body.items.map((t: { id: string }) => t.id)).toEqual(['list-one']);
    const wildcard = await h.request('GET', '/v1/platform/tenants?q=%25', { token: root });
    expect(wildcard.body.items).toEqual([]);

    const suspended = await h.request('GET', '/v1/platform/tenants?status=suspended', { token: root });
    expect(suspended.body.items.map((t: { id: string }) => t.id)).toEqual(['list-two']);

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply = await h.request('GET', `/v1/platform/tenants?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: root });
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      walked.push(...page.body.items.map((t: { id: string }) => t.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(ids);
  });
});

describe('GET and PATCH /v1/platform/tenants/{tenant_id}', () => {
  it('answers 404 for an unknown tenant', async () => {
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'X' }]] as const) {
      const res = await h.request(method, '/v1/platform/tenants/nope', { token: root, body });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('validates the new name', async () => {
    const res = await h.request('PATCH', '/v1/platform/tenants/acme', { token: root, body: { name: '' } });
    expect422(res, { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } });
    const type = await h.request('PATCH', '/v1/platform/tenants/acme', { token: root, body: { name: null } });
    expect422(type, { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: null });
  });

  it('renames, and leaves the tenant as it was for an empty patch', async () => {
    const before = await h.request('GET', '/v1/platform/tenants/acme', { token: root });
    const res = await h.request('PATCH', '/v1/platform/tenants/acme', { token: root, body: { name: 'Acme Corporation' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'acme', name: 'Acme Corporation', status: 'active', created_at: before.body.created_at });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.body.updated_at));
    const same = await h.request('PATCH', '/v1/platform/tenants/acme', { token: root, body: {} });
    expect(same.status).toBe(200);
    expect(same.body.name).toBe('Acme Corporation');
  });
});

describe('suspend and activate', () => {
  it('answers 404 for unknown tenants', async () => {
    for (const action of ['suspend', 'activate']) {
      expect((await h.request('POST', `/v1/platform/tenants/nope/${action}`, { token: root })).status).toBe(404);
    }
  });

  it("locks the tenant's credentials out while suspended and lets them back in on activate", async () => {
    await h.seedTenant('wayne', 'Wayne');
    const user = await h.seedUser('wayne', 'admin');
    const principal = { userId: user.id, email: user.email, role: 'admin' as const, tenantId: 'wayne', homeTenantId: 'wayne', method: 'session' as const, sessionId: null, apiKeyId: null };
    const { secret } = await createKey(h.db, principal, tenantScope(principal), { name: 'batch', role: 'member' });
    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(200);
    expect((await h.request('GET', '/v1/me', { token: secret })).status).toBe(200);

    const activeAlready = await h.request('POST', '/v1/platform/tenants/wayne/activate', { token: root });
    expect(activeAlready.status).toBe(409);
    expect(activeAlready.body.code).toBe('tenant_active');

    const suspended = await h.request('POST', '/v1/platform/tenants/wayne/suspend', { token: root });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ id: 'wayne', status: 'suspended' });
    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(401);
    expect((await h.request('GET', '/v1/me', { token: secret })).status).toBe(401);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(401);
    // The platform admin can still look after a suspended tenant.
    expect((await h.request('GET', '/v1/admin/users', { token: root, tenant: 'wayne' })).status).toBe(200);

    const again = await h.request('POST', '/v1/platform/tenants/wayne/suspend', { token: root });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('tenant_suspended');

    const activated = await h.request('POST', '/v1/platform/tenants/wayne/activate', { token: root });
    expect(activated.status).toBe(200);
    expect(activated.body.status).toBe('active');
    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(200);
    expect((await h.request('GET', '/v1/me', { token: secret })).status).toBe(200);
  });

  it('refuses to suspend or delete the home tenant of a platform admin', async () => {
    for (const [method, path] of [['POST', `/v1/platform/tenants/${DEFAULT_TENANT_ID}/suspend`], ['DELETE', `/v1/platform/tenants/${DEFAULT_TENANT_ID}`]]) {
      const res = await h.request(method!, path!, { token: root });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('tenant_hosts_platform_admin');
    }
    expect((await h.request('GET', `/v1/platform/tenants/${DEFAULT_TENANT_ID}`, { token: root })).body.status).toBe('active');
  });
});

describe('DELETE /v1/platform/tenants/{tenant_id}', () => {
  it('answers 404 for an unknown tenant', async () => {
    const res = await h.request('DELETE', '/v1/platform/tenants/nope', { token: root });
    expect(res.status).toBe(404);
  });

  it('soft-deletes: the tenant, its users and their credentials are gone, its id stays reserved', async () => {
    await h.seedTenant('doomed', 'Doomed');
    const admin = await h.seedUser('doomed', 'admin');
    const member = await h.seedUser('doomed', 'member');
    const invite = await h.request('POST', '/v1/admin/users', { token: admin.token!, body: { email: 'pending@doomed.test' } });
    expect(invite.status).toBe(201);

    const res = await h.request('DELETE', '/v1/platform/tenants/doomed', { token: root });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');

    expect((await h.request('GET', '/v1/platform/tenants/doomed', { token: root })).status).toBe(404);
    const list = await h.request('GET', '/v1/platform/tenants?limit=200', { token: root });
    expect(list.body.items.map((t: { id: string }) => t.id)).not.toContain('doomed');
    expect((await h.request('GET', '/v1/platform/users?tenant_id=doomed', { token: root })).body.items).toEqual([]);

    for (const token of [admin.token!, member.token!]) expect((await h.request('GET', '/v1/me', { token })).status).toBe(401);
    const sessions = await h.db.selectFrom('sessions').select(['revoked_at']).where('user_id', 'in', [admin.id, member.id]).execute();
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((s) => s.revoked_at !== null)).toBe(true);
    expect(await findLiveUserToken(h.db, invite.body.invitation.token, 'invite')).toBeUndefined();
    expect((await h.request('GET', '/v1/admin/users', { token: root, tenant: 'doomed' })).status).toBe(404);

    for (const [method, path] of [['DELETE', '/v1/platform/tenants/doomed'], ['POST', '/v1/platform/tenants/doomed/suspend'], ['PATCH', '/v1/platform/tenants/doomed']]) {
      expect((await h.request(method!, path!, { token: root, body: method === 'PATCH' ? { name: 'x' } : undefined })).status).toBe(404);
    }
    const reuse = await h.request('POST', '/v1/platform/tenants', { token: root, body: { id: 'doomed', name: 'Again', initial_admin_email: 'new@doomed.test' } });
    expect(reuse.status).toBe(409);
    expect(reuse.body.code).toBe('tenant_exists');

    // The deleted users' emails are free for use elsewhere.
    await createTenant('reborn', member.email);
  });
});

describe('GET /v1/platform/users', () => {
  it('validates its query', async () => {
    const role = await h.request('GET', '/v1/platform/users?role=owner', { token: root });
    expect422(role, {
      loc: ['query', 'role'],
      msg: "Input should be 'platform_admin', 'admin' or 'member'",
      type: 'enum',
      input: 'owner',
      ctx: { expected: "'platform_admin', 'admin' or 'member'" },
    });
    const status = await h.request('GET', '/v1/platform/users?status=deleted', { token: root });
    expect422(status, { loc: ['query', 'status'], type: 'enum', msg: "Input should be 'invited', 'active' or 'suspended'", input: 'deleted', ctx: { expected: "'invited', 'active' or 'suspended'" } });
  });

  it('lists users of every tenant with filters', async () => {
    const all = await h.request('GET', '/v1/platform/users?limit=200', { token: root });
    expect(all.status).toBe(200);
    const tenants = new Set(all.body.items.map((u: { tenant_id: string }) => u.tenant_id));
    expect([...tenants]).toEqual(expect.arrayContaining([DEFAULT_TENANT_ID, 'acme', 'initech']));
    expect(all.body.items[0]).toEqual({
      id: expect.stringMatching(/^usr_/),
      tenant_id: expect.any(String),
      email: expect.any(String),
      display_name: null,
      role: expect.any(String),
      status: expect.any(String),
      created_at: expect.any(String),
      last_login_at: null,
    });

    const acme = await h.request('GET', '/v1/platform/users?tenant_id=acme', { token: root });
    expect(acme.body.items.map((u: { id: string }) => u.id).sort()).toEqual([acmeAdmin.id, acmeMember.id].sort());
    const admins = await h.request('GET', '/v1/platform/users?tenant_id=acme&role=admin', { token: root });
    expect(admins.body.items.map((u: { id: string }) => u.id)).toEqual([acmeAdmin.id]);
    const invited = await h.request('GET', '/v1/platform/users?status=invited', { token: root });
    expect(invited.body.items.every((u: { status: string }) => u.status === 'invited')).toBe(true);
    expect(invited.body.items.map((u: { email: string }) => u.email)).toContain('bill@initech.test');
    const q = await h.request('GET', `/v1/platform/users?q=${encodeURIComponent('BILL@INITECH')}`, { token: root });
    expect(q.body.items.map((u: { email: string }) => u.email)).toEqual(['bill@initech.test']);
    const platformAdmins = await h.request('GET', '/v1/platform/users?role=platform_admin', { token: root });
    expect(platformAdmins.body.items).toEqual([expect.objectContaining({ tenant_id: DEFAULT_TENANT_ID, role: 'platform_admin' })]);

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply = await h.request('GET', `/v1/platform/users?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { token: root });
      walked.push(...page.body.items.map((u: { id: string }) => u.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all.body.items.map((u: { id: string }) => u.id));
    expect(new Set(walked).size).toBe(walked.length);
  });
});
