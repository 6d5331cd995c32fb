// The audit trail: a tenant admin reads its tenant's entries, a platform admin every tenant's.
import { listPlatformAudit, listTenantAudit } from '../../domain/audit/audit.service.js';
import { type RouteModule, caller } from '../context.js';
import { AuditEntry, AuditQuery, PlatformAuditQuery, presentAudit } from '../schemas/admin.js';
import { Page } from '../schemas/common.js';

const tags = ['audit'];

export const auditRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/admin/audit',
    {
      config: { permission: 'admin' },
      schema: { tags, operationId: 'admin.audit.list', summary: "The tenant's audit trail, newest first", querystring: AuditQuery, response: { 200: Page(AuditEntry) } },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listTenantAudit(ctx.db, caller(request), filters, { limit, cursor });
      return { items: page.items.map(presentAudit), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/v1/platform/audit',
    {
      config: { permission: 'platform_admin' },
      schema: { tags, operationId: 'platform.audit.list', summary: "Every tenant's audit trail, newest first", querystring: PlatformAuditQuery, response: { 200: Page(AuditEntry) } },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      const page = await listPlatformAudit(ctx.db, filters, { limit, cursor });
      return { items: page.items.map(presentAudit), next_cursor: page.next_cursor };
    },
  );
};
