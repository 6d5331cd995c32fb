// Password login with per-account lockout (decisions.md: ten failures within 15 minutes lock the
// account for 15 minutes, answered with 429).
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { tooManyRequests, unauthorized } from '../../http/errors.js';
import { decoyPasswordHash, verifyPassword } from '../../lib/secrets.js';
import { findTenant } from '../tenants/tenants.repository.js';
import { findLiveUserByEmailAnyTenant } from '../users/users.repository.js';
import { type ClientInfo, type SessionGrant, openSession } from './sessions.service.js';

export const LOCKOUT = { maxFailures: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };

const INVALID = 'Email or password is wrong.';

export async function login(db: Db, config: Config, email: string, password: string, client: ClientInfo): Promise<SessionGrant> {
  const user = await findLiveUserByEmailAnyTenant(db, email);
  if (!user || !user.password_hash) {
    await verifyPassword(await decoyPasswordHash(), password);
    throw unauthorized(INVALID);
  }
  const now = Date.now();
  if (user.locked_until && user.locked_until.getTime() > now) {
    throw tooManyRequests('account_locked', 'Too many failed sign-ins: this account is locked for a while. Try again later or ask an admin for a password reset.', (user.locked_until.getTime() - now) / 1000);
  }
  if (!(await verifyPassword(user.password_hash, password))) {
    await recordFailure(db, user.id, user.failed_login_window_start, user.failed_login_count, now);
    throw unauthorized(INVALID);
  }
  if (user.status !== 'active') throw unauthorized('This account is suspended. Ask an admin of your tenant to reactivate it.');
  const tenant = await findTenant(db, user.tenant_id);
  if (!tenant || (tenant.status !== 'active' && user.role !== 'platform_admin')) {
    throw unauthorized('Your tenant is suspended. Ask the platform operator to reactivate it.');
  }
  return openSession(db, config, user, client);
}

async function recordFailure(db: Db, userId: string, windowStart: Date | null, count: number, now: number): Promise<void> {
  const inWindow = windowStart !== null && now - windowStart.getTime() < LOCKOUT.windowMs;
  const failures = inWindow ? count + 1 : 1;
  await db
    .updateTable('users')
    .set({
      failed_login_count: failures,
      failed_login_window_start: inWindow ? windowStart : new Date(now),
      locked_until: failures >= LOCKOUT.maxFailures ? new Date(now + LOCKOUT.lockMs) : null,
    })
    .where('id', '=', userId)
    .execute();
}
