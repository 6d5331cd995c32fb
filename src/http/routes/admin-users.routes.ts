// Tenant administration of users (admins of the acting tenant; a platform admin picks the tenant with X-Tenant-Id).
import type { User } from '../../db/schema.js';
import type { Principal } from '../../domain/identity/principal.js';
import {
  activateUser,
  deleteUser,
  demoteUser,
  getUser,
  inviteUser,
  issuePasswordReset,
  listTenantUsers,
  promoteUser,
  resendInvite,
  revokeInvite,
  suspendUser,
} from '../../domain/users/users.service.js';
import { baseUrl } from '../base-url.js';
import { type App, type AppContext, type RouteModule, caller } from '../context.js';
import { UserAndInvitation, UserAndReset, UserInviteBody, UserListQuery, UserParams, UserWithInvitation } from '../schemas/admin.js';
import { NoContent, Page } from '../schemas/common.js';
import { UserRecord, presentUser } from '../schemas/identity.js';
import { mailUserTokenInBackground } from '../../domain/mail/user-token-mail.js';

const tags = ['users'];
const config = { permission: 'admin' as const };

/** The state-changing actions that answer the updated user. */
const ACTIONS: { path: string; operationId: string; summary: string; run: (db: AppContext['db'], p: Principal, userId: string) => Promise<User> }[] = [
  { path: 'promote', operationId: 'admin.users.promote', summary: 'Make a member an admin', run: promoteUser },
  { path: 'demote', operationId: 'admin.users.demote', summary: 'Make an admin a member (its admin-level own keys are revoked)', run: demoteUser },
  { path: 'suspend', operationId: 'admin.users.suspend', summary: 'Suspend an active user and end its sessions', run: suspendUser },
  { path: 'activate', operationId: 'admin.users.activate', summary: 'Reactivate a suspended user', run: activateUser },
  { path: 'revoke-invite', operationId: 'admin.users.revoke_invite', summary: "Revoke an invited user's pending invitation", run: revokeInvite },
];

function registerAction(app: App, ctx: AppContext, action: (typeof ACTIONS)[number]): void {
  app.post(
    `/v1/admin/users/:user_id/${action.path}`,
    { config, schema: { tags, operationId: action.operationId, summary: action.summary, params: UserParams, response: { 200: UserRecord } } },
    async (request) => presentUser(await action.run(ctx.db, caller(request), request.params.user_id)),
  );
}

export const adminUsersRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/admin/users',
    { config, schema: { tags, operationId: 'admin.users.list', summary: "List the tenant's users, newest first", querystring: UserListQuery, response: { 200: Page(UserRecord) } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listTenantUsers(ctx.db, caller(request), filters, { limit, cursor });
      return { items: page.items.map(presentUser), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/admin/users',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.users.invite',
        summary: 'Invite a user to the tenant; answers the invitation once',
        body: UserInviteBody,
        response: { 201: UserWithInvitation },
      },
    },
    async (request, reply) => {
      const { user, invitation } = await inviteUser(ctx.db, caller(request), request.body, baseUrl(request, ctx.config));
      mailUserTokenInBackground(ctx, { tenantId: user.tenant_id, to: user.email, kind: 'invite', issued: invitation }, request.log);
      request.audit = { resourceType: 'user', resourceId: user.id };
      return reply.status(201).send({ ...presentUser(user), invitation });
    },
  );

  app.get(
    '/v1/admin/users/:user_id',
    { config, schema: { tags, operationId: 'admin.users.get', summary: 'Get a user of the tenant', params: UserParams, response: { 200: UserRecord } } },
    async (request) => presentUser(await getUser(ctx.db, caller(request), request.params.user_id)),
  );

  app.delete(
    '/v1/admin/users/:user_id',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.users.delete',
        summary: 'Delete a user (soft): its sessions, own keys and pending invitations stop working',
        params: UserParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await deleteUser(ctx.db, caller(request), request.params.user_id);
      return reply.status(204).send(null);
    },
  );

  for (const action of ACTIONS) registerAction(app, ctx, action);

  app.post(
    '/v1/admin/users/:user_id/reset-password',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.users.reset_password',
        summary: 'Issue a one-hour password reset for an active user; answers the reset token once',
        params: UserParams,
        response: { 200: UserAndReset },
      },
    },
    async (request) => {
      const { user, reset } = await issuePasswordReset(ctx.db, caller(request), request.params.user_id, baseUrl(request, ctx.config));
      mailUserTokenInBackground(ctx, { tenantId: user.tenant_id, to: user.email, kind: 'reset', issued: reset }, request.log);
      return { user: presentUser(user), reset };
    },
  );

  app.post(
    '/v1/admin/users/:user_id/resend-invite',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.users.resend_invite',
        summary: 'Issue a fresh invitation to an invited user (the earlier one stops working)',
        params: UserParams,
        response: { 200: UserAndInvitation },
      },
    },
    async (request) => {
      const { user, invitation } = await resendInvite(ctx.db, caller(request), request.params.user_id, baseUrl(request, ctx.config));
      mailUserTokenInBackground(ctx, { tenantId: user.tenant_id, to: user.email, kind: 'invite', issued: invitation }, request.log);
      return { user: presentUser(user), invitation };
    },
  );
};
