// A paused tenant's queued jobs leave the claim's index. The claim walks jobs_claim in queue order
// and passed over every queued job of a suspended or deleted tenant on each claim, so its cost grew
// with their backlog (behind 20 000 waiting jobs, each claim stepped over 20 000 rows).
// jobs.tenant_paused marks a queued job whose tenant is suspended or deleted, and jobs_claim holds
// only the others. Two triggers keep the mark, whatever code path changes a tenant or a job:
// - a tenant that is suspended, activated or deleted has its queued jobs marked or cleared in the
//   statement that changes it;
// - a job that enters the queue (created, retried, reprocessed, released, recovered) is marked from
//   its tenant's status. It reads the tenant row under FOR SHARE, so a change of the tenant cannot
//   commit between that read and the job's commit (the change then finds the job), and with SKIP
//   LOCKED, so it never waits: while a change of the tenant row is in progress the job is left
//   unmarked. An unmarked job of a paused tenant is still passed over by the claim, which keeps
//   `tenant_id NOT IN` the paused tenants: the mark only keeps the paused backlog out of the
//   claim's way, it never decides alone that a job runs, and a marked job always has a paused tenant.
import { type Kysely, sql } from 'kysely';

const PAUSED = (t: string) => sql.raw(`(${t}.status <> 'active' OR ${t}.deleted_at IS NOT NULL)`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN tenant_paused boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    UPDATE jobs SET tenant_paused = true
     WHERE status = 'queued' AND tenant_id IN (SELECT t.id FROM tenants t WHERE ${PAUSED('t')})`.execute(db);

  await sql`
    CREATE FUNCTION quire_job_tenant_paused() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      paused boolean;
    BEGIN
      SELECT ${PAUSED('t')} INTO paused FROM tenants t WHERE t.id = NEW.tenant_id FOR SHARE SKIP LOCKED;
      NEW.tenant_paused := coalesce(paused, false);
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER jobs_tenant_paused BEFORE INSERT OR UPDATE OF status ON jobs FOR EACH ROW
    WHEN (NEW.status = 'queued')
    EXECUTE FUNCTION quire_job_tenant_paused()`.execute(db);

  await sql`
    CREATE FUNCTION quire_tenant_paused_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE jobs SET tenant_paused = ${PAUSED('NEW')}
       WHERE tenant_id = NEW.id AND status = 'queued' AND tenant_paused IS DISTINCT FROM ${PAUSED('NEW')};
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER tenants_paused_jobs AFTER UPDATE OF status, deleted_at ON tenants FOR EACH ROW
    WHEN (${PAUSED('OLD')} IS DISTINCT FROM ${PAUSED('NEW')})
    EXECUTE FUNCTION quire_tenant_paused_changed()`.execute(db);

  await sql`DROP INDEX jobs_claim`.execute(db);
  await sql`CREATE INDEX jobs_claim ON jobs (priority, created_at, id) WHERE status = 'queued' AND NOT tenant_paused`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX jobs_claim`.execute(db);
  await sql`CREATE INDEX jobs_claim ON jobs (priority, created_at, id) WHERE status = 'queued'`.execute(db);
  await sql`DROP TRIGGER IF EXISTS tenants_paused_jobs ON tenants`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_tenant_paused_changed()`.execute(db);
  await sql`DROP TRIGGER IF EXISTS jobs_tenant_paused ON jobs`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_job_tenant_paused()`.execute(db);
  await sql`ALTER TABLE jobs DROP COLUMN tenant_paused`.execute(db);
}
