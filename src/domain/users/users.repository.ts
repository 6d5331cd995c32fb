// SQL for users. Every read of tenant data takes the tenant id; the two lookups that must work
// before a tenant is known (login by email, token resolution by user id) say so in their names.
import type { Db, Tx } from '../../db/database.js';
import type { NewUser, User, UserUpdate } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export interface UserFilters {
  status?: string;
  role?: string;
  q?: string;
  tenant_id?: string;
}

function escapeLike(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function findUser(db: Db | Tx, tenantId: string, userId: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Platform-wide: login knows only the email. */
export async function findLiveUserByEmailAnyTenant(db: Db | Tx, email: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Platform-wide: a credential (session, key, token) names its user by id alone. */
export async function findLiveUserByIdAnyTenant(db: Db | Tx, userId: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function insertUser(db: Db | Tx, values: Omit<NewUser, 'id'>): Promise<User> {
  return db.insertInto('users').values({ id: newId('usr'), ...values }).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Db | Tx, tenantId: string, userId: string, values: UserUpdate): Promise<User | undefined> {
  return db
    .updateTable('users')
    .set({ ...values, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function listUsers(db: Db, tenantId: string | null, filters: UserFilters, page: PageRequest) {
  let query = db.selectFrom('users').selectAll().where('deleted_at', 'is', null);
  // null = every tenant; only the platform users route passes it.
  if (tenantId !== null) query = query.where('tenant_id', '=', tenantId);
  if (filters.tenant_id) query = query.where('tenant_id', '=', filters.tenant_id);
  if (filters.status) query = query.where('status', '=', filters.status as User['status']);
  if (filters.role) query = query.where('role', '=', filters.role as User['role']);
  if (filters.q) {
    const like = escapeLike(filters.q);
    query = query.where((eb) => eb.or([eb('email', 'ilike', like), eb('display_name', 'ilike', like)]));
  }
  return paginate(query, page);
}

export async function countActivePlatformAdmins(db: Db | Tx, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'platform_admin')
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Reads a user and locks its row until the transaction ends, so a state check and its change are atomic. */
export async function findUserForUpdate(tx: Tx, tenantId: string, userId: string): Promise<User | undefined> {
  return tx
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** Tenant deletion: its users go with it, which also frees their emails for use elsewhere. */
export async function softDeleteTenantUsers(db: Db | Tx, tenantId: string, at: Date): Promise<number> {
  const result = await db
    .updateTable('users')
    .set({ deleted_at: at, updated_at: at })
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
