// Passwords: a signed-in user changes their own; anyone holding a reset token sets a new one.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { badRequest, linkNotValid, notFound, tooManyRequests } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/secrets.js';
import { findLiveUserByIdAnyTenant, updateUser } from '../users/users.repository.js';
import type { Principal } from './principal.js';
import { clearLoginFailures, findLoginFailures, lockedFor, recordLoginFailure } from './login-failures.repository.js';
import { LOCKOUT } from './login.service.js';
import { assertUsablePassword } from './new-password.js';
import { findRedeemableToken, redeemToken } from './redeem.service.js';
import { revokeUserSessions } from './sessions.repository.js';
import type { ClientInfo, SessionGrant } from './sessions.service.js';

/** Sets a new password after checking the current one, and signs out every other session. */
export async function changePassword(db: Db, principal: Principal, currentPassword: string, newPassword: string): Promise<void> {
  const user = principal.userId ? await findLiveUserByIdAnyTenant(db, principal.userId) : undefined;
  if (!user) throw notFound('Your user account');
  assertUsablePassword(newPassword);
  // Guesses of the current password count with the account's failed sign-ins: a stolen session or
  // key must not test passwords faster than the sign-in form allows (login.service.ts).
  const failures = await findLoginFailures(db, user.email);
  const now = Date.now();
  const lockedMs = lockedFor(failures, now);
  if (lockedMs > 0) {
    throw tooManyRequests('account_locked', 'Too many wrong passwords for this account: it is locked for a while. Try again later or ask an admin for a password reset.', lockedMs / 1000);
  }
  if (!user.password_hash || !(await verifyPassword(user.password_hash, currentPassword))) {
    await recordLoginFailure(db, user.email, failures, now, LOCKOUT);
    throw badRequest('invalid_password', 'The current password is wrong; nothing was changed.');
  }
  if (failures) await clearLoginFailures(db, user.email);
  const passwordHash = await hashPassword(newPassword);
  await db.transaction().execute(async (tx) => {
    await updateUser(tx, user.tenant_id, user.id, { password_hash: passwordHash });
    // The session that changed the password stays signed in; any other (maybe stolen) one ends.
    await revokeUserSessions(tx, user.id, principal.sessionId);
  });
}

export async function peekResetToken(db: Db, rawToken: string): Promise<{ email: string; expires_at: Date }> {
  const found = await findRedeemableToken(db, rawToken, 'reset');
  if (!found) throw linkNotValid('This password reset link', 'Ask an admin of your tenant to send a new reset link.');
  return { email: found.user.email, expires_at: found.token.expires_at };
}

export function resetPassword(db: Db, config: Config, rawToken: string, newPassword: string, client: ClientInfo): Promise<SessionGrant> {
  return redeemToken(db, config, { rawToken, kind: 'reset', newPassword, client });
}
