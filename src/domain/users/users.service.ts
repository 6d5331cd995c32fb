// Tenant administration of users: invite, role changes, suspension, deletion, invitations and
// password resets. Every function acts inside the caller's (acting) tenant: a user of another
// tenant is simply not found.
import type { Db, Tx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { User } from '../../db/schema.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import type { PageRequest } from '../../lib/pagination.js';
import { revokeUserSessions } from '../identity/sessions.repository.js';
import type { Principal } from '../identity/principal.js';
import { type IssuedToken, hasLiveUserToken, issueUserToken, revokeUserTokens } from '../identity/user-tokens.js';
import { revokeUserKeys, revokeUserKeysWithRoles } from '../keys/keys.repository.js';
import {
  type UserFilters,
  findLiveUserByEmailAnyTenant,
  findUser,
  findUserForUpdate,
  insertUser,
  listUsers,
  updateUser,
} from './users.repository.js';

export const emailTaken = (email: string) =>
  conflict('email_taken', `${email} already belongs to a user; each email can have one live account on this platform.`);

export interface InviteInput {
  email: string;
  role?: 'member' | 'admin';
  display_name?: string | null;
}

export function listTenantUsers(db: Db, principal: Principal, filters: Omit<UserFilters, 'tenant_id'>, page: PageRequest) {
  return listUsers(db, principal.tenantId, { status: filters.status, role: filters.role, q: filters.q }, page);
}

/** Platform-wide (platform admins only): every tenant's users, optionally one tenant's. */
export function listPlatformUsers(db: Db, filters: UserFilters, page: PageRequest) {
  return listUsers(db, null, filters, page);
}

export async function getUser(db: Db, principal: Principal, userId: string): Promise<User> {
  const user = await findUser(db, principal.tenantId, userId);
  if (!user) throw notFound(`User ${userId}`);
  return user;
}

export async function inviteUser(db: Db, principal: Principal, input: InviteInput, baseUrl: string): Promise<{ user: User; invitation: IssuedToken }> {
  try {
    return await db.transaction().execute(async (tx) => {
      if (await findLiveUserByEmailAnyTenant(tx, input.email)) throw emailTaken(input.email);
      const user = await insertUser(tx, {
        tenant_id: principal.tenantId,
        email: input.email,
        display_name: input.display_name ?? null,
        role: input.role ?? 'member',
        status: 'invited',
        password_hash: null,
      });
      const invitation = await issueUserToken(tx, { userId: user.id, kind: 'invite', createdBy: principal.userId, baseUrl });
      return { user, invitation };
    });
  } catch (err) {
    if (isUniqueViolation(err, 'users_email_live')) throw emailTaken(input.email);
    throw err;
  }
}

/** Runs `change` on the locked user row, so the state check and the change cannot interleave with another request. */
function withUser<T>(db: Db, principal: Principal, userId: string, change: (tx: Tx, user: User) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    const user = await findUserForUpdate(tx, principal.tenantId, userId);
    if (!user) throw notFound(`User ${userId}`);
    return change(tx, user);
  });
}

// An admin locking itself out (or demoting the last admin it is) is never what was meant.
function refuseSelf(principal: Principal, user: User, verb: string): void {
  if (principal.userId === user.id) {
    throw forbidden('cannot_modify_self', `You cannot ${verb} your own account; ask another admin of your tenant.`);
  }
}

// Platform admins are managed by the platform operator (quire create-admin), never by a tenant's admins.
function refusePlatformAdmin(user: User, verb: string): void {
  if (user.role === 'platform_admin') {
    throw forbidden('platform_admin_protected', `${user.email} is a platform admin and cannot be ${verb} through tenant administration.`);
  }
}

// Issuing a platform admin's invite or reset token hands over its account: only another platform admin may.
function refusePlatformAdminTakeover(principal: Principal, user: User): void {
  if (user.role === 'platform_admin' && principal.role !== 'platform_admin') {
    throw forbidden('platform_admin_protected', `${user.email} is a platform admin; only a platform admin can issue its invitations or password resets.`);
  }
}

export function promoteUser(db: Db, principal: Principal, userId: string): Promise<User> {
  return withUser(db, principal, userId, async (tx, user) => {
    if (user.role !== 'member') throw conflict('already_admin', `${user.email} is already ${user.role === 'admin' ? 'an admin' : 'a platform admin'}.`);
    return (await updateUser(tx, principal.tenantId, user.id, { role: 'admin' }))!;
  });
}

