// The one ordered list of migrations. Statically imported so the compiled CLI needs no file scan.
import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.js';
import * as policy from './0002_policy.js';
import * as documents from './0003_documents.js';
import * as templates from './0004_templates.js';
import * as reviews from './0005_reviews.js';
import * as endpoints from './0006_endpoints.js';
import * as modelUsage from './0007_model_usage.js';
import * as classification from './0009_classification.js';
import * as connections from './0008_connections.js';
import * as performance from './0011_performance.js';
import * as forgeEndpointPrice from './0012_forge_endpoint_price.js';
import * as maintenanceMarks from './0013_maintenance_marks.js';
import * as resultAsJson from './0014_result_as_json.js';
import * as localPathsPerTenant from './0015_local_paths_per_tenant.js';
import * as jobReading from './0016_job_reading.js';
import * as pausedTenantJobs from './0017_paused_tenant_jobs.js';
import * as sourcePollLease from './0018_source_poll_lease.js';
import * as reviewHistory from './0019_review_history.js';
import * as pausedTenantClaims from './0020_paused_tenant_claims.js';
import * as schemaKeyOrder from './0021_schema_key_order.js';

export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_policy': policy,
  '0003_documents': documents,
  '0004_templates': templates,
  '0005_reviews': reviews,
  '0006_endpoints': endpoints,
  '0007_model_usage': modelUsage,
  '0008_connections': connections,
  '0009_classification': classification,
  '0010_reliability': await import('./0010_reliability.js'),
  '0011_performance': performance,
  '0012_forge_endpoint_price': forgeEndpointPrice,
  '0013_maintenance_marks': maintenanceMarks,
  '0014_result_as_json': resultAsJson,
  '0015_local_paths_per_tenant': localPathsPerTenant,
  '0016_job_reading': jobReading,
  '0017_paused_tenant_jobs': pausedTenantJobs,
  '0018_source_poll_lease': sourcePollLease,
  '0019_review_history': reviewHistory,
  '0020_paused_tenant_claims': pausedTenantClaims,
  '0021_schema_key_order': schemaKeyOrder,
};
