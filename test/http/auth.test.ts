// Sign-in and sessions through HTTP: login lockout, own sessions, password change, resets and invitations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearLoginFailures } from '../../src/domain/identity/login-failures.repository.js';
import { issueUserToken, type TokenKind } from '../../src/domain/identity/user-tokens.js';
import { createKey, tenantScope } from '../../src/domain/keys/keys.service.js';
import { type Harness, PASSWORD, startHarness } from '../helpers/harness.js';

const NEW_PASSWORD = 'another-long-password';

let h: Harness;
let tenantKey: string;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  const admin = await h.seedUser('acme', 'admin');
  const principal = { userId: admin.id, email: admin.email, role: 'admin' as const, tenantId: 'acme', homeTenantId: 'acme', method: 'session' as const, sessionId: null, apiKeyId: null };
  tenantKey = (await createKey(h.db, principal, tenantScope(principal), { name: 'ci' })).secret;
});
afterAll(() => h.close());

function issue(userId: string, kind: TokenKind) {
  return h.db.transaction().execute((tx) => issueUserToken(tx, { userId, kind, createdBy: null, baseUrl: h.baseUrl }));
}

async function expireTokens(userId: string) {
  await h.db.updateTable('user_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', userId).execute();
}

const grantShape = (email: string, status = 'active') => ({
  access_token: expect.stringMatching(/^qs_/),
  token_type: 'bearer',
  expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  session_id: expect.stringMatching(/^ses_/),
  user: expect.objectContaining({ email, status }),
});

