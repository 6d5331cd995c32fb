// Platform administration: tenants and the cross-tenant user list (platform admins only).
import {
  activateTenant,
  createTenant,
  deleteTenant,
  getTenant,
  listTenantsPage,
  renameTenant,
  suspendTenant,
} from '../../domain/tenants/tenants.service.js';
import { listPlatformUsers } from '../../domain/users/users.service.js';
import { baseUrl } from '../base-url.js';
import { type RouteModule, caller } from '../context.js';
import { PlatformUserListQuery, TenantCreateBody, TenantListQuery, TenantParams, TenantPatchBody, TenantWithInvitation } from '../schemas/admin.js';
import { NoContent, Page } from '../schemas/common.js';
import { TenantRecord, UserRecord, presentTenant, presentUser } from '../schemas/identity.js';
import { mailUserTokenInBackground } from '../../domain/mail/user-token-mail.js';

const tags = ['platform'];
const config = { permission: 'platform_admin' as const };

export const platformTenantsRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/platform/tenants',
    { config, schema: { tags, operationId: 'platform.tenants.list', summary: 'List tenants, newest first', querystring: TenantListQuery, response: { 200: Page(TenantRecord) } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listTenantsPage(ctx.db, filters, { limit, cursor });
      return { items: page.items.map(presentTenant), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/platform/tenants',
    {
      config,
      schema: {
        tags,
        operationId: 'platform.tenants.create',
        summary: 'Create a tenant with an invited first admin; answers the invitation once',
        body: TenantCreateBody,
        response: { 201: TenantWithInvitation },
      },
    },
    async (request, reply) => {
      const created = await createTenant(ctx.db, caller(request), request.body, baseUrl(request, ctx.config));
      mailUserTokenInBackground(ctx, { tenantId: created.tenant.id, to: created.admin.email, kind: 'invite', issued: created.invitation }, request.log);
      request.audit = { tenantId: created.tenant.id, resourceType: 'tenant', resourceId: created.tenant.id, details: { admin_user_id: created.admin.id } };
      return reply.status(201).send({ ...presentTenant(created.tenant), invitation: created.invitation });
    },
  );

  app.get(
    '/v1/platform/tenants/:tenant_id',
    { config, schema: { tags, operationId: 'platform.tenants.get', summary: 'Get a tenant', params: TenantParams, response: { 200: TenantRecord } } },
    async (request) => presentTenant(await getTenant(ctx.db, request.params.tenant_id)),
  );

  app.patch(
    '/v1/platform/tenants/:tenant_id',
    { config, schema: { tags, operationId: 'platform.tenants.update', summary: 'Rename a tenant', params: TenantParams, body: TenantPatchBody, response: { 200: TenantRecord } } },
    async (request) => {
      request.audit = { tenantId: request.params.tenant_id };
      return presentTenant(await renameTenant(ctx.db, request.params.tenant_id, request.body));
    },
  );

  app.post(
    '/v1/platform/tenants/:tenant_id/suspend',
    {
      config,
      schema: {
        tags,
        operationId: 'platform.tenants.suspend',
        summary: "Suspend a tenant: its users' credentials answer 401 until it is activated",
        params: TenantParams,
        response: { 200: TenantRecord },
      },
    },
    async (request) => {
      request.audit = { tenantId: request.params.tenant_id };
      return presentTenant(await suspendTenant(ctx.db, request.params.tenant_id));
    },
  );

  app.post(
    '/v1/platform/tenants/:tenant_id/activate',
    { config, schema: { tags, operationId: 'platform.tenants.activate', summary: 'Activate a suspended tenant', params: TenantParams, response: { 200: TenantRecord } } },
    async (request) => {
      request.audit = { tenantId: request.params.tenant_id };
      return presentTenant(await activateTenant(ctx.db, request.params.tenant_id));
    },
  );

  app.delete(
    '/v1/platform/tenants/:tenant_id',
    {
      config,
      schema: {
        tags,
        operationId: 'platform.tenants.delete',
        summary: 'Delete a tenant (soft): its users, sessions, keys and pending invitations stop working, its unfinished work is cancelled; the id stays reserved',
        params: TenantParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const ended = await deleteTenant(ctx.db, caller(request), request.params.tenant_id);
      request.audit = { tenantId: request.params.tenant_id, details: { ended } };
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/v1/platform/users',
    { config, schema: { tags, operationId: 'platform.users.list', summary: "List every tenant's users, newest first", querystring: PlatformUserListQuery, response: { 200: Page(UserRecord) } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listPlatformUsers(ctx.db, filters, { limit, cursor });
      return { items: page.items.map(presentUser), next_cursor: page.next_cursor };
    },
  );
};
