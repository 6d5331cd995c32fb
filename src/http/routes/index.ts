// Every routes module, registered in this order by buildApp.
import type { RouteModule } from '../context.js';
import { accountRoutes } from './account.routes.js';
import { adminKeysRoutes } from './admin-keys.routes.js';
import { adminUsersRoutes } from './admin-users.routes.js';
import { auditRoutes } from './audit.routes.js';
import { authRoutes } from './auth.routes.js';
import { batchesRoutes } from './batches.routes.js';
import { classificationRoutes } from './classification.routes.js';
import { connectionsRoutes } from './connections.routes.js';
import { documentsRoutes } from './documents.routes.js';
import { forgeEndpointsRoutes } from './forge-endpoints.routes.js';
import { infraEndpointsRoutes } from './infra-endpoints.routes.js';
import { forgeRoutes } from './forge.routes.js';
import { jobsAdminRoutes } from './jobs-admin.routes.js';
import { policyRoutes } from './policy.routes.js';
import { platformTenantsRoutes } from './platform-tenants.routes.js';
import { reviewsRoutes } from './reviews.routes.js';
import { systemRoutes } from './system.routes.js';
import { templatesRoutes } from './templates.routes.js';

export const routeModules: RouteModule[] = [systemRoutes, authRoutes, accountRoutes, platformTenantsRoutes, adminUsersRoutes, adminKeysRoutes, auditRoutes, policyRoutes, documentsRoutes, batchesRoutes, jobsAdminRoutes, templatesRoutes, reviewsRoutes, classificationRoutes, connectionsRoutes, forgeEndpointsRoutes, infraEndpointsRoutes, forgeRoutes];
