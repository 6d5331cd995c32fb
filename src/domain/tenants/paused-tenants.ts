// Background work (document jobs, forge jobs, source polls, deliveries) runs only for a tenant in
// service. A suspended or deleted tenant's work waits where it is: queued jobs stay queued, due
// sources stay due, pending deliveries stay pending, and all of it resumes when the tenant is
// activated. Work already running when the tenant is suspended finishes.
import { sql } from 'kysely';

/**
 * The ids of tenants whose work waits, for `tenant_id NOT IN (...)` in a claim statement. The
 * tenants table is small, so PostgreSQL reads it once per statement as a hashed set.
 */
export const pausedTenantIds = sql`(SELECT id FROM tenants WHERE status <> 'active' OR deleted_at IS NOT NULL)`;