describe('POST /v1/auth/login', () => {
  it('answers a session grant for the right password', async () => {
    const user = await h.seedUser('acme', 'member');
    const res = await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(grantShape(user.email));
    expect(Object.keys(res.body.user).sort()).toEqual(['created_at', 'display_name', 'email', 'id', 'last_login_at', 'role', 'status', 'tenant_id']);
  });

  it('answers 401 for a wrong password or an unknown email, with the same message', async () => {
    const user = await h.seedUser('acme', 'member');
    const wrong = await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: 'not-the-password' } });
    const unknown = await h.request('POST', '/v1/auth/login', { body: { email: 'nobody@acme.test', password: 'whatever-password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('validates the body', async () => {
    const res = await h.request('POST', '/v1/auth/login', { body: { email: 'not-an-email', password: '' } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error', input: 'not-an-email', ctx: { reason: 'not an email address' } },
      { loc: ['body', 'password'], msg: 'String should have at least 1 character', type: 'string_too_short', ctx: { min_length: 1 } },
    ]);
  });

  it('locks the account after 10 wrong passwords: the 11th attempt is 429 with Retry-After, even when right', async () => {
    const user = await h.seedUser('acme', 'member');
    for (let i = 0; i < 10; i++) {
      const res = await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: `wrong-password-${i}` } });
      expect(res.status).toBe(401);
    }
    const locked = await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('account_locked');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  });

  it('refuses a suspended user at login and on a token issued before the suspension', async () => {
    const user = await h.seedUser('acme', 'member');
    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(200);
    await h.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
    const login = await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } });
    expect(login.status).toBe(401);
    expect(login.body.code).toBe('unauthorized');
    const me = await h.request('GET', '/v1/me', { token: user.token! });
    expect(me.status).toBe(401);
    expect(me.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('GET /v1/auth/sessions', () => {
  it('needs a credential', async () => {
    const res = await h.request('GET', '/v1/auth/sessions');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('refuses a tenant-wide API key', async () => {
    const res = await h.request('GET', '/v1/auth/sessions', { token: tenantKey });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('user_required');
  });

  it('validates limit and cursor', async () => {
    const user = await h.seedUser('acme', 'member');
    const low = await h.request('GET', '/v1/auth/sessions?limit=0', { token: user.token! });
    expect(low.status).toBe(422);
    expect(low.body.detail).toEqual([{ loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } }]);
    const high = await h.request('GET', '/v1/auth/sessions?limit=201', { token: user.token! });
    expect(high.body.detail).toEqual([{ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 200', type: 'less_than_equal', input: 201, ctx: { le: 200 } }]);
    const text = await h.request('GET', '/v1/auth/sessions?limit=many', { token: user.token! });
    expect(text.body.detail).toEqual([{ loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'int_type', input: 'many' }]);
    const cursor = await h.request('GET', '/v1/auth/sessions?cursor=garbage', { token: user.token! });
    expect(cursor.status).toBe(422);
    expect(cursor.body.detail).toEqual([{ loc: ['query', 'cursor'], msg: 'Cursor is not one this API issued', type: 'value_error', input: 'garbage' }]);
  });

  it('lists only your own live sessions, newest first, marking the current one, in pages', async () => {
    const user = await h.seedUser('acme', 'member');
    const second = await h.login(user.email, PASSWORD);
    const third = await h.login(user.email, PASSWORD);
    await h.seedUser('acme', 'member'); // someone else's session must not show up
    await h.request('POST', '/v1/auth/logout', { token: third });

    const res = await h.request('GET', '/v1/auth/sessions', { token: second });
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items.map((s: { current: boolean }) => s.current)).toEqual([true, false]);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(['created_at', 'current', 'expires_at', 'ip', 'last_seen_at', 'revoked_at', 'session_id', 'user_agent']);
    expect(res.body.items[0]).toMatchObject({ session_id: expect.stringMatching(/^ses_/), revoked_at: null, ip: '127.0.0.1' });

    const first = await h.request('GET', '/v1/auth/sessions?limit=1', { token: second });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await h.request('GET', `/v1/auth/sessions?limit=1&cursor=${first.body.next_cursor}`, { token: second });
    expect(rest.body.items).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
    expect(rest.body.items[0].session_id).toBe(res.body.items[1].session_id);
  });

  it('leaves out sessions that went idle too long', async () => {
    const user = await h.seedUser('acme', 'member');
    const idle = await h.login(user.email, PASSWORD);
    const idleId = (await h.request('GET', '/v1/me', { token: idle })).body.auth.session_id;
    await h.db.updateTable('sessions').set({ last_seen_at: new Date(Date.now() - 13 * 3_600_000) }).where('id', '=', idleId).execute();
    const res = await h.request('GET', '/v1/auth/sessions', { token: user.token! });
    expect(res.body.items.map((s: { session_id: string }) => s.session_id)).not.toContain(idleId);
    expect(res.body.items).toHaveLength(1);
  });
});

describe('POST /v1/auth/sessions/{session_id}/revoke', () => {
  it('needs a credential', async () => {
    const res = await h.request('POST', '/v1/auth/sessions/ses_x/revoke');
    expect(res.status).toBe(401);
  });

  it('refuses a tenant-wide API key', async () => {
    const res = await h.request('POST', '/v1/auth/sessions/ses_x/revoke', { token: tenantKey });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('user_required');
  });

  it('answers 404 for an unknown session and for another user\'s, in any tenant', async () => {
    const user = await h.seedUser('acme', 'member');
    const sameTenant = await h.seedUser('acme', 'member');
    const otherTenant = await h.seedUser('globex', 'admin');
    const unknown = await h.request('POST', '/v1/auth/sessions/ses_nope/revoke', { token: user.token! });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    for (const other of [sameTenant, otherTenant]) {
      const id = (await h.request('GET', '/v1/me', { token: other.token! })).body.auth.session_id;
      const res = await h.request('POST', `/v1/auth/sessions/${id}/revoke`, { token: user.token! });
      expect(res.status).toBe(404);
      expect((await h.request('GET', '/v1/me', { token: other.token! })).status).toBe(200);
    }
  });

  it('revokes one of your sessions, which then stops working; a second revoke is 409', async () => {
    const user = await h.seedUser('acme', 'member');
    const other = await h.login(user.email, PASSWORD);
    const otherId = (await h.request('GET', '/v1/me', { token: other })).body.auth.session_id;
    const res = await h.request('POST', `/v1/auth/sessions/${otherId}/revoke`, { token: user.token! });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ session_id: otherId, current: false, revoked_at: expect.any(String) });
    expect((await h.request('GET', '/v1/me', { token: other })).status).toBe(401);
    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(200);

    const again = await h.request('POST', `/v1/auth/sessions/${otherId}/revoke`, { token: user.token! });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String), code: 'session_revoked' });
  });
});

