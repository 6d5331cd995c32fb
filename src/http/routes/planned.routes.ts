// Operations whose capability belongs to a later issue. Each is registered with its real
// permission and request schema, and answers 501 not_implemented once the caller is authorised.
// When an area is built, its rows move out of this table into that area's routes file.
import type { TSchema } from 'typebox';
import type { Permission } from '../../domain/identity/principal.js';
import type { RouteModule } from '../context.js';
import { notImplemented } from '../errors.js';
import * as S from '../schemas/planned.js';

interface Planned {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  permission: Permission;
  capability: string;
  body?: TSchema;
  multipart?: TSchema;
}

const planned: Planned[] = [
  // Drafts, classify, forge (later issues)
  { method: 'POST', url: '/v1/templates/classify', permission: 'member', capability: 'Classification' },
  { method: 'GET', url: '/v1/templates/drafts', permission: 'member', capability: 'Template drafts' },
  { method: 'POST', url: '/v1/templates/drafts', permission: 'member', capability: 'Template drafts' },
  { method: 'GET', url: '/v1/templates/drafts/:draft_id', permission: 'member', capability: 'Template drafts' },
  { method: 'PATCH', url: '/v1/templates/drafts/:draft_id', permission: 'member', capability: 'Template drafts' },
  { method: 'DELETE', url: '/v1/templates/drafts/:draft_id', permission: 'member', capability: 'Template drafts' },
  { method: 'POST', url: '/v1/templates/drafts/:draft_id/accept', permission: 'admin', capability: 'Template drafts' },
  { method: 'GET', url: '/v1/templates/forge/jobs', permission: 'member', capability: 'Template forge' },
  { method: 'POST', url: '/v1/templates/forge/jobs', permission: 'member', capability: 'Template forge' },
  { method: 'GET', url: '/v1/templates/forge/jobs/:job_id', permission: 'member', capability: 'Template forge' },
  { method: 'POST', url: '/v1/templates/forge/jobs/:job_id/abort', permission: 'member', capability: 'Template forge' },
  { method: 'POST', url: '/v1/templates/forge/jobs/:job_id/promote', permission: 'admin', capability: 'Template forge' },
  { method: 'GET', url: '/v1/templates/forge/jobs/:job_id/iterations', permission: 'member', capability: 'Template forge' },
  { method: 'GET', url: '/v1/templates/forge/jobs/:job_id/iterations/:iteration_id', permission: 'member', capability: 'Template forge' },
  // Connections, forge endpoints, infrastructure endpoints (connections and model-endpoint issues)
  { method: 'GET', url: '/v1/admin/connections', permission: 'admin', capability: 'Connections' },
  { method: 'POST', url: '/v1/admin/connections', permission: 'admin', capability: 'Connections', body: S.ConnectionCreate },
  { method: 'GET', url: '/v1/admin/connections/:connection_id', permission: 'admin', capability: 'Connections' },
  { method: 'PATCH', url: '/v1/admin/connections/:connection_id', permission: 'admin', capability: 'Connections', body: S.ConnectionPatch },
  { method: 'DELETE', url: '/v1/admin/connections/:connection_id', permission: 'admin', capability: 'Connections' },
  { method: 'POST', url: '/v1/admin/connections/:connection_id/test', permission: 'admin', capability: 'Connections' },
  { method: 'GET', url: '/v1/admin/forge-endpoints', permission: 'admin', capability: 'Model endpoints' },
  { method: 'POST', url: '/v1/admin/forge-endpoints', permission: 'admin', capability: 'Model endpoints', body: S.ForgeEndpointCreate },
  { method: 'GET', url: '/v1/admin/forge-endpoints/backends/list', permission: 'admin', capability: 'Model endpoints' },
  { method: 'GET', url: '/v1/admin/forge-endpoints/:endpoint_id', permission: 'admin', capability: 'Model endpoints' },
  { method: 'PUT', url: '/v1/admin/forge-endpoints/:endpoint_id', permission: 'admin', capability: 'Model endpoints', body: S.ForgeEndpointUpdate },
  { method: 'DELETE', url: '/v1/admin/forge-endpoints/:endpoint_id', permission: 'admin', capability: 'Model endpoints' },
  { method: 'POST', url: '/v1/admin/forge-endpoints/:endpoint_id/set-default', permission: 'admin', capability: 'Model endpoints' },
  { method: 'GET', url: '/v1/admin/platform/infra', permission: 'platform_admin', capability: 'Infrastructure endpoints' },
  { method: 'GET', url: '/v1/admin/platform/infra/:endpoint_type', permission: 'platform_admin', capability: 'Infrastructure endpoints' },
  { method: 'PUT', url: '/v1/admin/platform/infra/:endpoint_type', permission: 'platform_admin', capability: 'Infrastructure endpoints' },
  { method: 'POST', url: '/v1/admin/platform/infra/:endpoint_type/test', permission: 'platform_admin', capability: 'Infrastructure endpoints' },
  { method: 'GET', url: '/v1/admin/tenants/:tenant_id/infra', permission: 'admin', capability: 'Infrastructure endpoints' },
  { method: 'GET', url: '/v1/admin/tenants/:tenant_id/infra/:endpoint_type', permission: 'admin', capability: 'Infrastructure endpoints' },
  { method: 'PUT', url: '/v1/admin/tenants/:tenant_id/infra/:endpoint_type', permission: 'admin', capability: 'Infrastructure endpoints' },
  { method: 'DELETE', url: '/v1/admin/tenants/:tenant_id/infra/:endpoint_type', permission: 'admin', capability: 'Infrastructure endpoints' },
  { method: 'POST', url: '/v1/admin/tenants/:tenant_id/infra/:endpoint_type/test', permission: 'admin', capability: 'Infrastructure endpoints' },
];

export const plannedOperations = planned;

export const plannedRoutes: RouteModule = (app) => {
  // Encapsulated so that only these routes drain multipart bodies unread: a client uploading to a
  // planned operation gets the honest 501, not a misleading 415.
  app.register(async (scope) => {
    scope.addContentTypeParser('multipart/form-data', (_request, payload, done) => {
      payload.resume();
      payload.on('end', () => done(null, undefined));
      payload.on('error', (err) => done(err, undefined));
    });
    registerPlanned(scope as unknown as typeof app);
  });
};

function registerPlanned(app: Parameters<RouteModule>[0]): void {
  for (const op of planned) {
    const tag = op.url.split('/')[op.url.startsWith('/v1/admin/') || op.url.startsWith('/v1/platform/') ? 3 : 2] ?? 'misc';
    app.route({
      method: op.method,
      url: op.url,
      config: {
        permission: op.permission,
        ...(op.multipart ? { openapiBody: op.multipart, openapiConsumes: ['multipart/form-data'] } : {}),
      },
      schema: {
        tags: [tag],
        summary: `${op.capability} (not implemented yet: answers 501)`,
        ...(op.body ? { body: op.body } : {}),
      },
      handler: async () => {
        throw notImplemented(op.capability);
      },
    });
  }
}
