// API keys at both levels: own keys (scope 'user') and tenant-wide keys (scope 'tenant').
// The secret `qk_<public_id>_<secret>` is returned once, at create and rotate; only its hash is kept.
import type { Db } from '../../db/database.js';
import type { ApiKey, Role } from '../../db/schema.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageRequest } from '../../lib/pagination.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import { API_KEY_TOKEN_PREFIX } from '../identity/credentials.js';
import { type Principal, roleAtLeast } from '../identity/principal.js';
import { type KeyScope, findKey, insertKey, listKeys, replaceSecret, revokeLiveKey } from './keys.repository.js';

export interface KeyWithSecret {
  key: ApiKey;
  secret: string;
}

function mint(publicId: string): { secret: string; prefix: string; tokenHash: string } {
  const raw = randomToken();
  const secret = `${API_KEY_TOKEN_PREFIX}${publicId}_${raw}`;
  // Enough to recognise a key in a list, far too little to guess the rest (4 of 43 characters).
  return { secret, prefix: `${API_KEY_TOKEN_PREFIX}${publicId}_${raw.slice(0, 4)}`, tokenHash: sha256(secret) };
}

export function ownScope(principal: Principal): KeyScope {
  return { tenantId: principal.tenantId, scope: 'user', ownerUserId: principal.userId };
}

export function tenantScope(principal: Principal): KeyScope {
  return { tenantId: principal.tenantId, scope: 'tenant', ownerUserId: null };
}

export async function createKey(
  db: Db,
  principal: Principal,
  scope: KeyScope,
  input: { name: string; role?: Role; expires_at?: string | null },
): Promise<KeyWithSecret> {
  const role = input.role ?? (scope.scope === 'tenant' ? 'member' : principal.role);
  if (!roleAtLeast(principal.role, role)) {
    throw forbidden('role_exceeds_owner', `A key cannot hold more than its creator's role: ask for ${principal.role} or less, not ${role}.`);
  }
  const publicId = newId('key');
  const minted = mint(publicId);
  const key = await insertKey(db, {
    id: publicId,
    scope,
    name: input.name,
    role,
    prefix: minted.prefix,
    tokenHash: minted.tokenHash,
    createdBy: principal.userId,
    expiresAt: input.expires_at ? new Date(input.expires_at) : null,
  });
  return { key, secret: minted.secret };
}

export function listScopedKeys(db: Db, scope: KeyScope, page: PageRequest) {
  return listKeys(db, scope, page);
}

/** Revokes a live key; a revoke that lost a race with another (or came late) is 409 key_revoked. */
export async function revokeKey(db: Db, scope: KeyScope, publicId: string): Promise<ApiKey> {
  const revoked = await revokeLiveKey(db, scope, publicId);
  if (revoked) return revoked;
  if (!(await findKey(db, scope, publicId))) throw notFound(`API key ${publicId}`);
  throw conflict('key_revoked', `API key ${publicId} is already revoked.`);
}

/**
 * Replaces the secret of a live key; the old secret stops working at once. The new secret is the
 * key's whole power, so only a credential holding at least the key's role may ask for it (a
 * member-role key of an admin must not mint a secret of the admin's other keys). The write only
 * replaces the secret this call read: a rotation racing another, or a revoke, that changed the
 * key first wins, and this one is 409 (key_rotated, key_revoked or key_expired) instead of
 * answering a secret that would not work.
 */
export async function rotateKey(db: Db, principal: Principal, scope: KeyScope, publicId: string): Promise<KeyWithSecret> {
  const key = await findKey(db, scope, publicId);
  if (!key) throw notFound(`API key ${publicId}`);
  if (!roleAtLeast(principal.role, key.role)) {
    throw forbidden('role_exceeds_owner', `API key ${publicId} holds the ${key.role} role, more than this credential's (${principal.role}); rotate it with a credential of that role.`);
  }
  assertRotatable(key);
  const minted = mint(publicId);
  const updated = await replaceSecret(db, scope, publicId, key.token_hash, minted);
  if (updated) return { key: updated, secret: minted.secret };
  const now = await findKey(db, scope, publicId);
  if (!now) throw notFound(`API key ${publicId}`);
  assertRotatable(now);
  throw conflict('key_rotated', `API key ${publicId} was rotated by another request at the same time; the secret that request answered is the key's secret now. Rotate again if you need another.`);
}

function assertRotatable(key: ApiKey): void {
  if (key.revoked_at) throw conflict('key_revoked', `API key ${key.id} is revoked; create a new key instead.`);
  if (key.expires_at && key.expires_at.getTime() <= Date.now()) {
    throw conflict('key_expired', `API key ${key.id} has expired; create a new key instead.`);
  }
}
