// Rate limits (decisions.md "Tenant policy"): every authenticated request counts against its acting
// tenant's rate_limit_per_minute over a 60-second window. Over it: 429 {detail, code: "rate_limited"}
// with Retry-After; every limited response carries RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset (seconds until the window ends).
//
// Public auth actions have their own limits, since they have no tenant yet:
// - sign-in: failed attempts count, per client IP (config.authRateLimitPerIp) and per account
//   (config.loginRateLimitPerAccount); once either is used up, every attempt is refused until the
//   window ends. Counting failures, not sign-ins, throttles guessing without throttling an office
//   whose people all sign in at nine. The account lockout (login.service.ts) is separate and stays.
// - accept-invite and reset-password: every request counts per client IP (same limit).
// Health, root, OpenAPI, docs and the two token peek endpoints are never limited.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RateCounter, type WindowCount, createRateCounter, digest } from '../../lib/rate-counter.js';
import type { App, AppContext } from '../context.js';
import { tooManyRequests } from '../../lib/errors.js';

export const WINDOW_MS = 60_000;

const EXEMPT = [/^\/$/, /^\/openapi\.json$/, /^\/docs(\/|$)/, /^\/v1\/health(\/|$)/, /^\/v1\/auth\/invites\//, /^\/v1\/auth\/reset-tokens\//];
const LOGIN_URL = '/v1/auth/login';

export function isExempt(routeUrl: string): boolean {
  return EXEMPT.some((re) => re.test(routeUrl));
}

interface Bucket {
  key: string;
  limit: number;
  /** The sentence of the 429, given the seconds to wait. */
  refusal: (seconds: number) => string;
}

const secondsUntil = (resetAt: number) => Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));

function setHeaders(reply: FastifyReply, limit: number, window: WindowCount): void {
  const remaining = Math.max(0, limit - window.count);
  // Where several limits apply (sign-in: IP and account), the headers describe the tightest.
  const shown = reply.getHeader('ratelimit-remaining');
  if (shown !== undefined && Number(shown) < remaining) return;
  reply.header('ratelimit-limit', String(limit));
  reply.header('ratelimit-remaining', String(remaining));
  reply.header('ratelimit-reset', String(secondsUntil(window.resetAt)));
}

function refuse(bucket: Bucket, window: WindowCount) {
  const seconds = secondsUntil(window.resetAt);
  return tooManyRequests('rate_limited', bucket.refusal(seconds), seconds);
}

function isLogin(request: FastifyRequest): boolean {
  return request.method === 'POST' && request.routeOptions.url === LOGIN_URL;
}

function loginBuckets(request: FastifyRequest, ctx: AppContext): Bucket[] {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  const buckets: Bucket[] = [
    {
      key: `auth-ip:${request.ip}`,
      limit: ctx.config.authRateLimitPerIp,
      refusal: (s) => `Too many failed sign-ins from your address (at most ${ctx.config.authRateLimitPerIp} a minute). Wait ${s} seconds before trying again.`,
    },
  ];
  if (typeof email === 'string') {
    buckets.push({
      key: `login:${digest(email.trim().toLowerCase())}`,
      limit: ctx.config.loginRateLimitPerAccount,
      refusal: (s) => `Too many failed sign-ins for this account (at most ${ctx.config.loginRateLimitPerAccount} a minute). Wait ${s} seconds before trying again.`,
    });
  }
  return buckets;
}

export async function registerRateLimit(app: App, ctx: AppContext): Promise<RateCounter> {
  const counter = await createRateCounter(ctx.config, (details, message) => app.log.warn(details, message));
  app.addHook('onClose', async () => counter.close());

  // Runs after the auth hook (registered earlier), so the acting tenant is known.
  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url;
    if (!url || isExempt(url)) return;
    const principal = request.principal;
    if (principal) {
      const limit = (await request.policy()).rate_limit_per_minute;
      const window = await counter.hit(`tenant:${principal.tenantId}`, WINDOW_MS);
      setHeaders(reply, limit, window);
      if (window.count > limit) {
        throw refuse(
          { key: '', limit, refusal: (s) => `Your tenant has used its ${limit} requests for this minute (rate_limit_per_minute). Retry in ${s} seconds, or ask an admin to raise the limit.` },
          window,
        );
      }
      return;
    }
    if (request.routeOptions.config.permission !== 'public' || isLogin(request)) return;
    const bucket: Bucket = {
      key: `auth-ip:${request.ip}`,
      limit: ctx.config.authRateLimitPerIp,
      refusal: (s) => `Too many requests from your address to this endpoint (at most ${ctx.config.authRateLimitPerIp} a minute). Retry in ${s} seconds.`,
    };
    const window = await counter.hit(bucket.key, WINDOW_MS);
    setHeaders(reply, bucket.limit, window);
    if (window.count > bucket.limit) throw refuse(bucket, window);
  });

  // Sign-in: refuse once failures used up a limit (the body names the account, so after validation)...
  app.addHook('preHandler', async (request, reply) => {
    if (!isLogin(request)) return;
    for (const bucket of loginBuckets(request, ctx)) {
      const window = await counter.peek(bucket.key, WINDOW_MS);
      setHeaders(reply, bucket.limit, window);
      if (window.count >= bucket.limit) throw refuse(bucket, window);
    }
  });

  // ...and count each failure (401: unknown account or wrong password).
  app.addHook('onSend', async (request, reply, payload) => {
    if (!isLogin(request) || reply.statusCode !== 401) return payload;
    for (const bucket of loginBuckets(request, ctx)) {
      setHeaders(reply, bucket.limit, await counter.hit(bucket.key, WINDOW_MS));
    }
    return payload;
  });

  return counter;
}
