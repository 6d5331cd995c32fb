// Sign-in never tells whether an account exists: a real address with a wrong password and an
// unknown address get the same answers, attempt by attempt, lockout included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type Harness, PASSWORD, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ authRateLimitPerIp: 1000 });
});
afterAll(() => h.close());

type Answer = { status: number; body: unknown; retryAfter: boolean; authenticate: string | null };

async function attempt(email: string, password: string): Promise<Answer> {
  const res = await h.request('POST', '/v1/auth/login', { body: { email, password } });
  return { status: res.status, body: res.body, retryAfter: res.headers.has('retry-after'), authenticate: res.headers.get('www-authenticate') };
}

describe('account discovery at sign-in', () => {
  it('answers a real account and an unknown address the same, through the lockout', async () => {
    const user = await h.seedUser(DEFAULT_TENANT_ID, 'member');
    const unknown = `nobody-${Date.now()}@nowhere.test`;
    for (let i = 0; i < 12; i++) {
      const real = await attempt(user.email, `wrong-password-${i}`);
      const ghost = await attempt(unknown, `wrong-password-${i}`);
      expect(ghost, `attempt ${i + 1}`).toEqual(real);
      expect(real.status, `attempt ${i + 1}`).toBe(i < 10 ? 401 : 429);
    }
    // Locked means locked, even with the right password; the unknown address is locked alike.
    const right = await attempt(user.email, PASSWORD);
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject({ code: 'account_locked' });
    expect(await attempt(unknown, PASSWORD)).toEqual(right);
  });

  it('counts failures per address, case-insensitively, and clears them on a successful sign-in', async () => {
    const user = await h.seedUser(DEFAULT_TENANT_ID, 'member');
    for (let i = 0; i < 9; i++) expect((await attempt(user.email.toUpperCase(), 'wrong-password')).status).toBe(401);
    expect((await attempt(user.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await attempt(user.email, 'wrong-password')).status).toBe(401);
    expect((await attempt(user.email, PASSWORD)).status).toBe(200);
  });

  it('stores no address in clear', async () => {
    const rows = await h.db.selectFrom('login_failures').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.email_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
