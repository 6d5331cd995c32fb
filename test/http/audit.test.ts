import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEFAULT_TENANT_ID, type Harness, PASSWORD, type Reply, startHarness } from '../helpers/harness.js';
import { expect422 } from '../helpers/expect-errors.js';

type Seeded = { id: string; email: string; token: string | null };

let h: Harness;
let root: string;
let rootId: string;
let acmeAdmin: Seeded;
let acmeMember: Seeded;
let globexAdmin: Seeded;
let invitationToken: string;
let invitedId: string;
let keySecret: string;
let keyId: string;

const UA = 'audit-test/1.0';

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  rootId = (await h.request('GET', '/v1/me', { token: root })).body.user.id;
  const created = await h.request('POST', '/v1/platform/tenants', {
    token: root,
    body: { id: 'acme', name: 'Acme', initial_admin_email: 'owner@acme.test' },
    headers: { 'user-agent': UA, 'x-request-id': 'req-create-acme' },
  });
  expect(created.status).toBe(201);
  invitationToken = created.body.invitation.token;
  acmeAdmin = await h.seedUser('acme', 'admin');
  acmeMember = await h.seedUser('acme', 'member');
  await h.seedTenant('globex', 'Globex');
  globexAdmin = await h.seedUser('globex', 'admin');

  // A field the operation does not take is refused, and the refusal echoes no secret.
  const refused = await h.request('POST', '/v1/admin/users', {
    token: acmeAdmin.token!,
    body: { email: 'new@acme.test', password: 'hunter2-do-not-store', profile: { api_key: 'nested-secret-value' } },
  });
  expect(refused.status).toBe(422);
  expect(refused.body.detail.map((d: { loc: string[]; type: string }) => `${d.loc.join('.')}:${d.type}`).sort()).toEqual(['body.password:extra_forbidden', 'body.profile:extra_forbidden']);
  expect(JSON.stringify(refused.body)).not.toMatch(/hunter2|nested-secret-value/);
  const invited = await h.request('POST', '/v1/admin/users', { token: acmeAdmin.token!, body: { email: 'new@acme.test' } });
  expect(invited.status).toBe(201);
  invitedId = invited.body.id;
  expect((await h.request('POST', '/v1/admin/users', { token: globexAdmin.token!, body: { email: 'new@globex.test' } })).status).toBe(201);
  const key = await h.request('POST', '/v1/admin/api-keys', { token: acmeAdmin.token!, body: { name: 'sync', role: 'admin' } });
  keySecret = key.body.secret;
  keyId = key.body.public_id;
  expect((await h.request('POST', '/v1/admin/users', { token: keySecret, body: { email: 'by-key@acme.test' } })).status).toBe(201);
  expect((await h.request('POST', `/v1/admin/users/${acmeMember.id}/suspend`, { token: acmeAdmin.token! })).status).toBe(200);
});
afterAll(() => h.close());

async function all(path: string, token: string, tenant?: string) {
  const res = await h.request('GET', `${path}${path.includes('?') ? '&' : '?'}limit=200`, { token, tenant });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body.items as any[];
}

describe('access', () => {
  it('answers 401 without a credential', async () => {
    for (const path of ['/v1/admin/audit', '/v1/platform/audit']) expect((await h.request('GET', path)).status).toBe(401);
  });

  it('answers 403 to a member on tenant audit and to a tenant admin on platform audit', async () => {
    const member = await h.seedUser('acme', 'member');
    for (const [token, path] of [[member.token!, '/v1/admin/audit'], [member.token!, '/v1/platform/audit'], [acmeAdmin.token!, '/v1/platform/audit']] as const) {
      const res = await h.request('GET', path, { token });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
    }
  });

  it('answers 404 to a tenant admin naming another tenant', async () => {
    const res = await h.request('GET', '/v1/admin/audit', { token: acmeAdmin.token!, tenant: 'globex' });
    expect(res.status).toBe(404);
  });
});

describe('query validation', () => {
  it('rejects bad paging and time filters with 422', async () => {
    for (const path of ['/v1/admin/audit', '/v1/platform/audit']) {
      const token = path.startsWith('/v1/admin') ? acmeAdmin.token! : root;
      expect422(await h.request('GET', `${path}?limit=0`, { token }), {
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: 0,
        ctx: { ge: 1 },
      });
      expect422(await h.request('GET', `${path}?created_after=yesterday`, { token }), {
        loc: ['query', 'created_after'],
        msg: 'Input should be a valid datetime',
        type: 'datetime_parsing',
        input: 'yesterday',
        ctx: { format: 'RFC 3339' },
      });
      expect422(await h.request('GET', `${path}?created_before=2026-13-01`, { token }), {
        loc: ['query', 'created_before'],
        msg: 'Input should be a valid datetime',
        type: 'datetime_parsing',
        input: '2026-13-01',
        ctx: { format: 'RFC 3339' },
      });
      expect422(await h.request('GET', `${path}?cursor=abc`, { token }), { loc: ['query', 'cursor'], msg: 'Cursor is not one this API issued', type: 'value_error', input: 'abc' });
      // Positions JavaScript reads as dates but PostgreSQL does not, and an id it cannot hold.
      for (const position of [['0', 'x'], ['12', 'x'], ['+275760-09-13T00:00:00.000Z', 'x'], ['-000001-01-01T00:00:00Z', 'x'], ['2026-11-27T10:00:00.000Z', 'x\u0000']]) {
        const cursor = Buffer.from(JSON.stringify(position)).toString('base64url');
        const res = await h.request('GET', `${path}?cursor=${cursor}`, { token });
        expect(res.status, JSON.stringify(position)).toBe(422);
      }
    }
  });
});

