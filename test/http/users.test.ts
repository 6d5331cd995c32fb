import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/db/schema.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { findLiveUserToken } from '../../src/domain/identity/user-tokens.js';
import { createKey, ownScope, tenantScope } from '../../src/domain/keys/keys.service.js';
import { DEFAULT_TENANT_ID, type Harness, PASSWORD, type Reply, startHarness } from '../helpers/harness.js';
import { expect422, expectError } from '../helpers/expect-errors.js';

type Seeded = { id: string; email: string; token: string | null };

let h: Harness;
let root: string;
let rootId: string;
let a1: Seeded; // acme admin (the usual caller)
let a2: Seeded; // another acme admin
let m1: Seeded; // acme member
let g1: Seeded; // globex admin
let gm: Seeded; // globex member

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  rootId = (await h.request('GET', '/v1/me', { token: root })).body.user.id;
  await h.seedTenant('acme', 'Acme');
  await h.seedTenant('globex', 'Globex');
  a1 = await h.seedUser('acme', 'admin');
  a2 = await h.seedUser('acme', 'admin');
  m1 = await h.seedUser('acme', 'member');
  g1 = await h.seedUser('globex', 'admin');
  gm = await h.seedUser('globex', 'member');
});
afterAll(() => h.close());

function principalOf(user: Seeded, tenantId: string, role: Role): Principal {
  return { userId: user.id, email: user.email, role, tenantId, homeTenantId: tenantId, method: 'session', sessionId: null, apiKeyId: null };
}