export function demoteUser(db: Db, principal: Principal, userId: string): Promise<User> {
  return withUser(db, principal, userId, async (tx, user) => {
    refuseSelf(principal, user, 'demote');
    refusePlatformAdmin(user, 'demoted');
    if (user.role === 'member') throw conflict('already_member', `${user.email} is already a member.`);
    const updated = (await updateUser(tx, principal.tenantId, user.id, { role: 'member' }))!;
    // Own keys carry their role; an admin key kept after demotion would keep admin powers.
    await revokeUserKeysWithRoles(tx, principal.tenantId, user.id, ['admin', 'platform_admin']);
    return updated;
  });
}

export function suspendUser(db: Db, principal: Principal, userId: string): Promise<User> {
  return withUser(db, principal, userId, async (tx, user) => {
    refuseSelf(principal, user, 'suspend');
    refusePlatformAdmin(user, 'suspended');
    if (user.status !== 'active') throw conflict('user_not_active', `Only an active user can be suspended; ${user.email} is ${user.status}.`);
    const updated = (await updateUser(tx, principal.tenantId, user.id, { status: 'suspended' }))!;
    await revokeUserSessions(tx, user.id);
    await revokeUserTokens(tx, user.id, 'reset');
    return updated;
  });
}

export function activateUser(db: Db, principal: Principal, userId: string): Promise<User> {
  return withUser(db, principal, userId, async (tx, user) => {
    if (user.status !== 'suspended') {
      throw conflict('user_not_suspended', `Only a suspended user can be activated; ${user.email} is ${user.status}${user.status === 'invited' ? ' (resend the invitation instead)' : ''}.`);
    }
    return (await updateUser(tx, principal.tenantId, user.id, { status: 'active' }))!;
  });
}

/** Soft delete: the user disappears, its sessions, own keys and pending tokens stop working, its email is free again. */
export function deleteUser(db: Db, principal: Principal, userId: string): Promise<void> {
  return withUser(db, principal, userId, async (tx, user) => {
    refuseSelf(principal, user, 'delete');
    refusePlatformAdmin(user, 'deleted');
    await updateUser(tx, principal.tenantId, user.id, { deleted_at: new Date() });
    await revokeUserSessions(tx, user.id);
    await revokeUserKeys(tx, principal.tenantId, user.id);
    await revokeUserTokens(tx, user.id, 'invite');
    await revokeUserTokens(tx, user.id, 'reset');
  });
}

export function issuePasswordReset(db: Db, principal: Principal, userId: string, baseUrl: string): Promise<{ user: User; reset: IssuedToken }> {
  return withUser(db, principal, userId, async (tx, user) => {
    refusePlatformAdminTakeover(principal, user);
    if (user.status !== 'active') {
      throw conflict('user_not_active', `Only an active user can reset a password; ${user.email} is ${user.status}${user.status === 'invited' ? ' (resend the invitation instead)' : ''}.`);
    }
    const reset = await issueUserToken(tx, { userId: user.id, kind: 'reset', createdBy: principal.userId, baseUrl });
    return { user, reset };
  });
}

/** A fresh invitation; the earlier one stops working. */
export function resendInvite(db: Db, principal: Principal, userId: string, baseUrl: string): Promise<{ user: User; invitation: IssuedToken }> {
  return withUser(db, principal, userId, async (tx, user) => {
    refusePlatformAdminTakeover(principal, user);
    if (user.status !== 'invited') throw conflict('user_not_invited', `${user.email} has already accepted the invitation (status ${user.status}).`);
    const invitation = await issueUserToken(tx, { userId: user.id, kind: 'invite', createdBy: principal.userId, baseUrl });
    return { user, invitation };
  });
}

/**
 * The pending invitation stops working; the user stays invited and can be sent a new one. With no
 * live invitation (already revoked, or expired) there is nothing to revoke: 409, as a second
 * revoke of a key or a session is.
 */
export function revokeInvite(db: Db, principal: Principal, userId: string): Promise<User> {
  return withUser(db, principal, userId, async (tx, user) => {
    refusePlatformAdminTakeover(principal, user);
    if (user.status !== 'invited') throw conflict('user_not_invited', `${user.email} has already accepted the invitation (status ${user.status}).`);
    if (!(await hasLiveUserToken(tx, user.id, 'invite'))) {
      throw conflict('invitation_not_pending', `${user.email} has no pending invitation to revoke (it was revoked or has expired); resend-invite issues a new one.`);
    }
    await revokeUserTokens(tx, user.id, 'invite');
    return user;
  });
}
