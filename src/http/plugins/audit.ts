// Every state-changing request that succeeds leaves an audit entry: who, what, which resource,
// when, from where, and the request body with secrets redacted. Handlers may enrich the entry
// through request.audit (e.g. old and new values of a policy change).
import type { FastifyRequest } from 'fastify';
import { insertAudit } from '../../domain/audit/audit.repository.js';
import { redact } from '../../domain/audit/redact.js';
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

export function registerAudit(app: App, ctx: AppContext): void {
  app.decorateRequest('audit', null as never);
  app.addHook('onRequest', async (request) => {
    request.audit = {};
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!MUTATING.has(request.method) || reply.statusCode >= 400) return payload;
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
      details: { ...(note.details ?? {}), ...(request.body && typeof request.body === 'object' ? { request: redact(request.body) } : {}) },
    });
    return payload;
  });
}
