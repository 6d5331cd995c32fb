// Turns a bearer token into a Principal, or refuses it. The one place credentials are checked.
import type { Db } from '../../db/database.js';
import type { Role } from '../../db/schema.js';
import { notFound, unauthorized } from '../../lib/errors.js';
import { sha256 } from '../../lib/secrets.js';
import { findKeyByHashAnyTenant, touchKey } from '../keys/keys.repository.js';
import { findTenant } from '../tenants/tenants.repository.js';
import { findLiveUserByIdAnyTenant } from '../users/users.repository.js';
import { type Principal, roleAtLeast } from './principal.js';
import { findSessionByHash, touchSession } from './sessions.repository.js';

export interface SessionPolicy {
  idleHours: number;
}

// Writing last-seen on every request would make every read a write; once a minute is plenty.
const TOUCH_INTERVAL_MS = 60_000;

export const SESSION_TOKEN_PREFIX = 'qs_';
export const API_KEY_TOKEN_PREFIX = 'qk_';

export async function resolveBearer(
  db: Db,
  token: string,
  requestedTenantId: string | null,
  policy: SessionPolicy,
): Promise<Principal> {
  return (await resolveBearerUntil(db, token, requestedTenantId, policy)).principal;
}

/** A resolved credential and the epoch ms until which it stays valid by itself (expiry, idle timeout). */
export interface Resolved {
  principal: Principal;
  validUntil: number;
}

export async function resolveBearerUntil(db: Db, token: string, requestedTenantId: string | null, policy: SessionPolicy): Promise<Resolved> {
  const resolved = token.startsWith(API_KEY_TOKEN_PREFIX)
    ? await resolveApiKey(db, token)
    : token.startsWith(SESSION_TOKEN_PREFIX)
      ? await resolveSession(db, token, policy)
      : null;
  if (!resolved) throw unauthorized('The bearer token is not valid: it may have expired or been revoked. Sign in again.');
  const { principal: base, validUntil } = resolved;

  const home = await findTenant(db, base.homeTenantId);
  if (!home || home.status !== 'active') {
    // A platform admin keeps access while its home tenant is suspended, or nobody could lift it.
    if (!(home && base.role === 'platform_admin')) throw unauthorized('Your tenant is suspended or deleted.');
  }
  if (!requestedTenantId || requestedTenantId === base.homeTenantId) return { principal: base, validUntil };
  if (base.role !== 'platform_admin') throw notFound(`Tenant ${requestedTenantId}`);
  const acting = await findTenant(db, requestedTenantId);
  if (!acting) throw notFound(`Tenant ${requestedTenantId}`);
  return { principal: { ...base, tenantId: acting.id }, validUntil };
}

async function resolveSession(db: Db, token: string, policy: SessionPolicy): Promise<Resolved | null> {
  const session = await findSessionByHash(db, sha256(token));
  const now = Date.now();
  if (!session || session.revoked_at || session.expires_at.getTime() <= now) return null;
  if (session.last_seen_at.getTime() + policy.idleHours * 3_600_000 <= now) return null;
  const user = await findLiveUserByIdAnyTenant(db, session.user_id);
  if (!user || user.status !== 'active') return null;
  if (now - session.last_seen_at.getTime() > TOUCH_INTERVAL_MS) await touchSession(db, session.id);
  const idleUntil = Math.max(session.last_seen_at.getTime(), now - TOUCH_INTERVAL_MS) + policy.idleHours * 3_600_000;
  return { principal: principal(user.id, user.email, user.role, user.tenant_id, 'session', session.id, null), validUntil: Math.min(session.expires_at.getTime(), idleUntil) };
}

async function resolveApiKey(db: Db, token: string): Promise<Resolved | null> {
  const key = await findKeyByHashAnyTenant(db, sha256(token));
  const now = Date.now();
  if (!key || key.revoked_at || (key.expires_at && key.expires_at.getTime() <= now)) return null;
  let email: string | null = null;
  let role = key.role;
  if (key.scope === 'user') {
    const owner = key.owner_user_id ? await findLiveUserByIdAnyTenant(db, key.owner_user_id) : undefined;
    if (!owner || owner.status !== 'active') return null;
    email = owner.email;
    // An own key never outranks its owner, even after the owner is demoted.
    if (!roleAtLeast(owner.role, role)) role = owner.role;
  }
  // A tenant-wide key belongs to its tenant, whose admins list and revoke it: it never carries
  // platform power, whatever its row says (the API creates none; a row written by hand could).
  if (key.scope === 'tenant' && role === 'platform_admin') role = 'admin';
  if (!key.last_used_at || now - key.last_used_at.getTime() > TOUCH_INTERVAL_MS) await touchKey(db, key.id);
  return {
    principal: principal(key.scope === 'user' ? key.owner_user_id : null, email, role, key.tenant_id, 'api_key', null, key.id),
    validUntil: key.expires_at ? key.expires_at.getTime() : Number.POSITIVE_INFINITY,
  };
}

function principal(
  userId: string | null,
  email: string | null,
  role: Role,
  tenantId: string,
  method: Principal['method'],
  sessionId: string | null,
  apiKeyId: string | null,
): Principal {
  return { userId, email, role, tenantId, homeTenantId: tenantId, method, sessionId, apiKeyId };
}
