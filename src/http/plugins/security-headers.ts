// Response headers that protect clients: no MIME sniffing anywhere, no Referer sent from anything
// this server answers (invitation and reset links carry their token in the console page's URL),
// nothing from the API kept in a shared or browser cache (responses carry tokens, secrets and
// tenant data), a content security policy and frame protection on the HTML pages, and CORS only
// for the origins QUIRE_CORS_ORIGINS names.
import cors from '@fastify/cors';
import type { App, AppContext } from '../context.js';

// The browsable docs and the console load their scripts and styles from this server only.
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  // The console shows page images it fetched with the session token as blob: URLs.
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const isPage = (url: string) => /^\/(docs|app)(\/|$|\?)/.test(url);

export async function registerSecurityHeaders(app: App, ctx: AppContext): Promise<void> {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (isPage(request.url)) {
      reply.header('content-security-policy', PAGE_CSP);
      reply.header('x-frame-options', 'DENY');
    } else if (!reply.hasHeader('cache-control')) {
      reply.header('cache-control', 'no-store');
    }
    return payload;
  });
  const origins = ctx.config.corsOrigins;
  await app.register(cors, {
    // No origins configured: preflights are answered, but no origin is ever allowed.
    origin: origins.includes('*') ? '*' : origins.length ? origins : false,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-tenant-id', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'location', 'content-disposition'],
    maxAge: 600,
  });
}
