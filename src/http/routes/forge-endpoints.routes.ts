// Forge endpoints: the tenant's model endpoints for the template forge (tenant admins).
import { Type } from 'typebox';
import { BACKENDS } from '../../domain/endpoints/backends.js';
import { pageInOrder } from '../../lib/pagination.js';
import { MODEL_BACKENDS } from '../../models/endpoint-config.js';
import {
  createForgeEndpoint,
  deleteForgeEndpoint,
  getForgeEndpoint,
  listForgeEndpoints,
  presentForgeEndpoint,
  setDefaultForgeEndpoint,
  updateForgeEndpoint,
} from '../../domain/endpoints/forge-endpoints.service.js';
import { type RouteModule, caller } from '../context.js';
import { NoContent, Page, PageQuery } from '../schemas/common.js';
import { BackendRecord, EndpointParams, ForgeEndpointCreateBody, ForgeEndpointRecord, ForgeEndpointUpdateBody } from '../schemas/endpoints.js';

const tags = ['forge-endpoints'];
const config = { permission: 'admin' as const };
const resourceType = 'forge_endpoint';

export const forgeEndpointsRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/admin/forge-endpoints',
    { config, schema: { tags, operationId: 'admin.forge_endpoints.list', summary: "List the tenant's forge endpoints, newest first", querystring: Type.Object(PageQuery), response: { 200: Page(ForgeEndpointRecord) } } },
    async (request) => {
      const page = await listForgeEndpoints(ctx.db, caller(request).tenantId, request.query);
      return { items: page.items.map(presentForgeEndpoint), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/admin/forge-endpoints',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.forge_endpoints.create',
        summary: "Create a forge endpoint; the tenant's first one becomes its default",
        body: ForgeEndpointCreateBody,
        response: { 201: ForgeEndpointRecord },
      },
    },
    async (request, reply) => {
      const row = await createForgeEndpoint(ctx.db, ctx.secretBox, caller(request), request.body);
      request.audit = { resourceType, resourceId: row.id, tenantId: row.tenant_id };
      return reply.status(201).send(presentForgeEndpoint(row));
    },
  );

  app.get(
    '/v1/admin/forge-endpoints/backends/list',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.forge_endpoints.backends',
        summary: 'The model backends, with the fields and credential keys each needs (in the order anthropic, bedrock, vertex, custom_url)',
        querystring: Type.Object(PageQuery),
        response: { 200: Page(BackendRecord) },
      },
    },
    async (request) => pageInOrder(Object.values(BACKENDS), MODEL_BACKENDS, (b) => b.backend, request.query),
  );

  app.get(
    '/v1/admin/forge-endpoints/:endpoint_id',
    { config, schema: { tags, operationId: 'admin.forge_endpoints.get', summary: 'One forge endpoint (credentials show only which keys are set)', params: EndpointParams, response: { 200: ForgeEndpointRecord } } },
    async (request) => presentForgeEndpoint(await getForgeEndpoint(ctx.db, caller(request).tenantId, request.params.endpoint_id)),
  );

  app.put(
    '/v1/admin/forge-endpoints/:endpoint_id',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.forge_endpoints.update',
        summary: 'Change a forge endpoint; credentials given as an object replace the stored ones, absent or null keeps them',
        params: EndpointParams,
        body: ForgeEndpointUpdateBody,
        response: { 200: ForgeEndpointRecord },
      },
    },
    async (request) => {
      request.audit = { resourceType, resourceId: request.params.endpoint_id };
      return presentForgeEndpoint(await updateForgeEndpoint(ctx.db, ctx.secretBox, caller(request), request.params.endpoint_id, request.body));
    },
  );

  app.delete(
    '/v1/admin/forge-endpoints/:endpoint_id',
    { config, schema: { tags, operationId: 'admin.forge_endpoints.delete', summary: 'Delete a forge endpoint and its stored credentials', params: EndpointParams, response: { 204: NoContent } } },
    async (request, reply) => {
      request.audit = { resourceType, resourceId: request.params.endpoint_id };
      await deleteForgeEndpoint(ctx.db, caller(request).tenantId, request.params.endpoint_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/v1/admin/forge-endpoints/:endpoint_id/set-default',
    { config, schema: { tags, operationId: 'admin.forge_endpoints.set_default', summary: "Make this the tenant's default forge endpoint", params: EndpointParams, response: { 200: ForgeEndpointRecord } } },
    async (request) => {
      request.audit = { resourceType, resourceId: request.params.endpoint_id };
      return presentForgeEndpoint(await setDefaultForgeEndpoint(ctx.db, caller(request), request.params.endpoint_id));
    },
  );
};
