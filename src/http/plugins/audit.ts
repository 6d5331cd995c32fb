// Every state-changing request that succeeds leaves an audit entry: who, what, which resource,
// when, from where, and the request body with secrets redacted. Handlers may enrich the entry
// through request.audit (e.g. old and new values of a policy change).
// A state-changing request runs in one database transaction (db/request-scope.ts) that also
// writes its audit entry: the change and the entry commit together. When the entry cannot be
// written the change is rolled back and the client gets 503 audit_unavailable, so a retry is safe.
// Client errors (4xx) commit what the handler deliberately recorded (sign-in failures); a 5xx
// rolls everything back.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RequestScope, openRequestScope } from '../../db/request-scope.js';
import { insertAudit } from '../../domain/audit/audit.repository.js';
import { redact, redactLogFields } from '../../lib/redact.js';
import type { App, AppContext } from '../context.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function resourceFromParams(request: FastifyRequest): { type: string | null; id: string | null } {
  const params = (request.params ?? {}) as Record<string, string>;
  const entry = Object.entries(params).find(([k]) => k.endsWith('_id') && k !== 'raw_token');
  if (!entry) return { type: null, id: null };
  return { type: entry[0].replace(/_id$/, '').replace(/^public$/, 'api_key'), id: entry[1] };
}

function idFromPayload(payload: unknown): string | null {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    for (const k of ['id', 'job_id', 'batch_id', 'review_id', 'public_id', 'session_id']) {
      if (typeof body[k] === 'string') return body[k] as string;
    }
  } catch {
    /* not JSON: no id */
  }
  return null;
}

const scopes = new WeakMap<FastifyRequest, RequestScope>();

const AUDIT_UNAVAILABLE = JSON.stringify({
  detail: 'The change could not be recorded in the audit trail, so it was not made. Try again shortly.',
  code: 'audit_unavailable',
});

function refuse(request: FastifyRequest, reply: FastifyReply, err: unknown): string {
  request.log.error({ err }, 'audit entry could not be written; the change was rolled back');
  reply.code(503);
  reply.removeHeader('location');
  reply.header('content-type', 'application/json; charset=utf-8');
  return AUDIT_UNAVAILABLE;
}

export function registerAudit(app: App, ctx: AppContext): void {
  app.decorateRequest('audit', null as never);
  app.addHook('onRequest', async (request) => {
    request.audit = {};
  });
  // Callback style: the handler (and everything it starts) runs inside the scope.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!MUTATING.has(request.method)) return done();
    const scope = openRequestScope();
    scopes.set(request, scope);
    scope.run(done);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const scope = scopes.get(request);
    scopes.delete(request);
    if (!scope) return payload;
    if (reply.statusCode >= 500) {
      await scope.rollback();
      return payload;
    }
    if (reply.statusCode >= 400) {
      await scope.commit();
      return payload;
    }
    try {
      await scope.within(() => writeEntry(ctx, request, reply, payload));
      await scope.commit();
      return payload;
    } catch (err) {
      await scope.rollback().catch(() => undefined);
      return refuse(request, reply, err);
    }
  });
  // A request that ended without a response (client gone) leaves nothing half done.
  app.addHook('onResponse', async (request) => {
    const scope = scopes.get(request);
    scopes.delete(request);
    await scope?.rollback();
  });
  app.addHook('onRequestAbort', async (request) => {
    const scope = scopes.get(request);
    scopes.delete(request);
    await scope?.rollback();
  });
}

async function writeEntry(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const note = request.audit;
  const principal = request.principal;
  const fromParams = resourceFromParams(request);
  const routeUrl = request.routeOptions.url ?? request.url;
  await insertAudit(ctx.db, {
    tenantId: note.tenantId !== undefined ? note.tenantId : (principal?.tenantId ?? null),
    actorUserId: note.actorUserId ?? principal?.userId ?? null,
    actorApiKeyId: principal?.apiKeyId ?? null,
    actorEmail: note.actorEmail ?? principal?.email ?? null,
    action: note.action ?? ((request.routeOptions.schema as { operationId?: string } | undefined)?.operationId) ?? `${request.method} ${routeUrl}`,
    resourceType: note.resourceType ?? fromParams.type,
    resourceId: note.resourceId ?? fromParams.id ?? idFromPayload(payload),
    method: request.method,
    path: request.url.split('?')[0] ?? request.url,
    statusCode: reply.statusCode,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    requestId: request.id,
    // What the route says changed is redacted as the request is: a free-form policy object may
    // hold a secret-named key, and a change records its values before and after.
    details: { ...redactLogFields(note.details ?? {}), ...(request.body && typeof request.body === 'object' ? { request: redact(request.body) } : {}) },
  });
}
