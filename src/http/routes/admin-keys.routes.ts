// Tenant-wide API keys: keys that act for the tenant rather than a person (tenant admins).
import { Type } from 'typebox';
import { createKey, listScopedKeys, revokeKey, rotateKey, tenantScope } from '../../domain/keys/keys.service.js';
import { type RouteModule, caller } from '../context.js';
import { validationError } from '../../lib/errors.js';
import { KeyCreateBody, KeyParams } from '../schemas/admin.js';
import { Page, PageQuery } from '../schemas/common.js';
import { ApiKeyRecord, ApiKeyWithSecret, presentKey } from '../schemas/identity.js';

const tags = ['api-keys'];
const config = { permission: 'admin' as const };

// Like pydantic's FutureDatetime: a key that is born expired is a mistake worth a 422.
function requireFuture(expiresAt: string | null | undefined): void {
  if (expiresAt && Date.parse(expiresAt) <= Date.now()) {
    throw validationError([{ loc: ['body', 'expires_at'], msg: 'Input should be in the future', type: 'datetime_future', input: expiresAt }]);
  }
}

export const adminKeysRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/admin/api-keys',
    {
      config,
      schema: { tags, operationId: 'admin.api_keys.list', summary: "List the tenant's tenant-wide keys, newest first", querystring: Type.Object(PageQuery), response: { 200: Page(ApiKeyRecord) } },
    },
    async (request) => {
      const page = await listScopedKeys(ctx.db, tenantScope(caller(request)), request.query);
      return { items: page.items.map(presentKey), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/admin/api-keys',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.api_keys.create',
        summary: 'Create a tenant-wide key (role member unless given); the secret is shown once',
        body: KeyCreateBody,
        response: { 201: ApiKeyWithSecret },
      },
    },
    async (request, reply) => {
      requireFuture(request.body.expires_at);
      const p = caller(request);
      const { key, secret } = await createKey(ctx.db, p, tenantScope(p), request.body);
      request.audit = { resourceType: 'api_key', resourceId: key.id };
      return reply.status(201).send({ ...presentKey(key), secret });
    },
  );

  app.post(
    '/v1/admin/api-keys/:public_id/revoke',
    { config, schema: { tags, operationId: 'admin.api_keys.revoke', summary: 'Revoke a tenant-wide key at once', params: KeyParams, response: { 200: ApiKeyRecord } } },
    async (request) => presentKey(await revokeKey(ctx.db, tenantScope(caller(request)), request.params.public_id)),
  );

  app.post(
    '/v1/admin/api-keys/:public_id/rotate',
    {
      config,
      schema: {
        tags,
        operationId: 'admin.api_keys.rotate',
        summary: 'Replace the secret of a tenant-wide key; the old secret stops working at once',
        params: KeyParams,
        response: { 200: ApiKeyWithSecret },
      },
    },
    async (request) => {
      const { key, secret } = await rotateKey(ctx.db, caller(request), tenantScope(caller(request)), request.params.public_id);
      return { ...presentKey(key), secret };
    },
  );
};