async function invite(token: string, body: Record<string, unknown>, tenant?: string) {
  const res = await h.request('POST', '/v1/admin/users', { token, body, tenant });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const PER_USER_ACTIONS = ['promote', 'demote', 'suspend', 'activate', 'reset-password', 'resend-invite', 'revoke-invite'];

function operations(userId: string): [string, string, unknown?][] {
  return [
    ['GET', '/v1/admin/users'],
    ['POST', '/v1/admin/users', { email: 'someone@example.test' }],
    ['GET', `/v1/admin/users/${userId}`],
    ['DELETE', `/v1/admin/users/${userId}`],
    ...PER_USER_ACTIONS.map((a): [string, string] => ['POST', `/v1/admin/users/${userId}/${a}`]),
  ];
}

describe('access', () => {
  it('answers 401 without a credential', async () => {
    for (const [method, path, body] of operations(m1.id)) {
      const res = await h.request(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('answers 403 to members, and a member-role tenant key', async () => {
    const { secret } = await createKey(h.db, principalOf(a1, 'acme', 'admin'), tenantScope(principalOf(a1, 'acme', 'admin')), { name: 'reader', role: 'member' });
    for (const token of [m1.token!, secret]) {
      for (const [method, path, body] of operations(a2.id)) {
        const res = await h.request(method, path, { token, body });
        expectError(res, 403, 'insufficient_role');
      }
    }
  });

  it("answers 404 for another tenant's user, never revealing it exists", async () => {
    for (const [method, path, body] of operations(gm.id).slice(2)) {
      const res = await h.request(method, path, { token: a1.token!, body });
      expectError(res, 404, 'not_found');
    }
    for (const [method, path, body] of operations('usr_doesnotexist').slice(2)) {
      expectError(await h.request(method, path, { token: a1.token!, body }), 404, 'not_found');
    }
    // Nothing changed for the globex member.
    expect((await h.request('GET', `/v1/admin/users/${gm.id}`, { token: g1.token! })).body).toMatchObject({ role: 'member', status: 'active' });
  });

  it('answers 404 to a tenant admin naming another tenant with X-Tenant-Id', async () => {
    for (const [method, path, body] of operations(gm.id)) {
      const res = await h.request(method, path, { token: a1.token!, body, tenant: 'globex' });
      expectError(res, 404, 'not_found');
    }
  });

  it('lets a platform admin act on any tenant with X-Tenant-Id', async () => {
    const list = await h.request('GET', '/v1/admin/users', { token: root, tenant: 'globex' });
    expect(list.status).toBe(200);
    expect(list.body.items.map((u: { id: string }) => u.id).sort()).toEqual([g1.id, gm.id].sort());
    const created = await invite(root, { email: 'hired-by-root@globex.test' }, 'globex');
    expect(created.tenant_id).toBe('globex');
    expect((await h.request('GET', `/v1/admin/users/${created.id}`, { token: g1.token! })).status).toBe(200);
    // Without the header it acts on its own tenant, where that user does not live.
    expect((await h.request('GET', `/v1/admin/users/${created.id}`, { token: root })).status).toBe(404);
  });

  it('lets a tenant-wide admin key administer users', async () => {
    const { secret } = await createKey(h.db, principalOf(a1, 'acme', 'admin'), tenantScope(principalOf(a1, 'acme', 'admin')), { name: 'hr-sync', role: 'admin' });
    const res = await h.request('GET', `/v1/admin/users/${m1.id}`, { token: secret });
    expect(res.status).toBe(200);
  });
});

describe('POST /v1/admin/users', () => {
  it('validates the body', async () => {
    const empty = await h.request('POST', '/v1/admin/users', { token: a1.token!, body: {} });
    expect(empty.body.detail).toEqual([{ loc: ['body', 'email'], msg: 'Field required', type: 'missing', input: {} }]);
    expect(empty.status).toBe(422);
    const email = await h.request('POST', '/v1/admin/users', { token: a1.token!, body: { email: 'nope' } });
    expect422(email, { loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error', input: 'nope', ctx: { reason: 'not an email address' } });
    const role = await h.request('POST', '/v1/admin/users', { token: a1.token!, body: { email: 'r@acme.test', role: 'platform_admin' } });
    expect422(role, { loc: ['body', 'role'], msg: "Input should be 'member' or 'admin'", type: 'enum', input: 'platform_admin', ctx: { expected: "'member' or 'admin'" } });
    const long = 'd'.repeat(129);
    const name = await h.request('POST', '/v1/admin/users', { token: a1.token!, body: { email: 'r@acme.test', display_name: long } });
    expect422(name, { loc: ['body', 'display_name'], msg: 'String should have at most 128 characters', type: 'string_too_long', input: long, ctx: { max_length: 128 } });
    const blank = await h.request('POST', '/v1/admin/users', { token: a1.token!, body: { email: 'r@acme.test', display_name: '' } });
    expect422(blank, { loc: ['body', 'display_name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } });
    const type = await h.request('POST', '/v1/admin/users', { token: a1.token!, body: { email: 7 } });
    expect422(type, { loc: ['body', 'email'], msg: 'Input should be a valid string', type: 'string_type', input: 7 });
    expect((await h.request('GET', '/v1/admin/users?q=r@acme.test', { token: a1.token! })).body.items).toEqual([]);
  });

  it('invites a member by default, with a live invitation', async () => {
    const body = await invite(a1.token!, { email: 'new.member@acme.test' });
    expect(body).toEqual({
      id: expect.stringMatching(/^usr_/),
      tenant_id: 'acme',
      email: 'new.member@acme.test',
      display_name: null,
      role: 'member',
      status: 'invited',
      created_at: expect.any(String),
      last_login_at: null,
      invitation: { token: expect.any(String), url: expect.any(String), expires_at: expect.any(String) },
    });
    expect(body.invitation.url).toBe(`${h.baseUrl}/app/accept-invite?token=${encodeURIComponent(body.invitation.token)}`);
    const live = await findLiveUserToken(h.db, body.invitation.token, 'invite');
    expect(live?.user.id).toBe(body.id);
    expect(live?.token.created_by).toBe(a1.id);
  });

  it('invites an admin with a display name', async () => {
    const body = await invite(a1.token!, { email: 'boss@acme.test', role: 'admin', display_name: 'The Boss' });
    expect(body).toMatchObject({ role: 'admin', display_name: 'The Boss', status: 'invited' });
  });

  it('refuses an email any live user holds, in any tenant and any case', async () => {
    for (const email of [m1.email, gm.email.toUpperCase(), 'new.member@acme.test']) {
      expectError(await h.request('POST', '/v1/admin/users', { token: a1.token!, body: { email } }), 409, 'email_taken');
    }
  });
});

describe('GET /v1/admin/users', () => {
  it('validates its query', async () => {
    const status = await h.request('GET', '/v1/admin/users?status=gone', { token: a1.token! });
    expect422(status, { loc: ['query', 'status'], msg: "Input should be 'invited', 'active' or 'suspended'", type: 'enum', input: 'gone', ctx: { expected: "'invited', 'active' or 'suspended'" } });
    const limit = await h.request('GET', '/v1/admin/users?limit=abc', { token: a1.token! });
    expect422(limit, { loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'int_type', input: 'abc' });
  });

  it("lists only the tenant's users, with filters and paging", async () => {
    const all = await h.request('GET', '/v1/admin/users', { token: a1.token! });
    expect(all.status).toBe(200);
    expect(all.body.items.every((u: { tenant_id: string }) => u.tenant_id === 'acme')).toBe(true);
    const ids = all.body.items.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([a1.id, a2.id, m1.id]));
    expect(ids).not.toContain(gm.id);

    const invited = await h.request('GET', '/v1/admin/users?status=invited', { token: a1.token! });
    expect(invited.body.items.map((u: { email: string }) => u.email)).toEqual(['boss@acme.test', 'new.member@acme.test']);
    const admins = await h.request('GET', '/v1/admin/users?role=admin&status=active', { token: a1.token! });
    expect(admins.body.items.map((u: { id: string }) => u.id).sort()).toEqual([a1.id, a2.id].sort());
    const q = await h.request('GET', '/v1/admin/users?q=the%20boss', { token: a1.token! });
    expect(q.body.items.map((u: { email: string }) => u.email)).toEqual(['boss@acme.test']);
    // The list is the acting tenant's: a tenant_id in the query is no parameter of it, and refused.
    const sneaky = await h.request('GET', '/v1/admin/users?tenant_id=globex', { token: a1.token! });
    expect422(sneaky, { loc: ['query', 'tenant_id'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'globex' });

    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Reply = await h.request('GET', `/v1/admin/users?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { token: a1.token! });
      expect(page.body.items).toHaveLength(1);
      walked.push(page.body.items[0].id);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(ids);
  });
});

describe('GET /v1/admin/users/{user_id}', () => {
  it('answers the user record', async () => {
    const res = await h.request('GET', `/v1/admin/users/${m1.id}`, { token: a1.token! });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: m1.id,
      tenant_id: 'acme',
      email: m1.email,
      display_name: null,
      role: 'member',
      status: 'active',
      created_at: expect.any(String),
      last_login_at: expect.any(String),
    });
  });
});

describe('promote and demote', () => {
  it('promotes a member to admin once', async () => {
    const target = await h.seedUser('acme', 'member');
    const res = await h.request('POST', `/v1/admin/users/${target.id}/promote`, { token: a1.token! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, role: 'admin', status: 'active' });
    expect((await h.request('GET', '/v1/admin/users', { token: target.token! })).status).toBe(200);
    expectError(await h.request('POST', `/v1/admin/users/${target.id}/promote`, { token: a1.token! }), 409, 'already_admin');
  });

  it("demotes an admin to member, revoking its admin-level own keys", async () => {
    const target = await h.seedUser('acme', 'admin');
    const adminKey = await createKey(h.db, principalOf(target, 'acme', 'admin'), ownScope(principalOf(target, 'acme', 'admin')), { name: 'mine', role: 'admin' });
    const memberKey = await createKey(h.db, principalOf(target, 'acme', 'admin'), ownScope(principalOf(target, 'acme', 'admin')), { name: 'mine-ro', role: 'member' });
    expect((await h.request('GET', '/v1/admin/users', { token: adminKey.secret })).status).toBe(200);

    const res = await h.request('POST', `/v1/admin/users/${target.id}/demote`, { token: a1.token! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, role: 'member' });
    expectError(await h.request('GET', '/v1/admin/users', { token: target.token! }), 403, 'insufficient_role');
    expect((await h.request('GET', '/v1/me', { token: adminKey.secret })).status).toBe(401);
    expect((await h.request('GET', '/v1/me', { token: memberKey.secret })).status).toBe(200);

    expectError(await h.request('POST', `/v1/admin/users/${target.id}/demote`, { token: a1.token! }), 409, 'already_member');
  });

  it('refuses to demote yourself or a platform admin', async () => {
    expectError(await h.request('POST', `/v1/admin/users/${a1.id}/demote`, { token: a1.token! }), 403, 'cannot_modify_self');
    const defaultAdmin = await h.seedUser(DEFAULT_TENANT_ID, 'admin');
    const otherRoot = await h.seedUser(DEFAULT_TENANT_ID, 'platform_admin');
    expectError(await h.request('POST', `/v1/admin/users/${rootId}/demote`, { token: defaultAdmin.token! }), 403, 'platform_admin_protected');
    expectError(await h.request('POST', `/v1/admin/users/${otherRoot.id}/demote`, { token: root }), 403, 'platform_admin_protected');
    expectError(await h.request('POST', `/v1/admin/users/${rootId}/promote`, { token: defaultAdmin.token! }), 409, 'already_admin');
  });
});

describe('suspend and activate', () => {
  it('suspends an active user, ending its sessions, and reactivates it', async () => {
    const target = await h.seedUser('acme', 'member');
    const res = await h.request('POST', `/v1/admin/users/${target.id}/suspend`, { token: a1.token! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, status: 'suspended' });
    expect((await h.request('GET', '/v1/me', { token: target.token! })).status).toBe(401);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: target.email, password: PASSWORD } })).status).toBe(401);
    expectError(await h.request('POST', `/v1/admin/users/${target.id}/suspend`, { token: a1.token! }), 409, 'user_not_active');

    const activated = await h.request('POST', `/v1/admin/users/${target.id}/activate`, { token: a1.token! });
    expect(activated.status).toBe(200);
    expect(activated.body.status).toBe('active');
    // The old session stays ended; signing in again works.
    expect((await h.request('GET', '/v1/me', { token: target.token! })).status).toBe(401);
    const fresh = await h.login(target.email, PASSWORD);
    expect((await h.request('GET', '/v1/me', { token: fresh })).status).toBe(200);
    expectError(await h.request('POST', `/v1/admin/users/${target.id}/activate`, { token: a1.token! }), 409, 'user_not_suspended');
  });

  it('refuses to suspend an invited user, yourself or a platform admin', async () => {
    const invited = await invite(a1.token!, { email: 'not-yet@acme.test' });
    expectError(await h.request('POST', `/v1/admin/users/${invited.id}/suspend`, { token: a1.token! }), 409, 'user_not_active');
    expectError(await h.request('POST', `/v1/admin/users/${invited.id}/activate`, { token: a1.token! }), 409, 'user_not_suspended');
    expectError(await h.request('POST', `/v1/admin/users/${a1.id}/suspend`, { token: a1.token! }), 403, 'cannot_modify_self');
    const defaultAdmin = await h.seedUser(DEFAULT_TENANT_ID, 'admin');
    expectError(await h.request('POST', `/v1/admin/users/${rootId}/suspend`, { token: defaultAdmin.token! }), 403, 'platform_admin_protected');
    expect((await h.request('GET', '/v1/me', { token: root })).status).toBe(200);
  });
});

describe('reset-password', () => {
  it('issues a one-hour reset token for an active user', async () => {
    const res = await h.request('POST', `/v1/admin/users/${m1.id}/reset-password`, { token: a1.token! });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: expect.objectContaining({ id: m1.id, status: 'active' }),
      reset: { token: expect.any(String), url: expect.any(String), expires_at: expect.any(String) },
    });
    expect(res.body.reset.url).toBe(`${h.baseUrl}/app/reset-password?token=${encodeURIComponent(res.body.reset.token)}`);
    const lifetime = Date.parse(res.body.reset.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(3_600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(3_600_000);
    expect((await findLiveUserToken(h.db, res.body.reset.token, 'reset'))?.user.id).toBe(m1.id);
    // A second reset replaces the first.
    const again = await h.request('POST', `/v1/admin/users/${m1.id}/reset-password`, { token: a1.token! });
    expect(await findLiveUserToken(h.db, res.body.reset.token, 'reset')).toBeUndefined();
    expect(await findLiveUserToken(h.db, again.body.reset.token, 'reset')).toBeDefined();
  });

  it('answers 409 for invited and suspended users', async () => {
    const invited = await invite(a1.token!, { email: 'reset-invited@acme.test' });
    expectError(await h.request('POST', `/v1/admin/users/${invited.id}/reset-password`, { token: a1.token! }), 409, 'user_not_active');
    const suspended = await h.seedUser('acme', 'member', { status: 'suspended' });
    expectError(await h.request('POST', `/v1/admin/users/${suspended.id}/reset-password`, { token: a1.token! }), 409, 'user_not_active');
  });

  it("refuses a tenant admin a platform admin's reset, which would hand over its account", async () => {
    const defaultAdmin = await h.seedUser(DEFAULT_TENANT_ID, 'admin');
    expectError(await h.request('POST', `/v1/admin/users/${rootId}/reset-password`, { token: defaultAdmin.token! }), 403, 'platform_admin_protected');
    const otherRoot = await h.seedUser(DEFAULT_TENANT_ID, 'platform_admin');
    expect((await h.request('POST', `/v1/admin/users/${otherRoot.id}/reset-password`, { token: root })).status).toBe(200);
  });
});

describe('resend-invite and revoke-invite', () => {
  it('replaces the pending invitation', async () => {
    const invited = await invite(a1.token!, { email: 'resend@acme.test' });
    const res = await h.request('POST', `/v1/admin/users/${invited.id}/resend-invite`, { token: a2.token! });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: expect.objectContaining({ id: invited.id, status: 'invited' }),
      invitation: { token: expect.any(String), url: expect.any(String), expires_at: expect.any(String) },
    });
    expect(res.body.invitation.token).not.toBe(invited.invitation.token);
    expect(await findLiveUserToken(h.db, invited.invitation.token, 'invite')).toBeUndefined();
    const live = await findLiveUserToken(h.db, res.body.invitation.token, 'invite');
    expect(live?.user.id).toBe(invited.id);
    expect(live?.token.created_by).toBe(a2.id);
  });

  it('revokes the pending invitation; the user stays invited and can be sent a new one', async () => {
    const invited = await invite(a1.token!, { email: 'revoke@acme.test' });
    const res = await h.request('POST', `/v1/admin/users/${invited.id}/revoke-invite`, { token: a1.token! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invited.id, status: 'invited', email: 'revoke@acme.test' });
    expect(res.body.invitation).toBeUndefined();
    expect(await findLiveUserToken(h.db, invited.invitation.token, 'invite')).toBeUndefined();
    const resent = await h.request('POST', `/v1/admin/users/${invited.id}/resend-invite`, { token: a1.token! });
    expect(await findLiveUserToken(h.db, resent.body.invitation.token, 'invite')).toBeDefined();
  });

  it('answers 409 invitation_not_pending to a second revoke, and to a revoke of an expired invitation', async () => {
    const invited = await invite(a1.token!, { email: 'revoke-twice@acme.test' });
    expect((await h.request('POST', `/v1/admin/users/${invited.id}/revoke-invite`, { token: a1.token! })).status).toBe(200);
    expectError(await h.request('POST', `/v1/admin/users/${invited.id}/revoke-invite`, { token: a2.token! }), 409, 'invitation_not_pending');

    const lapsed = await invite(a1.token!, { email: 'revoke-expired@acme.test' });
    await h.db.updateTable('user_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', lapsed.id).execute();
    expectError(await h.request('POST', `/v1/admin/users/${lapsed.id}/revoke-invite`, { token: a1.token! }), 409, 'invitation_not_pending');

    // A fresh invitation can be revoked again.
    const resent = await h.request('POST', `/v1/admin/users/${invited.id}/resend-invite`, { token: a1.token! });
    expect(resent.status).toBe(200);
    expect((await h.request('POST', `/v1/admin/users/${invited.id}/revoke-invite`, { token: a1.token! })).status).toBe(200);
    expect(await findLiveUserToken(h.db, resent.body.invitation.token, 'invite')).toBeUndefined();
  });

  it('answers 409 for users who are not invited', async () => {
    for (const action of ['resend-invite', 'revoke-invite']) {
      expectError(await h.request('POST', `/v1/admin/users/${m1.id}/${action}`, { token: a1.token! }), 409, 'user_not_invited');
    }
  });
});

describe('DELETE /v1/admin/users/{user_id}', () => {
  it('soft-deletes: sessions, own keys and pending tokens stop working, the email is free again', async () => {
    const target = await h.seedUser('acme', 'admin');
    const key = await createKey(h.db, principalOf(target, 'acme', 'admin'), ownScope(principalOf(target, 'acme', 'admin')), { name: 'laptop' });
    const reset = await h.request('POST', `/v1/admin/users/${target.id}/reset-password`, { token: a1.token! });

    const res = await h.request('DELETE', `/v1/admin/users/${target.id}`, { token: a1.token! });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expectError(await h.request('GET', `/v1/admin/users/${target.id}`, { token: a1.token! }), 404, 'not_found');
    expect((await h.request('GET', '/v1/admin/users', { token: a1.token! })).body.items.map((u: { id: string }) => u.id)).not.toContain(target.id);
    expect((await h.request('GET', '/v1/me', { token: target.token! })).status).toBe(401);
    expect((await h.request('GET', '/v1/me', { token: key.secret })).status).toBe(401);
    expect(await findLiveUserToken(h.db, reset.body.reset.token, 'reset')).toBeUndefined();
    const row = await h.db.selectFrom('api_keys').select('revoked_at').where('id', '=', key.key.id).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    expectError(await h.request('DELETE', `/v1/admin/users/${target.id}`, { token: a1.token! }), 404, 'not_found');

    const again = await invite(a1.token!, { email: target.email });
    expect(again.id).not.toBe(target.id);
  });

  it("revokes a deleted invitee's invitation", async () => {
    const invited = await invite(a1.token!, { email: 'gone-before-joining@acme.test' });
    expect((await h.request('DELETE', `/v1/admin/users/${invited.id}`, { token: a1.token! })).status).toBe(204);
    expect(await findLiveUserToken(h.db, invited.invitation.token, 'invite')).toBeUndefined();
  });

  it('refuses to delete yourself or a platform admin', async () => {
    expectError(await h.request('DELETE', `/v1/admin/users/${a1.id}`, { token: a1.token! }), 403, 'cannot_modify_self');
    const defaultAdmin = await h.seedUser(DEFAULT_TENANT_ID, 'admin');
    expectError(await h.request('DELETE', `/v1/admin/users/${rootId}`, { token: defaultAdmin.token! }), 403, 'platform_admin_protected');
    expectError(await h.request('DELETE', `/v1/admin/users/${rootId}`, { token: root }), 403, 'cannot_modify_self');
  });
});
