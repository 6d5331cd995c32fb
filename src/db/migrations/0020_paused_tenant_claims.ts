// The other claims get what 0017 gave the document jobs' claim: a paused tenant's waiting work
// leaves the claim's index. The delivery, forge and source-poll claims walked their index in
// claim order and passed over each waiting row of a suspended tenant on every claim, so their
// cost grew with its backlog (behind 20 000 rows, 0.1 → 3 to 4 ms a claim; docs/performance.md).
// Each table gets a tenant_paused mark and a claim index without the marked rows:
// - deliveries (pending, or delivering) and forge jobs (queued, or running) of a suspended tenant.
//   A deleted tenant's are not paused: what is left of them is taken and ends at once
//   (tenant-work.ts), as the claims' own `tenant_id NOT IN` suspended tenants has it;
// - live connections of a suspended or deleted tenant (the sources' claim passes over both).
// As in 0017, a trigger on tenants marks or clears the rows in the statement that suspends,
// activates or deletes the tenant, and a row that becomes claimable (a delivery inserted or back
// to pending, a forge job queued or requeued, a connection created) is marked from its tenant,
// read FOR SHARE SKIP LOCKED: a change of the tenant then finds the row, and a row whose tenant is
// being changed at that moment is left unmarked, for the claim's own tenant filter to pass over.
// The mark only keeps paused rows out of the claim's way; a marked row always has a paused tenant.
import { type Kysely, sql } from 'kysely';

/** Work that waits for the tenant's activation: deliveries and forge jobs. */
const SUSPENDED = (t: string) => sql.raw(`(${t}.status <> 'active' AND ${t}.deleted_at IS NULL)`);
/** A source is not polled for a suspended or a deleted tenant. */
const PAUSED = (t: string) => sql.raw(`(${t}.status <> 'active' OR ${t}.deleted_at IS NOT NULL)`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE deliveries ADD COLUMN tenant_paused boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE forge_jobs ADD COLUMN tenant_paused boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE connections ADD COLUMN tenant_paused boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    UPDATE deliveries SET tenant_paused = true
     WHERE status IN ('pending', 'delivering') AND tenant_id IN (SELECT t.id FROM tenants t WHERE ${SUSPENDED('t')})`.execute(db);
  await sql`
    UPDATE forge_jobs SET tenant_paused = true
     WHERE status IN ('queued', 'running') AND tenant_id IN (SELECT t.id FROM tenants t WHERE ${SUSPENDED('t')})`.execute(db);
  await sql`
    UPDATE connections SET tenant_paused = true
     WHERE deleted_at IS NULL AND tenant_id IN (SELECT t.id FROM tenants t WHERE ${PAUSED('t')})`.execute(db);

  for (const [fn, paused] of [
    ['quire_row_tenant_suspended', SUSPENDED('t')],
    ['quire_row_tenant_paused', PAUSED('t')],
  ] as const) {
    await sql`
      CREATE FUNCTION ${sql.raw(fn)}() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        paused boolean;
      BEGIN
        SELECT ${paused} INTO paused FROM tenants t WHERE t.id = NEW.tenant_id FOR SHARE SKIP LOCKED;
        NEW.tenant_paused := coalesce(paused, false);
        RETURN NEW;
      END $$`.execute(db);
  }
  await sql`
    CREATE TRIGGER deliveries_tenant_paused BEFORE INSERT OR UPDATE OF status ON deliveries FOR EACH ROW
    WHEN (NEW.status = 'pending')
    EXECUTE FUNCTION quire_row_tenant_suspended()`.execute(db);
  await sql`
    CREATE TRIGGER forge_jobs_tenant_paused BEFORE INSERT OR UPDATE OF status ON forge_jobs FOR EACH ROW
    WHEN (NEW.status = 'queued')
    EXECUTE FUNCTION quire_row_tenant_suspended()`.execute(db);
  await sql`
    CREATE TRIGGER connections_tenant_paused BEFORE INSERT ON connections FOR EACH ROW
    EXECUTE FUNCTION quire_row_tenant_paused()`.execute(db);

  // A claimed delivery or forge job (delivering, running) is marked too when its tenant is
  // suspended: should its worker die, the lapsed lease is not the claim's to take over until then.
  await sql`
    CREATE FUNCTION quire_tenant_paused_work_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE deliveries SET tenant_paused = ${SUSPENDED('NEW')}
       WHERE tenant_id = NEW.id AND status IN ('pending', 'delivering') AND tenant_paused IS DISTINCT FROM ${SUSPENDED('NEW')};
      UPDATE forge_jobs SET tenant_paused = ${SUSPENDED('NEW')}
       WHERE tenant_id = NEW.id AND status IN ('queued', 'running') AND tenant_paused IS DISTINCT FROM ${SUSPENDED('NEW')};
      UPDATE connections SET tenant_paused = ${PAUSED('NEW')}
       WHERE tenant_id = NEW.id AND deleted_at IS NULL AND tenant_paused IS DISTINCT FROM ${PAUSED('NEW')};
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER tenants_paused_work AFTER UPDATE OF status, deleted_at ON tenants FOR EACH ROW
    WHEN (${SUSPENDED('OLD')} IS DISTINCT FROM ${SUSPENDED('NEW')} OR ${PAUSED('OLD')} IS DISTINCT FROM ${PAUSED('NEW')})
    EXECUTE FUNCTION quire_tenant_paused_work_changed()`.execute(db);

  await sql`DROP INDEX deliveries_claimable`.execute(db);
  await sql`CREATE INDEX deliveries_claim ON deliveries (run_after, id) WHERE status IN ('pending', 'delivering') AND NOT tenant_paused`.execute(db);
  await sql`DROP INDEX forge_jobs_queued`.execute(db);
  await sql`CREATE INDEX forge_jobs_claim ON forge_jobs (created_at, id) WHERE status IN ('queued', 'running') AND NOT tenant_paused`.execute(db);
  await sql`DROP INDEX connections_due_sources`.execute(db);
  await sql`
    CREATE INDEX connections_due_sources ON connections (next_poll_at, id)
     WHERE deleted_at IS NULL AND direction IN ('source', 'both') AND NOT tenant_paused`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX connections_due_sources`.execute(db);
  await sql`CREATE INDEX connections_due_sources ON connections (next_poll_at) WHERE deleted_at IS NULL AND direction IN ('source', 'both')`.execute(db);
  await sql`DROP INDEX forge_jobs_claim`.execute(db);
  await sql`CREATE INDEX forge_jobs_queued ON forge_jobs (created_at, id) WHERE status = 'queued'`.execute(db);
  await sql`DROP INDEX deliveries_claim`.execute(db);
  await sql`CREATE INDEX deliveries_claimable ON deliveries (run_after) WHERE status IN ('pending', 'delivering')`.execute(db);
  await sql`DROP TRIGGER IF EXISTS tenants_paused_work ON tenants`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_tenant_paused_work_changed()`.execute(db);
  await sql`DROP TRIGGER IF EXISTS connections_tenant_paused ON connections`.execute(db);
  await sql`DROP TRIGGER IF EXISTS forge_jobs_tenant_paused ON forge_jobs`.execute(db);
  await sql`DROP TRIGGER IF EXISTS deliveries_tenant_paused ON deliveries`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_row_tenant_paused()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_row_tenant_suspended()`.execute(db);
  await sql`ALTER TABLE connections DROP COLUMN tenant_paused`.execute(db);
  await sql`ALTER TABLE forge_jobs DROP COLUMN tenant_paused`.execute(db);
  await sql`ALTER TABLE deliveries DROP COLUMN tenant_paused`.execute(db);
}
