// Opening a session: the answer shared by login, accept-invite and reset-password.
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/database.js';
import type { User } from '../../db/schema.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import { SESSION_TOKEN_PREFIX } from './credentials.js';
import { insertSession } from './sessions.repository.js';

export interface SessionGrant {
  access_token: string;
  token_type: 'bearer';
  expires_at: Date;
  session_id: string;
  user: User;
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export async function openSession(db: Db | Tx, config: Config, user: User, client: ClientInfo): Promise<SessionGrant> {
  const token = `${SESSION_TOKEN_PREFIX}${randomToken()}`;
  const expiresAt = new Date(Date.now() + config.sessionMaxDays * 24 * 3_600_000);
  const session = await insertSession(db, { userId: user.id, tokenHash: sha256(token), ip: client.ip, userAgent: client.userAgent, expiresAt });
  await db.updateTable('users').set({ last_login_at: new Date(), failed_login_count: 0, failed_login_window_start: null, locked_until: null }).where('id', '=', user.id).execute();
  return { access_token: token, token_type: 'bearer', expires_at: expiresAt, session_id: session.id, user };
}
