// SQL for sessions. A session belongs to a user; callers pass the user id they act for.
import type { Db, Tx } from '../../db/database.js';
import type { Session } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export async function insertSession(
  db: Db | Tx,
  values: { userId: string; tokenHash: string; ip: string | null; userAgent: string | null; expiresAt: Date },
): Promise<Session> {
  return db
    .insertInto('sessions')
    .values({ id: newId('ses'), user_id: values.userId, token_hash: values.tokenHash, ip: values.ip, user_agent: values.userAgent, expires_at: values.expiresAt })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findSessionByHash(db: Db, tokenHash: string): Promise<Session | undefined> {
  return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function touchSession(db: Db, sessionId: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: new Date() }).where('id', '=', sessionId).execute();
}

/** Unrevoked, unexpired sessions; with `seenSince`, only those used since then (idle limit). */
export async function listUserSessions(db: Db, userId: string, page: PageRequest, seenSince?: Date) {
  let query = db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date());
  if (seenSince) query = query.where('last_seen_at', '>', seenSince);
  return paginate(query, page);
}

export async function findUserSession(db: Db, userId: string, sessionId: string): Promise<Session | undefined> {
  return db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('id', '=', sessionId).executeTakeFirst();
}

export async function revokeSession(db: Db | Tx, userId: string, sessionId: string): Promise<Session | undefined> {
  return db
    .updateTable('sessions')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Revokes every live session of a user, except `keepSessionId` when given. */
export async function revokeUserSessions(db: Db | Tx, userId: string, keepSessionId: string | null = null): Promise<void> {
  let q = db.updateTable('sessions').set({ revoked_at: new Date() }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keepSessionId) q = q.where('id', '!=', keepSessionId);
  await q.execute();
}
