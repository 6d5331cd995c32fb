// Tenant administration of the job queue.
import { recoverStale } from '../../queue/recover.js';
import { type RouteModule, caller } from '../context.js';
import { RecoveryReport } from '../schemas/documents.js';

export const jobsAdminRoutes: RouteModule = (app, ctx) => {
  app.post(
    '/v1/admin/jobs/recover-stale',
    {
      config: { permission: 'admin' },
      schema: {
        tags: ['admin'],
        operationId: 'admin.jobs.recover_stale',
        summary: "Recover the tenant's jobs whose worker stopped heartbeating (re-queued, or failed with worker_lost after max_attempts)",
        response: { 200: RecoveryReport },
      },
    },
    async (request) => {
      const report = await recoverStale(ctx.db, { tenantId: caller(request).tenantId });
      request.audit = { details: { recovered: report?.recovered ?? 0 } };
      return report!;
    },
  );
};
