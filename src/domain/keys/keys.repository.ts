// SQL for API keys. Reads are scoped by tenant, and for own keys by owner as well.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { ApiKey, Role } from '../../db/schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export interface KeyScope {
  tenantId: string;
  scope: 'user' | 'tenant';
  /** Required for scope 'user': own keys are visible to their owner only. */
  ownerUserId: string | null;
}

function scoped(db: Db | Tx, s: KeyScope) {
  let q = db.selectFrom('api_keys').selectAll().where('tenant_id', '=', s.tenantId).where('scope', '=', s.scope);
  if (s.scope === 'user') q = q.where('owner_user_id', '=', s.ownerUserId);
  return q;
}

export async function insertKey(
  db: Db | Tx,
  values: { id: string; scope: KeyScope; name: string; role: Role; prefix: string; tokenHash: string; createdBy: string | null; expiresAt: Date | null },
): Promise<ApiKey> {
  return db
    .insertInto('api_keys')
    .values({
      id: values.id,
      tenant_id: values.scope.tenantId,
      scope: values.scope.scope,
      owner_user_id: values.scope.ownerUserId,
      name: values.name,
      role: values.role,
      prefix: values.prefix,
      token_hash: values.tokenHash,
      created_by: values.createdBy,
      expires_at: values.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listKeys(db: Db, s: KeyScope, page: PageRequest) {
  return paginate(scoped(db, s), page);
}

export async function findKey(db: Db | Tx, s: KeyScope, publicId: string): Promise<ApiKey | undefined> {
  return scoped(db, s).where('id', '=', publicId).executeTakeFirst();
}

function updateScoped(db: Db | Tx, s: KeyScope, publicId: string) {
  let q = db.updateTable('api_keys').where('tenant_id', '=', s.tenantId).where('scope', '=', s.scope).where('id', '=', publicId);
  if (s.scope === 'user') q = q.where('owner_user_id', '=', s.ownerUserId);
  return q;
}

/**
 * Revokes a key still live. Guarded by `revoked_at IS NULL`, so of two revokes racing exactly one
 * changes the row (the other waits for its lock, then finds it revoked): undefined for the loser.
 */
export async function revokeLiveKey(db: Db | Tx, s: KeyScope, publicId: string): Promise<ApiKey | undefined> {
  return updateScoped(db, s, publicId).set({ revoked_at: new Date() }).where('revoked_at', 'is', null).returningAll().executeTakeFirst();
}

/**
 * Replaces the secret of a live, unexpired key, only if it still has the secret the caller read
 * (`fromHash`): of two rotations racing, or a rotation racing a revoke, exactly one changes the
 * row, so a secret handed out is the key's secret when it is answered. Undefined otherwise.
 */
export async function replaceSecret(db: Db | Tx, s: KeyScope, publicId: string, fromHash: string, to: { prefix: string; tokenHash: string }): Promise<ApiKey | undefined> {
  return updateScoped(db, s, publicId)
    .set({ prefix: to.prefix, token_hash: to.tokenHash })
    .where('token_hash', '=', fromHash)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

/** Platform-wide: a presented key is found by its hash before its tenant is known. */
export async function findKeyByHashAnyTenant(db: Db, tokenHash: string): Promise<ApiKey | undefined> {
  return db.selectFrom('api_keys').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function touchKey(db: Db, publicId: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', publicId).execute();
}

/** Revokes the own keys of a user (suspension, deletion). */
export async function revokeUserKeys(db: Db | Tx, tenantId: string, userId: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('owner_user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes a user's own keys holding one of `roles` (a demotion: own keys never exceed the owner's role). */
export async function revokeUserKeysWithRoles(db: Db | Tx, tenantId: string, userId: string, roles: Role[]): Promise<void> {
  if (roles.length === 0) return;
  await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('owner_user_id', '=', userId)
    .where('role', 'in', roles)
    .where('revoked_at', 'is', null)
    .execute();
}
