// Redeeming a single-use invitation or reset token: the shared second half of accept-invite and
// reset-password. The token is consumed, the password set, lockout cleared, every earlier session
// revoked and a new session opened, all in one transaction: a failure leaves the token usable.
import { clearLoginFailures } from './login-failures.repository.js';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/database.js';
import type { User, UserToken } from '../../db/schema.js';
import { badRequest, unauthorized } from '../../lib/errors.js';
import { hashPassword } from '../../lib/secrets.js';
import { findTenant } from '../tenants/tenants.repository.js';
import { updateUser } from '../users/users.repository.js';
import { assertUsablePassword } from './new-password.js';
import { revokeUserSessions } from './sessions.repository.js';
import { type ClientInfo, type SessionGrant, openSession } from './sessions.service.js';
import { type TokenKind, consumeUserToken, findLiveUserToken, revokeUserTokens } from './user-tokens.js';

// The account state a token can act on: an invitation is for an invited user, a reset for an active one.
const ELIGIBLE_STATUS: Record<TokenKind, User['status']> = { invite: 'invited', reset: 'active' };

/** A live token whose user is still in the state the token was issued for, or undefined. */
export async function findRedeemableToken(
  db: Db | Tx,
  rawToken: string,
  kind: TokenKind,
): Promise<{ token: UserToken; user: User } | undefined> {
  const found = await findLiveUserToken(db, rawToken, kind);
  return found && found.user.status === ELIGIBLE_STATUS[kind] ? found : undefined;
}

export function invalidToken(kind: TokenKind) {
  const what = kind === 'invite' ? 'invitation' : 'password reset';
  return badRequest('invalid_token', `This ${what} link is invalid, expired or already used. Ask an admin of your tenant for a new one.`);
}

export async function redeemToken(
  db: Db,
  config: Config,
  args: { rawToken: string; kind: TokenKind; newPassword: string; client: ClientInfo },
): Promise<SessionGrant> {
  assertUsablePassword(args.newPassword);
  // Reject unknown tokens before paying for an argon2 hash.
  if (!(await findRedeemableToken(db, args.rawToken, args.kind))) throw invalidToken(args.kind);
  const passwordHash = await hashPassword(args.newPassword);
  return db.transaction().execute(async (tx) => {
    const found = await findRedeemableToken(tx, args.rawToken, args.kind);
    if (!found) throw invalidToken(args.kind);
    const tenant = await findTenant(tx, found.user.tenant_id);
    if (!tenant || (tenant.status !== 'active' && found.user.role !== 'platform_admin')) {
      // Same answer as login; the token is left unused so it works once the tenant is reactivated.
      throw unauthorized('Your tenant is suspended. Ask the platform operator to reactivate it.');
    }
    if (!(await consumeUserToken(tx, found.token.id))) throw invalidToken(args.kind);
    const user = await updateUser(tx, found.user.tenant_id, found.user.id, {
      password_hash: passwordHash,
      status: 'active',
      failed_login_count: 0,
      failed_login_window_start: null,
      locked_until: null,
      last_login_at: new Date(),
    });
    if (!user) throw invalidToken(args.kind);
    await clearLoginFailures(tx, user.email);
    await revokeUserTokens(tx, user.id, args.kind);
    await revokeUserSessions(tx, user.id);
    return openSession(tx, config, user, args.client);
  });
}
