// The caller's own account: profile and own API keys. A person's, so tenant-wide keys are refused.
import { Type } from 'typebox';
import { updateProfile } from '../../domain/account/profile.service.js';
import { createOwnKey, listOwnKeys, revokeOwnKey, rotateOwnKey } from '../../domain/keys/own-keys.service.js';
import { type RouteModule, caller } from '../context.js';
import { Nullable, Page, PageQuery, Role } from '../schemas/common.js';
import { ApiKeyRecord, ApiKeyWithSecret, UserRecord, presentKey, presentUser } from '../schemas/identity.js';

const KeyParams = Type.Object({ public_id: Type.String() });

export const accountRoutes: RouteModule = (app, ctx) => {
  app.patch(
    '/v1/account/profile',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['account'],
        operationId: 'account.profile.update',
        summary: 'Update your profile; an absent field is left as it is, null clears it',
        body: Type.Object({ display_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))) }),
        response: { 200: UserRecord },
      },
    },
    async (request) => {
      const user = await updateProfile(ctx.db, caller(request), request.body);
      request.audit = { tenantId: user.tenant_id, resourceType: 'user', resourceId: user.id };
      return presentUser(user);
    },
  );

  app.get(
    '/v1/account/api-keys',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['account'],
        operationId: 'account.api_keys.list',
        summary: 'List your own API keys, newest first (secrets are never shown again)',
        querystring: Type.Object(PageQuery),
        response: { 200: Page(ApiKeyRecord) },
      },
    },
    async (request) => {
      const page = await listOwnKeys(ctx.db, caller(request), request.query);
      return { items: page.items.map(presentKey), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/account/api-keys',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['account'],
        operationId: 'account.api_keys.create',
        summary: 'Create an API key acting as you, with at most your role; the secret is shown once',
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 128 }),
          role: Type.Optional(Role),
          expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
        }),
        response: { 201: ApiKeyWithSecret },
      },
    },
    async (request, reply) => {
      const { key, secret } = await createOwnKey(ctx.db, caller(request), request.body);
      request.audit = { tenantId: key.tenant_id, resourceType: 'api_key', resourceId: key.id };
      return reply.status(201).send({ ...presentKey(key), secret });
    },
  );

  app.post(
    '/v1/account/api-keys/:public_id/revoke',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['account'],
        operationId: 'account.api_keys.revoke',
        summary: 'Revoke one of your API keys; it stops working at once',
        params: KeyParams,
        response: { 200: ApiKeyRecord },
      },
    },
    async (request) => {
      const key = await revokeOwnKey(ctx.db, caller(request), request.params.public_id);
      request.audit = { tenantId: key.tenant_id };
      return presentKey(key);
    },
  );

  app.post(
    '/v1/account/api-keys/:public_id/rotate',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['account'],
        operationId: 'account.api_keys.rotate',
        summary: 'Replace the secret of one of your API keys; the old secret stops working at once',
        params: KeyParams,
        response: { 200: ApiKeyWithSecret },
      },
    },
    async (request) => {
      const { key, secret } = await rotateOwnKey(ctx.db, caller(request), request.params.public_id);
      request.audit = { tenantId: key.tenant_id };
      return { ...presentKey(key), secret };
    },
  );
};
