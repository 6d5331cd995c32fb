// Authorization choke point: every route declares a permission (default deny), and this hook
// resolves the caller and enforces it before the body is even read.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { poolOf } from '../../db/database.js';
import { authChangeListener, CredentialCache } from '../../domain/identity/credential-cache.js';
import { resolveBearerUntil } from '../../domain/identity/credentials.js';
import { roleAtLeast } from '../../domain/identity/principal.js';
import type { App, AppContext } from '../context.js';
import { forbidden, unauthorized } from '../../lib/errors.js';

/** Writes under these paths can revoke or change a credential: the cache is dropped before they answer. */
const CREDENTIAL_WRITES = /^\/v1\/(auth|account|platform\/tenants|admin\/(users|api-keys|tenants|platform))(\/|$)/;
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

// @fastify/swagger-ui serves static documentation assets and /app the web console's files; both
// are public by design (the console signs in through the API like any client).
const PUBLIC_PREFIXES = ['/docs', '/app'];

export function enforceDeclaredPermission(route: RouteOptions): void {
  const url = route.url ?? '';
  // CORS preflights carry no credentials by design; the CORS plugin answers them.
  if (route.method === 'OPTIONS' || PUBLIC_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`))) {
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
  const cache = new CredentialCache();
  const pool = poolOf(ctx.db);
  if (pool) {
    const listener = authChangeListener(pool, cache, app.log);
    app.addHook('onReady', () => listener.start());
    app.addHook('onClose', () => listener.stop());
  }
  app.addHook('onSend', async (request) => {
    if (!READS.has(request.method) && CREDENTIAL_WRITES.test(request.routeOptions.url ?? request.url)) cache.clear();
  });
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    const permission = config.permission;
    if (!permission || permission === 'public') return;
    const token = bearerToken(request);
    if (!token) throw unauthorized();
    const tenantHeader = request.headers['x-tenant-id'];
    const requestedTenant = typeof tenantHeader === 'string' && tenantHeader.trim() ? tenantHeader.trim() : null;
    const key = CredentialCache.key(token, requestedTenant);
    let principal = cache.active ? cache.get(key) : undefined;
    if (!principal) {
      const readAt = cache.generation;
      const resolved = await resolveBearerUntil(ctx.db, token, requestedTenant, { idleHours: ctx.config.sessionIdleHours });
      principal = resolved.principal;
      cache.set(key, principal, resolved.validUntil, readAt);
    }
    // A copy: nothing a route does to its principal reaches the next request.
    request.principal = { ...principal };
    if (!roleAtLeast(principal.role, permission === 'member' ? 'member' : permission)) {
      const need = permission === 'platform_admin' ? 'a platform admin' : 'a tenant admin';
      throw forbidden('insufficient_role', `This operation needs ${need}; your role is ${principal.role}.`);
    }
    if (config.requiresUser && !principal.userId) {
      throw forbidden('user_required', 'This operation acts on a person\'s account; a tenant-wide API key cannot call it.');
    }
  });
}
