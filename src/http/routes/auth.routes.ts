// Sign-in and sessions: login, logout, own sessions, passwords, invitations and resets.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { acceptInvite, peekInvite } from '../../domain/identity/invites.service.js';
import { login } from '../../domain/identity/login.service.js';
import { listOwnSessions, revokeOwnSession } from '../../domain/identity/own-sessions.service.js';
import { changePassword, peekResetToken, resetPassword } from '../../domain/identity/password.service.js';
import { revokeSession } from '../../domain/identity/sessions.repository.js';
import type { ClientInfo } from '../../domain/identity/sessions.service.js';
import { type RouteModule, caller } from '../context.js';
import { badRequest } from '../../lib/errors.js';
import { Email, NoContent, Page, PageQuery, Password, Role, Timestamp } from '../schemas/common.js';
import { SessionGrant, SessionRecord, presentSession, presentUser } from '../schemas/identity.js';

function clientInfo(request: FastifyRequest): ClientInfo {
  return { ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}

export const authRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/v1/auth/login',
    {
      config: { permission: 'public' },
      schema: {
        tags: ['auth'],
        operationId: 'auth.login',
        summary: 'Sign in with email and password; answers a bearer session token',
        body: Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 1024 }) }),
        response: { 200: SessionGrant },
      },
    },
    async (request) => {
      const grant = await login(ctx.db, ctx.config, request.body.email, request.body.password, clientInfo(request));
      request.audit = { tenantId: grant.user.tenant_id, actorUserId: grant.user.id, actorEmail: grant.user.email, resourceType: 'session', resourceId: grant.session_id };
      return { ...grant, user: presentUser(grant.user) };
    },
  );

  app.post(
    '/v1/auth/logout',
    { config: { permission: 'member' }, schema: { tags: ['auth'], operationId: 'auth.logout', summary: 'Revoke the presenting session', response: { 204: NoContent } } },
    async (request, reply) => {
      const p = caller(request);
      if (!p.sessionId || !p.userId) throw badRequest('not_a_session', 'Logout ends a session; an API key is revoked through the api-keys endpoints instead.');
      await revokeSession(ctx.db, p.userId, p.sessionId);
      // A person's own sessions and password belong to its home tenant's trail, not to the
      // tenant a platform admin happens to act in (X-Tenant-Id).
      request.audit = { tenantId: p.homeTenantId, resourceType: 'session', resourceId: p.sessionId };
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/v1/auth/sessions',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['auth'],
        operationId: 'auth.sessions.list',
        summary: 'List your live sessions, newest first; `current` marks the one making this request',
        querystring: Type.Object(PageQuery),
        response: { 200: Page(SessionRecord) },
      },
    },
    async (request) => {
      const p = caller(request);
      const page = await listOwnSessions(ctx.db, p.userId!, ctx.config.sessionIdleHours, request.query);
      return { items: page.items.map((s) => presentSession(s, p.sessionId)), next_cursor: page.next_cursor };
    },
  );

  app.post(
    '/v1/auth/sessions/:session_id/revoke',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['auth'],
        operationId: 'auth.sessions.revoke',
        summary: 'Sign out one of your sessions',
        params: Type.Object({ session_id: Type.String() }),
        response: { 200: SessionRecord },
      },
    },
    async (request) => {
      const p = caller(request);
      const session = await revokeOwnSession(ctx.db, p.userId!, request.params.session_id);
      request.audit = { tenantId: p.homeTenantId, resourceType: 'session', resourceId: session.id };
      return presentSession(session, p.sessionId);
    },
  );

  app.post(
    '/v1/auth/change-password',
    {
      config: { permission: 'member', requiresUser: true },
      schema: {
        tags: ['auth'],
        operationId: 'auth.change_password',
        summary: 'Change your password; every other session of yours is signed out',
        body: Type.Object({ current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: Password }),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const p = caller(request);
      await changePassword(ctx.db, p, request.body.current_password, request.body.new_password);
      request.audit = { tenantId: p.homeTenantId, resourceType: 'user', resourceId: p.userId! };
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/v1/auth/reset-tokens/:raw_token',
    {
      config: { permission: 'public' },
      schema: {
        tags: ['auth'],
        operationId: 'auth.reset_tokens.peek',
        summary: 'Check a password reset link before asking for a new password',
        params: Type.Object({ raw_token: Type.String() }),
        response: { 200: Type.Object({ email: Type.String(), expires_at: Timestamp }) },
      },
    },
    async (request) => peekResetToken(ctx.db, request.params.raw_token),
  );

  app.post(
    '/v1/auth/reset-password',
    {
      config: { permission: 'public' },
      schema: {
        tags: ['auth'],
        operationId: 'auth.reset_password',
        summary: 'Set a new password with a reset token; signs out every session and answers a new one',
        body: Type.Object({ token: Type.String({ minLength: 1 }), new_password: Password }),
        response: { 200: SessionGrant },
      },
    },
    async (request) => {
      const grant = await resetPassword(ctx.db, ctx.config, request.body.token, request.body.new_password, clientInfo(request));
      request.audit = { tenantId: grant.user.tenant_id, actorUserId: grant.user.id, actorEmail: grant.user.email, resourceType: 'user', resourceId: grant.user.id };
      return { ...grant, user: presentUser(grant.user) };
    },
  );

  app.get(
    '/v1/auth/invites/:raw_token',
    {
      config: { permission: 'public' },
      schema: {
        tags: ['auth'],
        operationId: 'auth.invites.peek',
        summary: 'See what an invitation is for before accepting it',
        params: Type.Object({ raw_token: Type.String() }),
        response: {
          200: Type.Object({ email: Type.String(), tenant_id: Type.String(), tenant_name: Type.String(), role: Role, expires_at: Timestamp }),
        },
      },
    },
    async (request) => peekInvite(ctx.db, request.params.raw_token),
  );

  app.post(
    '/v1/auth/accept-invite',
    {
      config: { permission: 'public' },
      schema: {
        tags: ['auth'],
        operationId: 'auth.accept_invite',
        summary: 'Accept an invitation by choosing a password; activates the account and answers a session',
        body: Type.Object({ token: Type.String({ minLength: 1 }), new_password: Password }),
        response: { 200: SessionGrant },
      },
    },
    async (request) => {
      const grant = await acceptInvite(ctx.db, ctx.config, request.body.token, request.body.new_password, clientInfo(request));
      request.audit = { tenantId: grant.user.tenant_id, actorUserId: grant.user.id, actorEmail: grant.user.email, resourceType: 'user', resourceId: grant.user.id };
      return { ...grant, user: presentUser(grant.user) };
    },
  );
};