describe('POST /v1/auth/change-password', () => {
  it('needs a credential', async () => {
    const res = await h.request('POST', '/v1/auth/change-password', { body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(res.status).toBe(401);
  });

  it('refuses a tenant-wide API key', async () => {
    const res = await h.request('POST', '/v1/auth/change-password', { token: tenantKey, body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('user_required');
  });

  it('validates the body', async () => {
    const user = await h.seedUser('acme', 'member');
    const missing = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'current_password'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'new_password'], msg: 'Field required', type: 'missing', input: {} },
    ]);
    const short = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: { current_password: PASSWORD, new_password: 'tinypass9' } });
    expect(short.body.detail).toEqual([
      { loc: ['body', 'new_password'], msg: 'String should have at least 12 characters', type: 'string_too_short', ctx: { min_length: 12 } },
    ]);
    // The password is not sent back, and a very long value comes back cut.
    expect(JSON.stringify(short.body)).not.toContain('tinypass9');
    const long = await h.request('POST', '/v1/auth/login', { body: { email: `${'a'.repeat(2_000_000)}@acme.test`, password: 'whatever-password' } });
    expect(long.status).toBe(422);
    expect(long.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'email'], type: 'string_too_long', input: expect.stringMatching(/^a{2000}…$/) })]);
    const noBody = await h.request('POST', '/v1/auth/change-password', { token: user.token! });
    expect(noBody.status).toBe(422);
    // No body at all: one item about the whole body (its type is the validator's, not this area's).
    expect(noBody.body.detail).toEqual([expect.objectContaining({ loc: ['body'], input: null })]);
  });

  it('answers 400 invalid_password when the current password is wrong, changing nothing', async () => {
    const user = await h.seedUser('acme', 'member');
    const res = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: { current_password: 'not-my-password', new_password: NEW_PASSWORD } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_password' });
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(200);
  });

  it('counts wrong current passwords with the failed sign-ins: the 11th guess is 429, even when right', async () => {
    const user = await h.seedUser('acme', 'member');
    for (let i = 0; i < 10; i++) {
      const res = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: { current_password: `guess-number-${i}`, new_password: NEW_PASSWORD } });
      expect(res.status).toBe(400);
    }
    const locked = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('account_locked');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    // The sign-in form is locked too, and the password is unchanged.
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(429);
    await clearLoginFailures(h.db, user.email);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(200);
  });

  it('refuses a new password of spaces only, here and on reset', async () => {
    const user = await h.seedUser('acme', 'member');
    const res = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: { current_password: PASSWORD, new_password: ' '.repeat(12) } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'new_password'], type: 'value_error' })]);
    const reset = await h.request('POST', '/v1/auth/reset-password', { body: { token: 'whatever-token', new_password: ' '.repeat(14) } });
    expect(reset.status).toBe(422);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(200);
  });

  it('changes the password and signs out every other session', async () => {
    const user = await h.seedUser('acme', 'member');
    const other = await h.login(user.email, PASSWORD);
    const res = await h.request('POST', '/v1/auth/change-password', { token: user.token!, body: { current_password: PASSWORD, new_password: NEW_PASSWORD } });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(200);
    expect((await h.request('GET', '/v1/me', { token: other })).status).toBe(401);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(401);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: NEW_PASSWORD } })).status).toBe(200);
  });
});

