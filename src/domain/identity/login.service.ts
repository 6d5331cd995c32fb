// Password login with lockout (decisions.md: ten failures within 15 minutes lock for 15 minutes,
// answered with 429). Failures are counted per email address, known or not, and every attempt
// does the same work (one user lookup, one failure lookup, one argon2 verify, one write on
// failure), so neither the status nor the timing tells whether an account exists.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { tooManyRequests, unauthorized } from '../../lib/errors.js';
import { decoyPasswordHash, verifyPassword } from '../../lib/secrets.js';
import { findTenant } from '../tenants/tenants.repository.js';
import { findLiveUserByEmailAnyTenant } from '../users/users.repository.js';
import { clearLoginFailures, findLoginFailures, lockedFor, recordLoginFailure } from './login-failures.repository.js';
import { type ClientInfo, type SessionGrant, openSession } from './sessions.service.js';

export const LOCKOUT = { maxFailures: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };

const INVALID = 'Email or password is wrong.';

export async function login(db: Db, config: Config, email: string, password: string, client: ClientInfo): Promise<SessionGrant> {
  const [user, failures] = await Promise.all([findLiveUserByEmailAnyTenant(db, email), findLoginFailures(db, email)]);
  const now = Date.now();
  // An unknown address is verified against a decoy hash of the same cost, and fails the same way.
  const storedHash = user?.password_hash ?? (await decoyPasswordHash());
  const passwordMatches = (await verifyPassword(storedHash, password)) && Boolean(user?.password_hash);
  const lockedMs = lockedFor(failures, now);
  if (lockedMs > 0) {
    throw tooManyRequests('account_locked', 'Too many failed sign-ins for this email address: it is locked for a while. Try again later or ask an admin for a password reset.', lockedMs / 1000);
  }
  if (!user || !passwordMatches) {
    await recordLoginFailure(db, email, failures, now, LOCKOUT);
    throw unauthorized(INVALID);
  }
  if (user.status !== 'active') throw unauthorized('This account is suspended. Ask an admin of your tenant to reactivate it.');
  const tenant = await findTenant(db, user.tenant_id);
  if (!tenant || (tenant.status !== 'active' && user.role !== 'platform_admin')) {
    throw unauthorized('Your tenant is suspended. Ask the platform operator to reactivate it.');
  }
  if (failures) await clearLoginFailures(db, email);
  return openSession(db, config, user, client);
}