describe('what an entry records', () => {
  it('records actor, action, resource, request and client of a tenant creation', async () => {
    const [entry] = await all('/v1/platform/audit?action=platform.tenants.create', root);
    expect(entry).toEqual({
      id: expect.stringMatching(/^aud_/),
      tenant_id: 'acme',
      actor: { user_id: rootId, api_key_id: null, email: ADMIN_EMAIL },
      action: 'platform.tenants.create',
      resource_type: 'tenant',
      resource_id: 'acme',
      method: 'POST',
      path: '/v1/platform/tenants',
      status_code: 201,
      ip: '127.0.0.1',
      user_agent: UA,
      request_id: 'req-create-acme',
      details: { admin_user_id: expect.stringMatching(/^usr_/), request: { id: 'acme', name: 'Acme', initial_admin_email: 'owner@acme.test' } },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('records the user actions with the user as resource', async () => {
    const [invite] = await all(`/v1/admin/audit?action=admin.users.invite&resource_id=${invitedId}`, acmeAdmin.token!);
    expect(invite).toMatchObject({ tenant_id: 'acme', actor: { user_id: acmeAdmin.id, email: acmeAdmin.email }, resource_type: 'user', resource_id: invitedId, status_code: 201 });
    const [suspend] = await all('/v1/admin/audit?action=admin.users.suspend', acmeAdmin.token!);
    expect(suspend).toMatchObject({ resource_type: 'user', resource_id: acmeMember.id, method: 'POST', path: `/v1/admin/users/${acmeMember.id}/suspend`, status_code: 200 });
  });

  it('records a tenant-wide key as the actor when one acts', async () => {
    const [created] = await all(`/v1/admin/audit?action=admin.api_keys.create`, acmeAdmin.token!);
    expect(created).toMatchObject({ resource_type: 'api_key', resource_id: keyId, actor: { user_id: acmeAdmin.id } });
    const entries = await all('/v1/admin/audit?action=admin.users.invite', acmeAdmin.token!);
    const byKey = entries.find((e) => e.details.request.email === 'by-key@acme.test');
    expect(byKey.actor).toEqual({ user_id: null, api_key_id: keyId, email: null });
    // Everything the key did, and nothing else.
    const ofKey = await all(`/v1/admin/audit?actor_api_key_id=${keyId}`, acmeAdmin.token!);
    expect(ofKey.map((e) => e.id)).toEqual([byKey.id]);
  });

  it('never stores a secret in clear', async () => {
    const logins = await all('/v1/platform/audit?action=auth.login', root);
    expect(logins.length).toBeGreaterThanOrEqual(4);
    for (const entry of logins) expect(entry.details.request).toEqual({ email: expect.any(String), password: '[redacted]' });
    const [invite] = await all(`/v1/admin/audit?resource_id=${invitedId}`, acmeAdmin.token!);
    expect(invite.details.request).toEqual({ email: 'new@acme.test' });

    const everything = JSON.stringify(await all('/v1/platform/audit', root));
    for (const secret of [ADMIN_PASSWORD, PASSWORD, 'hunter2-do-not-store', 'nested-secret-value', invitationToken, keySecret, root]) {
      expect(everything).not.toContain(secret);
    }
  });

  it('hides a secret-named key in what a change records, as in the request', async () => {
    const res = await h.request('PATCH', '/v1/admin/tenant-policy/acme', { token: acmeAdmin.token!, body: { layout_policy: { reading_order: 'columns', vendor: { api_key: 'policy-held-key-do-not-store' } } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [entry] = await all('/v1/admin/audit?resource_id=acme&action=admin.tenant_policy.update', acmeAdmin.token!);
    expect(JSON.stringify(entry)).not.toContain('policy-held-key-do-not-store');
    expect(JSON.stringify(entry.details.changes)).toContain('columns');
  });

  it('records only successful state changes', async () => {
    const before = (await all('/v1/platform/audit', root)).length;
    expect((await h.request('POST', '/v1/admin/users', { token: acmeAdmin.token!, body: { email: 'bad' } })).status).toBe(422);
    expect((await h.request('POST', '/v1/admin/users', { token: acmeAdmin.token!, body: { email: globexAdmin.email } })).status).toBe(409);
    expect((await h.request('GET', '/v1/admin/users', { token: acmeAdmin.token! })).status).toBe(200);
    expect((await all('/v1/platform/audit', root)).length).toBe(before);
  });
});

describe('scope', () => {
  it("shows a tenant admin its own tenant's entries only", async () => {
    const entries = await all('/v1/admin/audit', acmeAdmin.token!);
    expect(entries.length).toBeGreaterThan(0);
    expect(new Set(entries.map((e) => e.tenant_id))).toEqual(new Set(['acme']));
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['platform.tenants.create', 'auth.login', 'admin.users.invite', 'admin.users.suspend']));
    // A tenant_id filter cannot widen it: the tenant trail takes none, and refuses one.
    const sneaky = await h.request('GET', '/v1/admin/audit?tenant_id=globex', { token: acmeAdmin.token! });
    expect422(sneaky, { loc: ['query', 'tenant_id'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'globex' });
    const globex = await all('/v1/admin/audit', globexAdmin.token!);
    expect(new Set(globex.map((e) => e.tenant_id))).toEqual(new Set(['globex']));
  });

  it('shows a platform admin every tenant, or one with tenant_id or X-Tenant-Id', async () => {
    const entries = await all('/v1/platform/audit', root);
    expect(new Set(entries.map((e) => e.tenant_id))).toEqual(new Set([DEFAULT_TENANT_ID, 'acme', 'globex']));
    const globex = await all('/v1/platform/audit?tenant_id=globex', root);
    expect(globex.length).toBeGreaterThan(0);
    expect(globex.every((e) => e.tenant_id === 'globex')).toBe(true);
    const viaHeader = await all('/v1/admin/audit', root, 'acme');
    expect(viaHeader.map((e) => e.id)).toEqual((await all('/v1/admin/audit', acmeAdmin.token!)).map((e) => e.id));
  });
});

describe("a person's own account", () => {
  it("files a platform admin's own session changes under its home tenant, even when it acts in another", async () => {
    const first = await h.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const second = await h.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const sessions = (await h.request('GET', '/v1/auth/sessions?limit=200', { token: second })).body.items as { session_id: string; current: boolean }[];
    const firstSession = sessions.find((x) => !x.current)!.session_id;
    expect((await h.request('POST', `/v1/auth/sessions/${firstSession}/revoke`, { token: second, tenant: 'acme' })).status).toBe(200);
    expect((await h.request('POST', '/v1/auth/logout', { token: second, tenant: 'acme' })).status).toBe(204);
    expect((await h.request('GET', '/v1/me', { token: first })).status).toBe(401);

    const inAcme = await all('/v1/admin/audit', acmeAdmin.token!);
    expect(inAcme.filter((e) => ['auth.sessions.revoke', 'auth.logout'].includes(e.action) && e.actor.user_id === rootId)).toEqual([]);
    const home = await all(`/v1/platform/audit?tenant_id=${DEFAULT_TENANT_ID}&actor_user_id=${rootId}`, root);
    expect(home.filter((e) => ['auth.sessions.revoke', 'auth.logout'].includes(e.action)).map((e) => e.action)).toEqual(['auth.logout', 'auth.sessions.revoke']);
  });
});

describe('filters and paging', () => {
  it('filters by actor, resource and time', async () => {
    const byActor = await all(`/v1/platform/audit?actor_user_id=${acmeAdmin.id}`, root);
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e) => e.actor.user_id === acmeAdmin.id)).toBe(true);
    const tenants = await all('/v1/platform/audit?resource_type=tenant', root);
    expect(tenants.map((e) => e.action)).toEqual(['platform.tenants.create']);

    const everything = await all('/v1/platform/audit', root);
    const pivot = everything[Math.floor(everything.length / 2)];
    const after = await all(`/v1/platform/audit?created_after=${encodeURIComponent(pivot.created_at)}`, root);
    const before = await all(`/v1/platform/audit?created_before=${encodeURIComponent(pivot.created_at)}`, root);
    expect(after.every((e) => e.created_at >= pivot.created_at)).toBe(true);
    expect(after.map((e) => e.id)).toContain(pivot.id);
    expect(before.every((e) => e.created_at < pivot.created_at)).toBe(true);
    expect(after.length + before.length).toBe(everything.length);
    const window = await all(`/v1/platform/audit?created_after=${encodeURIComponent(pivot.created_at)}&created_before=${encodeURIComponent(pivot.created_at)}`, root);
    expect(window).toEqual([]);
  });

  it('walks every entry with limit=1, newest first, without duplicates', async () => {
    for (const [path, token] of [['/v1/platform/audit', root], ['/v1/admin/audit', acmeAdmin.token!]] as const) {
      const expected = (await all(path, token)).map((e) => e.id);
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Reply = await h.request('GET', `${path}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
        expect(page.status).toBe(200);
        expect(page.body.items).toHaveLength(1);
        walked.push(page.body.items[0].id);
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(new Set(walked).size).toBe(walked.length);
      expect(walked).toEqual(expected);
      const times = walked.length;
      expect(times).toBeGreaterThan(3);
    }
  });
});
