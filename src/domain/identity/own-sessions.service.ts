// A person's own sessions: list the live ones, revoke one. Another user's session is a 404.
import type { Db } from '../../db/database.js';
import type { Session } from '../../db/schema.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { PageRequest } from '../../lib/pagination.js';
import { findUserSession, listUserSessions, revokeSession } from './sessions.repository.js';

export function listOwnSessions(db: Db, userId: string, idleHours: number, page: PageRequest) {
  // A session unused for longer than the idle limit no longer authenticates, so it is not "live".
  return listUserSessions(db, userId, page, new Date(Date.now() - idleHours * 3_600_000));
}

export async function revokeOwnSession(db: Db, userId: string, sessionId: string): Promise<Session> {
  const session = await findUserSession(db, userId, sessionId);
  if (!session) throw notFound(`Session ${sessionId}`);
  if (session.revoked_at) throw conflict('session_revoked', `Session ${sessionId} is already revoked.`);
  const revoked = await revokeSession(db, userId, sessionId);
  // Revoked by a concurrent request between the read and the update.
  if (!revoked) throw conflict('session_revoked', `Session ${sessionId} is already revoked.`);
  return revoked;
}