describe('GET /v1/auth/reset-tokens/{raw_token}', () => {
  it('answers 404 for an unknown token', async () => {
    const res = await h.request('GET', '/v1/auth/reset-tokens/not-a-token');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('shows the email and expiry of a live reset token, without consuming it', async () => {
    const user = await h.seedUser('acme', 'member');
    const issued = await issue(user.id, 'reset');
    for (let i = 0; i < 2; i++) {
      const res = await h.request('GET', `/v1/auth/reset-tokens/${issued.token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ email: user.email, expires_at: issued.expires_at.toISOString() });
    }
  });

  it('answers 404 for an expired token, an invite token and a used one', async () => {
    const user = await h.seedUser('acme', 'member');
    const invited = await h.seedUser('acme', 'member', { status: 'invited' });
    const invite = await issue(invited.id, 'invite');
    expect((await h.request('GET', `/v1/auth/reset-tokens/${invite.token}`)).status).toBe(404);

    const used = await issue(user.id, 'reset');
    expect((await h.request('POST', '/v1/auth/reset-password', { body: { token: used.token, new_password: NEW_PASSWORD } })).status).toBe(200);
    const usedPeek = await h.request('GET', `/v1/auth/reset-tokens/${used.token}`);
    expect(usedPeek.status).toBe(404);
    expect(usedPeek.body.detail).toBe('This password reset link is not valid: it was used, revoked or has expired, or was copied only in part. Ask an admin of your tenant to send a new reset link.');

    const expired = await issue(user.id, 'reset');
    await expireTokens(user.id);
    expect((await h.request('GET', `/v1/auth/reset-tokens/${expired.token}`)).status).toBe(404);
  });
});

describe('POST /v1/auth/reset-password', () => {
  it('validates the body', async () => {
    const missing = await h.request('POST', '/v1/auth/reset-password', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'token'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'new_password'], msg: 'Field required', type: 'missing', input: {} },
    ]);
    const bad = await h.request('POST', '/v1/auth/reset-password', { body: { token: '', new_password: 12345678901234 } });
    expect(bad.body.detail).toEqual([
      { loc: ['body', 'token'], msg: 'String should have at least 1 character', type: 'string_too_short', ctx: { min_length: 1 } },
      { loc: ['body', 'new_password'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
    const short = await h.request('POST', '/v1/auth/reset-password', { body: { token: 'x', new_password: 'short' } });
    expect(short.body.detail).toEqual([
      { loc: ['body', 'new_password'], msg: 'String should have at least 12 characters', type: 'string_too_short', ctx: { min_length: 12 } },
    ]);
  });

  it('answers 400 invalid_token for an unknown token', async () => {
    const res = await h.request('POST', '/v1/auth/reset-password', { body: { token: 'not-a-token', new_password: NEW_PASSWORD } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.stringContaining('invalid, expired or already used'), code: 'invalid_token' });
  });

  it('sets the password, clears the lockout, signs out every session and answers a new one', async () => {
    const user = await h.seedUser('acme', 'member');
    for (let i = 0; i < 10; i++) await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: `wrong-${i}-password` } });
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(429);

    const issued = await issue(user.id, 'reset');
    const res = await h.request('POST', '/v1/auth/reset-password', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(grantShape(user.email));
    expect(res.body.user.last_login_at).toEqual(expect.any(String));

    expect((await h.request('GET', '/v1/me', { token: user.token! })).status).toBe(401);
    const me = await h.request('GET', '/v1/me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.auth.session_id).toBe(res.body.session_id);
    expect((await h.request('POST', '/v1/auth/login', { body: { email: user.email, password: NEW_PASSWORD } })).status).toBe(200);

    const stored = await h.db.selectFrom('users').select(['password_hash', 'failed_login_count', 'locked_until']).where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    expect(stored).toMatchObject({ failed_login_count: 0, locked_until: null });
  });

  it('is single use, and refuses expired and superseded tokens', async () => {
    const user = await h.seedUser('acme', 'member');
    const first = await issue(user.id, 'reset');
    const second = await issue(user.id, 'reset');
    const superseded = await h.request('POST', '/v1/auth/reset-password', { body: { token: first.token, new_password: NEW_PASSWORD } });
    expect(superseded.status).toBe(400);
    expect(superseded.body.code).toBe('invalid_token');

    expect((await h.request('POST', '/v1/auth/reset-password', { body: { token: second.token, new_password: NEW_PASSWORD } })).status).toBe(200);
    const reused = await h.request('POST', '/v1/auth/reset-password', { body: { token: second.token, new_password: 'yet-another-password' } });
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('invalid_token');

    const expired = await issue(user.id, 'reset');
    await expireTokens(user.id);
    const late = await h.request('POST', '/v1/auth/reset-password', { body: { token: expired.token, new_password: NEW_PASSWORD } });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('invalid_token');
  });

  it('lets exactly one of two simultaneous requests use a token', async () => {
    const user = await h.seedUser('acme', 'member');
    const issued = await issue(user.id, 'reset');
    const body = { token: issued.token, new_password: NEW_PASSWORD };
    const results = await Promise.all([1, 2, 3].map(() => h.request('POST', '/v1/auth/reset-password', { body })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('refuses a reset token of a suspended user', async () => {
    const user = await h.seedUser('acme', 'member');
    const issued = await issue(user.id, 'reset');
    await h.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
    expect((await h.request('GET', `/v1/auth/reset-tokens/${issued.token}`)).status).toBe(404);
    const res = await h.request('POST', '/v1/auth/reset-password', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_token');
  });

  it('records the reset in the audit trail without the token or the password', async () => {
    const user = await h.seedUser('acme', 'member');
    const issued = await issue(user.id, 'reset');
    await h.request('POST', '/v1/auth/reset-password', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    const entry = await h.db.selectFrom('audit_log').selectAll().where('action', '=', 'auth.reset_password').where('actor_user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ tenant_id: 'acme', resource_type: 'user', resource_id: user.id, status_code: 200 });
    expect(JSON.stringify(entry.details)).not.toContain(issued.token);
    expect(JSON.stringify(entry.details)).not.toContain(NEW_PASSWORD);
  });
});

describe('GET /v1/auth/invites/{raw_token}', () => {
  it('answers 404 for an unknown token and for a reset token', async () => {
    const unknown = await h.request('GET', '/v1/auth/invites/not-a-token');
    expect(unknown.status).toBe(404);
    // A link from an email: nothing about ids or tenants, only what to do.
    expect(unknown.body).toEqual({ code: 'not_found', detail: 'This invitation link is not valid: it was used, revoked or has expired, or was copied only in part. Ask an admin of your tenant to send a new invitation.' });
    const user = await h.seedUser('acme', 'member');
    const reset = await issue(user.id, 'reset');
    const res = await h.request('GET', `/v1/auth/invites/${reset.token}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('shows what the invitation is for', async () => {
    const invited = await h.seedUser('globex', 'admin', { status: 'invited' });
    const issued = await issue(invited.id, 'invite');
    const res = await h.request('GET', `/v1/auth/invites/${issued.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: invited.email, tenant_id: 'globex', tenant_name: 'Tenant globex', role: 'admin', expires_at: issued.expires_at.toISOString() });
  });

  it('answers 404 once the invitation has expired', async () => {
    const invited = await h.seedUser('acme', 'member', { status: 'invited' });
    const issued = await issue(invited.id, 'invite');
    await expireTokens(invited.id);
    expect((await h.request('GET', `/v1/auth/invites/${issued.token}`)).status).toBe(404);
  });
});

describe('POST /v1/auth/accept-invite', () => {
  it('validates the body', async () => {
    const missing = await h.request('POST', '/v1/auth/accept-invite', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'token'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'new_password'], msg: 'Field required', type: 'missing', input: {} },
    ]);
    const bad = await h.request('POST', '/v1/auth/accept-invite', { body: { token: '', new_password: 'short' } });
    expect(bad.body.detail).toEqual([
      { loc: ['body', 'token'], msg: 'String should have at least 1 character', type: 'string_too_short', ctx: { min_length: 1 } },
      { loc: ['body', 'new_password'], msg: 'String should have at least 12 characters', type: 'string_too_short', ctx: { min_length: 12 } },
    ]);
  });

  it('answers 400 invalid_token for an unknown token', async () => {
    const res = await h.request('POST', '/v1/auth/accept-invite', { body: { token: 'not-a-token', new_password: NEW_PASSWORD } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_token' });
  });

  it('activates the invited user with the chosen password and signs them in, once', async () => {
    const invited = await h.seedUser('acme', 'member', { status: 'invited' });
    const issued = await issue(invited.id, 'invite');
    const res = await h.request('POST', '/v1/auth/accept-invite', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(grantShape(invited.email, 'active'));
    expect(res.body.user).toMatchObject({ id: invited.id, tenant_id: 'acme', role: 'member' });
    const me = await h.request('GET', '/v1/me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: invited.id, status: 'active' });
    expect((await h.request('POST', '/v1/auth/login', { body: { email: invited.email, password: NEW_PASSWORD } })).status).toBe(200);

    const again = await h.request('POST', '/v1/auth/accept-invite', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_token');
    expect((await h.request('GET', `/v1/auth/invites/${issued.token}`)).status).toBe(404);
  });

  it('refuses an expired invitation and a reset token', async () => {
    const invited = await h.seedUser('acme', 'member', { status: 'invited' });
    const issued = await issue(invited.id, 'invite');
    await expireTokens(invited.id);
    const late = await h.request('POST', '/v1/auth/accept-invite', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe('invalid_token');

    const user = await h.seedUser('acme', 'member');
    const reset = await issue(user.id, 'reset');
    expect((await h.request('POST', '/v1/auth/accept-invite', { body: { token: reset.token, new_password: NEW_PASSWORD } })).status).toBe(400);
  });

  it('refuses while the tenant is suspended, leaving the invitation usable', async () => {
    await h.seedTenant('initech');
    const invited = await h.seedUser('initech', 'member', { status: 'invited' });
    const issued = await issue(invited.id, 'invite');
    await h.db.updateTable('tenants').set({ status: 'suspended' }).where('id', '=', 'initech').execute();
    const refused = await h.request('POST', '/v1/auth/accept-invite', { body: { token: issued.token, new_password: NEW_PASSWORD } });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    await h.db.updateTable('tenants').set({ status: 'active' }).where('id', '=', 'initech').execute();
    expect((await h.request('POST', '/v1/auth/accept-invite', { body: { token: issued.token, new_password: NEW_PASSWORD } })).status).toBe(200);
  });
});
