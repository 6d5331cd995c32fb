// Background work (document jobs, forge jobs, source polls, deliveries) runs only for a tenant in
// service. A suspended tenant's work waits where it is: queued jobs stay queued, due sources stay
// due, pending deliveries stay pending, and all of it resumes when the tenant is activated. Work
// already running when the tenant is suspended finishes. A deleted tenant's work is ended when it
// is deleted (tenant-work.ts); what a run in progress then leaves behind (a retry of a delivery
// being sent, a forge run whose worker died) is still taken by the workers, and ends at once.
// Each claim walks an index that already leaves out the waiting rows, marked tenant_paused by
// triggers (migrations 0017 and 0020), so a paused backlog costs a claim nothing; the filters
// below pass over the few that a concurrent change of the tenant left unmarked.
import { sql } from 'kysely';

/**
 * The ids of tenants whose work waits, for `tenant_id NOT IN (...)` in a claim statement. The
 * tenants table is small, so PostgreSQL reads it once per statement as a hashed set. Document jobs
 * and sources also pass over a deleted tenant's: a job of one can only have entered the queue in
 * the moment of its deletion, and its connections are deleted with it.
 */
export const pausedTenantIds = sql`(SELECT id FROM tenants WHERE status <> 'active' OR deleted_at IS NOT NULL)`;

/**
 * The ids of live suspended tenants, for the claims of deliveries and forge jobs: a deleted
 * tenant's that are still due are taken and end at once (their connection is deleted, their
 * abort requested), instead of waiting for an activation that cannot come.
 */
export const suspendedTenantIds = sql`(SELECT id FROM tenants WHERE status <> 'active' AND deleted_at IS NULL)`;
