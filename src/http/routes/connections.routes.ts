// /v1/admin/connections: destinations results are delivered to and sources documents come from.
import {
  createConnection,
  deleteConnection,
  getConnection,
  listConnectionPage,
  testConnection,
  updateConnection,
} from '../../domain/connections/connections.service.js';
import { SecretBox } from '../../lib/secret-box.js';
import { guardOptionsFromConfig } from '../../lib/ssrf-guard.js';
import { type RouteModule, caller } from '../context.js';
import { NoContent, Page } from '../schemas/common.js';
import {
  ConnectionCreateBody,
  ConnectionParams,
  ConnectionPatchBody,
  ConnectionRecord,
  ConnectionTestAnswer,
  ListConnectionsQuery,
  presentConnection,
} from '../schemas/connections.js';

const tags = ['connections'];
const config = { permission: 'admin' as const };

export const connectionsRoutes: RouteModule = (app, ctx) => {
  const deps = { db: ctx.db, box: SecretBox.fromConfig(ctx.config), config: ctx.config, guard: guardOptionsFromConfig(ctx.config) };

  app.get(
    '/v1/admin/connections',
    { config, schema: { tags, operationId: 'connections.list', summary: 'List connections, newest first', querystring: ListConnectionsQuery, response: { 200: Page(ConnectionRecord) } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listConnectionPage(ctx.db, caller(request), filters, { limit, cursor });
      return { items: page.items.map(presentConnection), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/admin/connections',
    {
      config,
      schema: {
        tags,
        operationId: 'connections.create',
        summary: 'Create an s3, webhook, local or sftp connection; credentials are encrypted and never returned',
        body: ConnectionCreateBody,
        response: { 201: ConnectionRecord },
      },
    },
    async (request, reply) => {
      const connection = await createConnection(deps, caller(request), request.body);
      request.audit = { resourceType: 'connection', resourceId: connection.id };
      return reply.status(201).send(presentConnection(connection));
    },
  );

  app.get(
    '/v1/admin/connections/:connection_id',
    { config, schema: { tags, operationId: 'connections.get', summary: 'A connection', params: ConnectionParams, response: { 200: ConnectionRecord } } },
    async (request) => presentConnection(await getConnection(ctx.db, caller(request), request.params.connection_id)),
  );

  app.patch(
    '/v1/admin/connections/:connection_id',
    {
      config,
      schema: {
        tags,
        operationId: 'connections.update',
        summary: 'Change name, direction, config or credentials (config and credentials are replaced whole)',
        params: ConnectionParams,
        body: ConnectionPatchBody,
        response: { 200: ConnectionRecord },
      },
    },
    async (request) => presentConnection(await updateConnection(deps, caller(request), request.params.connection_id, request.body)),
  );

  app.delete(
    '/v1/admin/connections/:connection_id',
    { config, schema: { tags, operationId: 'connections.delete', summary: 'Delete a connection', params: ConnectionParams, response: { 204: NoContent } } },
    async (request, reply) => {
      await deleteConnection(ctx.db, caller(request), request.params.connection_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/v1/admin/connections/:connection_id/test',
    {
      config,
      schema: {
        tags,
        operationId: 'connections.test',
        summary: 'A real round trip: a signed ping to a webhook; list (and write a probe file, for destinations) on a store',
        params: ConnectionParams,
        response: { 200: ConnectionTestAnswer },
      },
    },
    async (request) => {
      const { answer } = await testConnection(deps, caller(request), request.params.connection_id);
      request.audit = { details: { ok: answer.ok } };
      return answer;
    },
  );
};
