// Root, health probes and the current identity.
import { sql } from 'kysely';
import { pausedTenantIds } from '../../domain/tenants/paused-tenants.js';
import { Type } from 'typebox';
import { pendingMigrations } from '../../db/database.js';
import { findTenant } from '../../domain/tenants/tenants.repository.js';
import { findLiveUserByIdAnyTenant } from '../../domain/users/users.repository.js';
import { API_VERSION } from '../app.js';
import { type RouteModule, caller } from '../context.js';
import { unavailable } from '../../lib/errors.js';
import { ErrorResponse, Nullable, Role, StringEnum } from '../schemas/common.js';
import { TenantRecord, UserRecord, presentTenant, presentUser } from '../schemas/identity.js';

const Root = Type.Object({ name: Type.String(), version: Type.String(), api_version: Type.String(), docs: Type.String(), openapi: Type.String() });
const Health = Type.Object({
  status: StringEnum(['ok', 'degraded'] as const),
  version: Type.String(),
  database: StringEnum(['ok', 'unavailable'] as const),
  queue: Type.Object({ queued: Type.Integer(), processing: Type.Integer() }),
  workers: Type.Integer(),
});
const Me = Type.Object({
  user: Nullable(UserRecord),
  tenant: TenantRecord,
  role: Role,
  acting_tenant_id: Type.String(),
  home_tenant_id: Type.String(),
  auth: Type.Object({
    method: StringEnum(['session', 'api_key'] as const),
    session_id: Nullable(Type.String()),
    api_key_id: Nullable(Type.String()),
  }),
});

export const systemRoutes: RouteModule = (app, ctx) => {
  app.get('/', { config: { permission: 'public' }, schema: { tags: ['system'], operationId: 'root', response: { 200: Root } } }, async () => ({
    name: 'Quire',
    version: ctx.version,
    api_version: API_VERSION,
    docs: '/docs',
    openapi: '/openapi.json',
  }));

  app.get('/v1/health/live', { config: { permission: 'public' }, schema: { tags: ['system'], operationId: 'health.live', response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({ status: 'ok' as const }));

  let migrationsApplied = false;
  const databaseDown = () => unavailable('database_unavailable', 'The database does not answer; check DATABASE_URL and that PostgreSQL is running.');
  app.get('/v1/health/ready', { config: { permission: 'public' }, schema: { tags: ['system'], operationId: 'health.ready', response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: ErrorResponse } } }, async () => {
    // Migrations only ever move forward: once all are applied, readiness is the connection alone.
    if (!migrationsApplied) {
      const pending = await pendingMigrations(ctx.db).catch(() => null);
      if (pending === null) throw databaseDown();
      if (pending > 0) throw unavailable('migrations_pending', `${pending} database migration(s) are not applied yet; run \`quire migrate\`.`);
      migrationsApplied = true;
      return { status: 'ready' as const };
    }
    if (!(await sql`SELECT 1`.execute(ctx.db).then(() => true, () => false))) throw databaseDown();
    return { status: 'ready' as const };
  });

  app.get('/v1/health', { config: { permission: 'public' }, schema: { tags: ['system'], operationId: 'health', response: { 200: Health } } }, async () => {
    const databaseOk = await sql`SELECT 1`.execute(ctx.db).then(() => true, () => false);
    // Platform-wide queue depth (no tenant data): jobs waiting and jobs being processed. A suspended
    // or deleted tenant's queued jobs are not counted: no worker takes them (paused-tenants.ts).
    const queue = databaseOk
      ? await sql<{ queued: number; processing: number }>`
          SELECT (SELECT count(*) FROM jobs WHERE status = 'queued' AND NOT tenant_paused AND tenant_id NOT IN ${pausedTenantIds})::int AS queued,
                 (SELECT count(*) FROM jobs WHERE status = 'processing')::int AS processing`
          .execute(ctx.db)
          .then((r) => r.rows[0] ?? { queued: 0, processing: 0 }, () => ({ queued: 0, processing: 0 }))
      : { queued: 0, processing: 0 };
    return {
      status: databaseOk ? ('ok' as const) : ('degraded' as const),
      version: ctx.version,
      database: databaseOk ? ('ok' as const) : ('unavailable' as const),
      queue,
      workers: ctx.workerCount(),
    };
  });

  app.get('/v1/me', { config: { permission: 'member' }, schema: { tags: ['account'], operationId: 'me', response: { 200: Me } } }, async (request) => {
    const p = caller(request);
    const tenant = await findTenant(ctx.db, p.tenantId);
    const user = p.userId ? await findLiveUserByIdAnyTenant(ctx.db, p.userId) : undefined;
    return {
      user: user ? presentUser(user) : null,
      tenant: presentTenant(tenant!),
      role: p.role,
      acting_tenant_id: p.tenantId,
      home_tenant_id: p.homeTenantId,
      auth: { method: p.method, session_id: p.sessionId, api_key_id: p.apiKeyId },
    };
  });
};
