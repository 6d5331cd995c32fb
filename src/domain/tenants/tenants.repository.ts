// SQL for tenants. Deleted tenants are invisible to every read here.
import type { Db, Tx } from '../../db/database.js';
import type { Tenant } from '../../db/schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export async function findTenant(db: Db | Tx, tenantId: string): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', tenantId).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Includes deleted tenants: a deleted tenant's id stays reserved. */
export async function tenantIdTaken(db: Db | Tx, tenantId: string): Promise<boolean> {
  return (await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst()) !== undefined;
}

export async function insertTenant(db: Db | Tx, values: { id: string; name: string }): Promise<Tenant> {
  return db.insertInto('tenants').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateTenant(
  db: Db | Tx,
  tenantId: string,
  values: Partial<Pick<Tenant, 'name' | 'status' | 'deleted_at'>>,
): Promise<Tenant | undefined> {
  return db
    .updateTable('tenants')
    .set({ ...values, updated_at: new Date() })
    .where('id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function listTenants(db: Db, filters: { status?: string; q?: string }, page: PageRequest) {
  let query = db.selectFrom('tenants').selectAll().where('deleted_at', 'is', null);
  if (filters.status) query = query.where('status', '=', filters.status as Tenant['status']);
  if (filters.q) {
    const like = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) => eb.or([eb('id', 'ilike', like), eb('name', 'ilike', like)]));
  }
  return paginate(query, page);
}

export async function countTenants(db: Db | Tx): Promise<number> {
  const row = await db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Reads a live tenant and locks its row until the transaction ends. FOR NO KEY UPDATE: it
 * serialises the changes of the tenant (suspend, activate, delete) but, unlike FOR UPDATE, not the
 * rows that only refer to it. A deletion waits for the tenant's running jobs to settle, and a
 * settle writes rows referring to the tenant (artifacts, deliveries, reviews), whose key check
 * would otherwise wait for the deletion: a deadlock.
 */
export async function findTenantForUpdate(tx: Tx, tenantId: string): Promise<Tenant | undefined> {
  return tx.selectFrom('tenants').selectAll().where('id', '=', tenantId).where('deleted_at', 'is', null).forNoKeyUpdate().executeTakeFirst();
}

/**
 * Whether the tenant is live, holding its row under FOR SHARE until the transaction ends: a
 * transaction that gives the tenant new work takes it first. FOR SHARE conflicts with the FOR NO
 * KEY UPDATE of a deletion (findTenantForUpdate), so the two serialise: a deletion already under
 * way is waited for and then seen (the row re-read has its deleted_at), and a deletion that comes
 * later waits for the work to commit and ends it with the rest. Uploads of one tenant share the
 * lock and do not wait for each other.
 */
export async function shareLiveTenant(tx: Tx, tenantId: string): Promise<boolean> {
  const row = await tx.selectFrom('tenants').select('id').where('id', '=', tenantId).where('deleted_at', 'is', null).forShare().executeTakeFirst();
  return row !== undefined;
}

/** Tenant deletion: every session, pending invite/reset token and API key of the tenant stops working. */
export async function revokeTenantCredentials(db: Db | Tx, tenantId: string, at: Date): Promise<void> {
  const users = db.selectFrom('users').select('id').where('tenant_id', '=', tenantId);
  await db.updateTable('sessions').set({ revoked_at: at }).where('user_id', 'in', users).where('revoked_at', 'is', null).execute();
  await db
    .updateTable('user_tokens')
    .set({ revoked_at: at })
    .where('user_id', 'in', users)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
  await db.updateTable('api_keys').set({ revoked_at: at }).where('tenant_id', '=', tenantId).where('revoked_at', 'is', null).execute();
}
