// Connections, deliveries and sources (decisions.md "Connections and endpoints").
// - connections: one per tenant and name (among live rows); credentials sealed by the secrets box.
// - deliveries: the durable queue of results going out. Rows are made by triggers in the same
//   transaction as the job's (or batch's) state change, so no code path that ends a job can
//   forget one, and a crash can never lose one. Claimed with the jobs' lease pattern.
// - delivery_attempts: one row per attempt (status code, latency, truncated answer, error).
// - source_files: every file a source has turned into a job, remembered by path + fingerprint
//   (size and modified time, or the S3 ETag); the unique key is what makes "exactly one job".
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull().check(sql`protocol IN ('s3', 'webhook', 'local', 'sftp')`))
    .addColumn('direction', 'text', (c) => c.notNull().check(sql`direction IN ('source', 'destination', 'both')`))
    .addColumn('config', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('credentials_sealed', 'text')
    .addColumn('credential_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('next_poll_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_polled_at', ts)
    .addColumn('last_poll_error', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', ts)
    .execute();
  await sql`CREATE UNIQUE INDEX connections_live_name ON connections (tenant_id, lower(name)) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX connections_tenant_list ON connections (tenant_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX connections_due_sources ON connections (next_poll_at) WHERE deleted_at IS NULL AND direction IN ('source', 'both')`.execute(db);

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('connection_id', 'text', (c) => c.notNull().references('connections.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('job', 'manifest')`))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.references('jobs.id').onDelete('cascade'))
    .addColumn('batch_id', 'text', (c) => c.references('batches.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status IN ('pending', 'delivering', 'delivered', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(8))
    .addColumn('run_after', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE INDEX deliveries_claimable ON deliveries (run_after) WHERE status IN ('pending', 'delivering')`.execute(db);
  await sql`CREATE INDEX deliveries_job ON deliveries (tenant_id, job_id)`.execute(db);
  await sql`CREATE INDEX deliveries_batch ON deliveries (tenant_id, batch_id)`.execute(db);

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('worker', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, id)`.execute(db);

  await db.schema
    .createTable('source_files')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('after_done_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE UNIQUE INDEX source_files_once ON source_files (connection_id, path, fingerprint)`.execute(db);
  await sql`CREATE INDEX source_files_after_pending ON source_files (connection_id) WHERE after_done_at IS NULL`.execute(db);

  // Sortable like every other id: 12 hex digits of milliseconds, then 16 random hex digits.
  await sql`
    CREATE FUNCTION quire_delivery_id() RETURNS text LANGUAGE sql VOLATILE AS $$
      SELECT 'dlv_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                    || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16)
    $$`.execute(db);

  // A job that ends (or ends again after a retry, reprocess or review) is owed to its destination.
  await sql`
    CREATE FUNCTION quire_enqueue_job_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, job_id, batch_id)
      VALUES (quire_delivery_id(), NEW.tenant_id, NEW.destination_connection_id, 'job',
              CASE NEW.status WHEN 'completed' THEN 'job.completed' WHEN 'needs_review' THEN 'job.needs_review' ELSE 'job.failed' END,
              NEW.id, NEW.batch_id);
      PERFORM pg_notify('quire_deliveries', '');
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER jobs_delivery_on_end AFTER UPDATE OF status ON jobs FOR EACH ROW
    WHEN (NEW.status IS DISTINCT FROM OLD.status AND NEW.status IN ('completed', 'needs_review', 'rejected', 'failed')
          AND NEW.destination_connection_id IS NOT NULL AND NEW.deleted_at IS NULL)
    EXECUTE FUNCTION quire_enqueue_job_delivery()`.execute(db);
  await sql`
    CREATE TRIGGER jobs_delivery_on_insert AFTER INSERT ON jobs FOR EACH ROW
    WHEN (NEW.status IN ('completed', 'needs_review', 'rejected', 'failed') AND NEW.destination_connection_id IS NOT NULL)
    EXECUTE FUNCTION quire_enqueue_job_delivery()`.execute(db);

  // A batch that finishes owes its destination a manifest.
  await sql`
    CREATE FUNCTION quire_enqueue_manifest_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, batch_id)
      VALUES (quire_delivery_id(), NEW.tenant_id, NEW.destination_connection_id, 'manifest', 'batch.finished', NEW.id);
      PERFORM pg_notify('quire_deliveries', '');
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER batches_manifest_on_finish AFTER UPDATE OF finished_at ON batches FOR EACH ROW
    WHEN (OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL AND NEW.destination_connection_id IS NOT NULL)
    EXECUTE FUNCTION quire_enqueue_manifest_delivery()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS batches_manifest_on_finish ON batches`.execute(db);
  await sql`DROP TRIGGER IF EXISTS jobs_delivery_on_insert ON jobs`.execute(db);
  await sql`DROP TRIGGER IF EXISTS jobs_delivery_on_end ON jobs`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_enqueue_manifest_delivery()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_enqueue_job_delivery()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_delivery_id()`.execute(db);
  for (const table of ['source_files', 'delivery_attempts', 'deliveries', 'connections']) await db.schema.dropTable(table).ifExists().execute();
}
