// What every route module receives: the app (typed for TypeBox) and the process's shared parts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Permission, Principal } from '../domain/identity/principal.js';
import type { PolicyService } from '../domain/policy/policy.service.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { PipelinePool } from '../queue/pipeline-pool.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface AppContext {
  db: Db;
  config: Config;
  version: string;
  /** Filled in by later areas (queue, workers); health reads it. */
  workerCount: () => number;
  /** Tenant policy: reads, changes and the cached effective policy (buildApp makes one when not given). */
  policy: PolicyService;
  /**
   * Pipeline threads for work a request waits on (template tests): CPU-heavy parsing and OCR never
   * run on the event loop. Jobs use the workers' own pool.
   */
  pipeline: PipelinePool;
  /** Seals and opens stored credentials (made from the config when not given). */
  secretBox: SecretBox;
}

/** What buildApp needs: the context, where the policy service and the request pipeline are optional. */
export type AppOptions = Omit<AppContext, 'policy' | 'pipeline' | 'secretBox'> & Partial<Pick<AppContext, 'policy' | 'pipeline' | 'secretBox'>>;

export type RouteModule = (app: App, ctx: AppContext) => void;

export interface AuditNote {
  action?: string;
  resourceType?: string;
  resourceId?: string;
  tenantId?: string | null;
  actorUserId?: string | null;
  actorEmail?: string | null;
  details?: Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route. Required: a route without it refuses to register. */
    permission?: Permission;
    /** The caller must be a person (session or own key), not a tenant-wide key. */
    requiresUser?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    audit: AuditNote;
  }
}

/** The principal of an authenticated route (the auth hook guarantees it is set). */
export function caller(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw new Error('route declared a permission but no principal was resolved');
  return request.principal;
}
