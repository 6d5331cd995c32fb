// Single-use invitation and reset tokens (decisions.md: invites 7 days, resets 1 hour).
// Only the SHA-256 of a token is stored; the raw token appears once, in the issuing response.
import type { Db, Tx } from '../../db/database.js';
import type { User, UserToken } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { randomToken, sha256 } from '../../lib/secrets.js';

export type TokenKind = 'invite' | 'reset';

const LIFETIME_MS: Record<TokenKind, number> = { invite: 7 * 24 * 3_600_000, reset: 3_600_000 };
// The console pages that take each token (served under /app by the web console).
const CONSOLE_PATH: Record<TokenKind, string> = { invite: '/app/accept-invite', reset: '/app/reset-password' };

export interface IssuedToken {
  token: string;
  url: string;
  expires_at: Date;
}

/** Issues a fresh token of `kind`, revoking any earlier live one of the same kind for the user. */
export async function issueUserToken(
  tx: Tx,
  args: { userId: string; kind: TokenKind; createdBy: string | null; baseUrl: string },
): Promise<IssuedToken> {
  await revokeUserTokens(tx, args.userId, args.kind);
  const token = randomToken();
  const expiresAt = new Date(Date.now() + LIFETIME_MS[args.kind]);
  await tx
    .insertInto('user_tokens')
    .values({ id: newId('tok'), user_id: args.userId, kind: args.kind, token_hash: sha256(token), created_by: args.createdBy, expires_at: expiresAt })
    .execute();
  return { token, url: `${args.baseUrl}${CONSOLE_PATH[args.kind]}?token=${encodeURIComponent(token)}`, expires_at: expiresAt };
}

export async function revokeUserTokens(db: Db | Tx, userId: string, kind: TokenKind): Promise<number> {
  const result = await db
    .updateTable('user_tokens')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Whether the user holds a live (unused, unrevoked, unexpired) token of `kind`. */
export async function hasLiveUserToken(db: Db | Tx, userId: string, kind: TokenKind): Promise<boolean> {
  const row = await db
    .selectFrom('user_tokens')
    .select('id')
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  return row !== undefined;
}

/** A live (unused, unrevoked, unexpired) token of `kind` with its live user, or undefined. */
export async function findLiveUserToken(
  db: Db | Tx,
  rawToken: string,
  kind: TokenKind,
): Promise<{ token: UserToken; user: User } | undefined> {
  const token = await db
    .selectFrom('user_tokens')
    .selectAll()
    .where('token_hash', '=', sha256(rawToken))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  if (!token) return undefined;
  const user = await db.selectFrom('users').selectAll().where('id', '=', token.user_id).where('deleted_at', 'is', null).executeTakeFirst();
  return user ? { token, user } : undefined;
}

/** Marks a token used; false when another request consumed it first (single use). */
export async function consumeUserToken(tx: Tx, tokenId: string): Promise<boolean> {
  const result = await tx
    .updateTable('user_tokens')
    .set({ used_at: new Date() })
    .where('id', '=', tokenId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
