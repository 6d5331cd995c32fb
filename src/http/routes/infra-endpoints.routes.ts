// Infrastructure endpoints (vlm, judge, ocr, smtp): the platform's (platform admins) and a
// tenant's own overrides (its admins, while its policy allows them).
import { INFRA_TYPES, type InfraType } from '../../db/endpoints-schema.js';
import { Type } from 'typebox';
import { testInfraEndpoint } from '../../domain/endpoints/endpoint-test.js';
import {
  deleteTenantEndpoint,
  getPlatformEndpoint,
  getTenantEffective,
  listPlatformEndpoints,
  listTenantEffective,
  presentInfraEndpoint,
  putPlatformEndpoint,
  putTenantEndpoint,
} from '../../domain/endpoints/infra-endpoints.service.js';
import { infraConfig } from '../../domain/endpoints/resolve.js';
import type { InfraEndpointRow } from '../../db/endpoints-schema.js';
import { type PageRequest, pageInOrder } from '../../lib/pagination.js';
import { guardOptionsFromConfig } from '../../lib/ssrf-guard.js';
import { type RouteModule, caller } from '../context.js';
import { NoContent, PageQuery } from '../schemas/common.js';
import { InfraList, InfraPutBody, InfraRecord, InfraTypeParams, RoundTrip, TenantInfraParams, TenantInfraTypeParams } from '../schemas/endpoints.js';

const tags = ['infrastructure-endpoints'];
const platformOnly = { permission: 'platform_admin' as const };
const tenantAdmin = { permission: 'admin' as const };
const resourceType = 'infra_endpoint';

/** A list of endpoints (at most one per type) paged like every list, in the order of the types. */
function presentInfraPage(rows: InfraEndpointRow[], page: PageRequest) {
  const { items, next_cursor } = pageInOrder(rows, INFRA_TYPES, (row) => row.endpoint_type, page);
  return { items: items.map(presentInfraEndpoint), next_cursor };
}

export const infraEndpointsRoutes: RouteModule = (app, ctx) => {
  const guard = guardOptionsFromConfig(ctx.config);
  const runTest = (row: InfraEndpointRow) => testInfraEndpoint(row.endpoint_type, infraConfig(ctx.secretBox, row as InfraEndpointRow & { endpoint_type: InfraType }), guard);

  app.get(
    '/v1/admin/platform/infra',
    {
      config: platformOnly,
      schema: { tags, operationId: 'platform.infra.list', summary: 'The platform endpoint of each type that has one (in the order vlm, judge, ocr, smtp)', querystring: Type.Object(PageQuery), response: { 200: InfraList } },
    },
    async (request) => presentInfraPage(await listPlatformEndpoints(ctx.db), request.query),
  );

  app.get(
    '/v1/admin/platform/infra/:endpoint_type',
    { config: platformOnly, schema: { tags, operationId: 'platform.infra.get', summary: 'The platform endpoint of one type', params: InfraTypeParams, response: { 200: InfraRecord } } },
    async (request) => presentInfraEndpoint(await getPlatformEndpoint(ctx.db, request.params.endpoint_type)),
  );

  app.put(
    '/v1/admin/platform/infra/:endpoint_type',
    {
      config: platformOnly,
      schema: { tags, operationId: 'platform.infra.put', summary: 'Set the platform endpoint of one type (every tenant without its own uses it)', params: InfraTypeParams, body: InfraPutBody, response: { 200: InfraRecord } },
    },
    async (request) => {
      const row = await putPlatformEndpoint(ctx.db, ctx.secretBox, caller(request), request.params.endpoint_type, request.body as Record<string, unknown>);
      request.audit = { resourceType, resourceId: `platform:${row.endpoint_type}`, tenantId: null };
      return presentInfraEndpoint(row);
    },
  );

  app.post(
    '/v1/admin/platform/infra/:endpoint_type/test',
    { config: platformOnly, schema: { tags, operationId: 'platform.infra.test', summary: 'One real round trip to the platform endpoint of one type', params: InfraTypeParams, response: { 200: RoundTrip } } },
    async (request) => {
      request.audit = { resourceType, resourceId: `platform:${request.params.endpoint_type}`, tenantId: null };
      return runTest(await getPlatformEndpoint(ctx.db, request.params.endpoint_type));
    },
  );

  app.get(
    '/v1/admin/tenants/:tenant_id/infra',
    {
      config: tenantAdmin,
      schema: {
        tags,
        operationId: 'admin.tenant_infra.list',
        summary: "The endpoint in effect for each type, the tenant's own or the platform's, with its scope (in the order vlm, judge, ocr, smtp)",
        params: TenantInfraParams,
        querystring: Type.Object(PageQuery),
        response: { 200: InfraList },
      },
    },
    async (request) => presentInfraPage(await listTenantEffective(ctx.db, caller(request), request.params.tenant_id), request.query),
  );

  app.get(
    '/v1/admin/tenants/:tenant_id/infra/:endpoint_type',
    { config: tenantAdmin, schema: { tags, operationId: 'admin.tenant_infra.get', summary: 'The endpoint of one type in effect for the tenant, with its scope', params: TenantInfraTypeParams, response: { 200: InfraRecord } } },
    async (request) => presentInfraEndpoint(await getTenantEffective(ctx.db, caller(request), request.params.tenant_id, request.params.endpoint_type)),
  );

  app.put(
    '/v1/admin/tenants/:tenant_id/infra/:endpoint_type',
    {
      config: tenantAdmin,
      schema: {
        tags,
        operationId: 'admin.tenant_infra.put',
        summary: "Set the tenant's own endpoint of one type (only while tenant_infra_overrides_enabled is true)",
        params: TenantInfraTypeParams,
        body: InfraPutBody,
        response: { 200: InfraRecord },
      },
    },
    async (request) => {
      const { tenant_id, endpoint_type } = request.params;
      const row = await putTenantEndpoint(ctx.db, ctx.secretBox, caller(request), tenant_id, endpoint_type, request.body as Record<string, unknown>);
      request.audit = { resourceType, resourceId: `${tenant_id}:${endpoint_type}`, tenantId: tenant_id };
      return presentInfraEndpoint(row);
    },
  );

  app.delete(
    '/v1/admin/tenants/:tenant_id/infra/:endpoint_type',
    { config: tenantAdmin, schema: { tags, operationId: 'admin.tenant_infra.delete', summary: "Remove the tenant's own endpoint of one type; the platform's applies again", params: TenantInfraTypeParams, response: { 204: NoContent } } },
    async (request, reply) => {
      const { tenant_id, endpoint_type } = request.params;
      await deleteTenantEndpoint(ctx.db, caller(request), tenant_id, endpoint_type);
      request.audit = { resourceType, resourceId: `${tenant_id}:${endpoint_type}`, tenantId: tenant_id };
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/v1/admin/tenants/:tenant_id/infra/:endpoint_type/test',
    { config: tenantAdmin, schema: { tags, operationId: 'admin.tenant_infra.test', summary: 'One real round trip to the endpoint of one type in effect for the tenant', params: TenantInfraTypeParams, response: { 200: RoundTrip } } },
    async (request) => {
      const { tenant_id, endpoint_type } = request.params;
      request.audit = { resourceType, resourceId: `${tenant_id}:${endpoint_type}`, tenantId: tenant_id };
      return runTest(await getTenantEffective(ctx.db, caller(request), tenant_id, endpoint_type));
    },
  );
};
