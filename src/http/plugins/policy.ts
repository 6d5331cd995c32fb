// The effective tenant policy of the acting tenant, resolved at most once per request:
// `await request.policy()`. Every consumer in the request (rate limit, handlers) shares the answer,
// which comes from the process-wide PolicyService cache (domain/policy/policy.service.ts).
import type { EffectivePolicy } from '../../domain/policy/policy.registry.js';
import type { App, AppContext } from '../context.js';
import { caller } from '../context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The acting tenant's effective policy, memoised for this request. Needs an authenticated route. */
    policy(): Promise<EffectivePolicy>;
  }
}

const memo = Symbol('quire.policy');

export function registerPolicy(app: App, ctx: AppContext): void {
  app.decorateRequest('policy', function (this: { principal: Parameters<typeof caller>[0]['principal']; [memo]?: Promise<EffectivePolicy> }) {
    this[memo] ??= ctx.policy.effective(caller(this).tenantId);
    return this[memo];
  });
}
