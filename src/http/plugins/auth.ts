// Authorization choke point: every route declares a permission (default deny), and this hook
// resolves the caller and enforces it before the body is even read.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { resolveBearer } from '../../domain/identity/credentials.js';
import { roleAtLeast } from '../../domain/identity/principal.js';
import type { App, AppContext } from '../context.js';
import { forbidden, unauthorized } from '../errors.js';

// @fastify/swagger-ui serves static documentation assets; they are public by design.
const PUBLIC_PREFIXES = ['/docs'];

export function enforceDeclaredPermission(route: RouteOptions): void {
  const url = route.url ?? '';
  if (PUBLIC_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`))) {
    route.config = { ...(route.config as object), permission: 'public' };
    return;
  }
  const permission = (route.config as { permission?: string } | undefined)?.permission;
  if (!permission) {
    throw new Error(`route ${route.method} ${url} declares no permission: add config.permission (or 'public')`);
  }
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Send the credential as "Authorization: Bearer <token>".');
  return match[1] ?? null;
}

export function registerAuth(app: App, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    const permission = config.permission;
    if (!permission || permission === 'public') return;
    const token = bearerToken(request);
    if (!token) throw unauthorized();
    const tenantHeader = request.headers['x-tenant-id'];
    const requestedTenant = typeof tenantHeader === 'string' && tenantHeader.trim() ? tenantHeader.trim() : null;
    const principal = await resolveBearer(ctx.db, token, requestedTenant, { idleHours: ctx.config.sessionIdleHours });
    request.principal = principal;
    if (!roleAtLeast(principal.role, permission === 'member' ? 'member' : permission)) {
      const need = permission === 'platform_admin' ? 'a platform admin' : 'a tenant admin';
      throw forbidden('insufficient_role', `This operation needs ${need}; your role is ${principal.role}.`);
    }
    if (config.requiresUser && !principal.userId) {
      throw forbidden('user_required', 'This operation acts on a person\'s account; a tenant-wide API key cannot call it.');
    }
  });
}
