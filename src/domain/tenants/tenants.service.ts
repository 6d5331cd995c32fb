// Platform administration of tenants: create (with its first admin's invitation), rename,
// suspend, activate and delete. Only platform admins reach these (routes declare platform_admin).
import type { Db, Tx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Tenant, User } from '../../db/schema.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../identity/principal.js';
import { type IssuedToken, issueUserToken } from '../identity/user-tokens.js';
import { countActivePlatformAdmins, findLiveUserByEmailAnyTenant, insertUser, softDeleteTenantUsers } from '../users/users.repository.js';
import { emailTaken } from '../users/users.service.js';
import { actorOf } from '../documents/submit.service.js';
import { type EndedWork, endTenantWork } from './tenant-work.js';
import {
  findTenant,
  findTenantForUpdate,
  insertTenant,
  listTenants,
  revokeTenantCredentials,
  tenantIdTaken,
  updateTenant,
} from './tenants.repository.js';

export interface NewTenantInput {
  id: string;
  name: string;
  initial_admin_email: string;
}

export interface CreatedTenant {
  tenant: Tenant;
  admin: User;
  invitation: IssuedToken;
}

const tenantExists = (id: string) =>
  conflict('tenant_exists', `Tenant id "${id}" is taken (ids of deleted tenants stay reserved); choose another id.`);

export function listTenantsPage(db: Db, filters: { status?: string; q?: string }, page: PageRequest) {
  return listTenants(db, filters, page);
}

export async function getTenant(db: Db, tenantId: string): Promise<Tenant> {
  const tenant = await findTenant(db, tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant;
}

/** The tenant, its invited admin and the invitation commit together, or not at all. */
export async function createTenant(db: Db, actor: Principal, input: NewTenantInput, baseUrl: string): Promise<CreatedTenant> {
  try {
    return await db.transaction().execute(async (tx) => {
      if (await tenantIdTaken(tx, input.id)) throw tenantExists(input.id);
      if (await findLiveUserByEmailAnyTenant(tx, input.initial_admin_email)) throw emailTaken(input.initial_admin_email);
      const tenant = await insertTenant(tx, { id: input.id, name: input.name });
      const admin = await insertUser(tx, {
        tenant_id: tenant.id,
        email: input.initial_admin_email,
        display_name: null,
        role: 'admin',
        status: 'invited',
        password_hash: null,
      });
      const invitation = await issueUserToken(tx, { userId: admin.id, kind: 'invite', createdBy: actor.userId, baseUrl });
      return { tenant, admin, invitation };
    });
  } catch (err) {
    // Two concurrent creates pass the checks above; the constraints decide who wins.
    if (isUniqueViolation(err, 'tenants_pkey')) throw tenantExists(input.id);
    if (isUniqueViolation(err, 'users_email_live')) throw emailTaken(input.initial_admin_email);
    throw err;
  }
}

export async function renameTenant(db: Db, tenantId: string, changes: { name?: string }): Promise<Tenant> {
  if (changes.name === undefined) return getTenant(db, tenantId);
  const tenant = await updateTenant(db, tenantId, { name: changes.name });
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant;
}

async function lockTenant(tx: Tx, tenantId: string): Promise<Tenant> {
  const tenant = await findTenantForUpdate(tx, tenantId);
  if (!tenant) throw notFound(`Tenant ${tenantId}`);
  return tenant;
}

// Suspending or deleting the tenant of a platform admin would lock the operator out of its own home.
async function refuseIfHostsPlatformAdmin(tx: Tx, tenant: Tenant, verb: string): Promise<void> {
  if ((await countActivePlatformAdmins(tx, tenant.id)) > 0) {
    throw conflict('tenant_hosts_platform_admin', `Tenant ${tenant.id} is home to a platform admin and cannot be ${verb}; move or demote the platform admin first.`);
  }
}

export async function suspendTenant(db: Db, tenantId: string): Promise<Tenant> {
  return db.transaction().execute(async (tx) => {
    const tenant = await lockTenant(tx, tenantId);
    if (tenant.status === 'suspended') throw conflict('tenant_suspended', `Tenant ${tenantId} is already suspended.`);
    await refuseIfHostsPlatformAdmin(tx, tenant, 'suspended');
    // Credentials are checked against the tenant's status on every request, so nothing needs
    // revoking: its users get 401 while it is suspended and resume when it is activated.
    return (await updateTenant(tx, tenantId, { status: 'suspended' }))!;
  });
}

export async function activateTenant(db: Db, tenantId: string): Promise<Tenant> {
  return db.transaction().execute(async (tx) => {
    const tenant = await lockTenant(tx, tenantId);
    if (tenant.status === 'active') throw conflict('tenant_active', `Tenant ${tenantId} is already active.`);
    return (await updateTenant(tx, tenantId, { status: 'active' }))!;
  });
}

/**
 * Soft delete: the tenant and its users disappear, every credential of theirs stops working, the id
 * stays reserved, and its work ends (tenant-work.ts), all in one transaction.
 */
export async function deleteTenant(db: Db, actor: Principal, tenantId: string): Promise<EndedWork> {
  return db.transaction().execute(async (tx) => {
    const tenant = await lockTenant(tx, tenantId);
    await refuseIfHostsPlatformAdmin(tx, tenant, 'deleted');
    const ended = await endTenantWork(tx, tenantId, actorOf(actor));
    const at = new Date();
    await revokeTenantCredentials(tx, tenantId, at);
    await softDeleteTenantUsers(tx, tenantId, at);
    await updateTenant(tx, tenantId, { deleted_at: at });
    return ended;
  });
}
