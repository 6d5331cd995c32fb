// Documents, batches and the queue. A job row IS its queue entry (architecture.md, "The
// queue is the jobs table"): claiming, leasing, heartbeating and settling all update this one row,
// so there is no second state machine to keep in sync.
// - blobs: every stored blob by SHA-256 (content-addressed, shared by identical uploads). Purge
//   removes the ones no job or artifact references (src/storage/purge.ts).
// - artifacts: files a job produced (the source upload, canonical JSON, Markdown, page images).
// - idempotency_keys: Idempotency-Key → the first job/batch, for 24 hours.
// - job_events: the history of every job (transitions, attempts, which worker), append-only.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('blobs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    // Bumped by every upload of the same content, so purge never removes a blob a new job is about to use.
    .addColumn('touched_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text')
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('queued').check(sql`status IN ('queued', 'processing', 'completed', 'completed_with_errors', 'cancelled')`),
    )
    .addColumn('template_id', 'text')
    .addColumn('processing_mode', 'text', (c) => c.notNull().check(sql`processing_mode IN ('canonical', 'entities', 'extraction')`))
    .addColumn('page_range', 'text')
    .addColumn('page_cap_policy', 'text', (c) => c.notNull().defaultTo('fail').check(sql`page_cap_policy IN ('fail', 'truncate')`))
    .addColumn('destination_connection_id', 'text')
    .addColumn('destination_config', 'jsonb')
    .addColumn('counts', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('cancel_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', ts)
    .execute();
  await sql`CREATE INDEX batches_tenant_list ON batches (tenant_id, created_at DESC, id DESC)`.execute(db);

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('batch_id', 'text', (c) => c.references('batches.id'))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status IN ('queued', 'processing', 'completed', 'needs_review', 'rejected', 'failed')`),
    )
    .addColumn('processing_mode', 'text', (c) => c.notNull().check(sql`processing_mode IN ('canonical', 'entities', 'extraction')`))
    .addColumn('template_id', 'text')
    .addColumn('template_version', 'integer')
    .addColumn('classification', 'jsonb')
    .addColumn('original_filename', 'text')
    .addColumn('content_type', 'text')
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('page_count', 'integer')
    .addColumn('page_range', 'text')
    .addColumn('page_cap_policy', 'text', (c) => c.notNull().defaultTo('fail').check(sql`page_cap_policy IN ('fail', 'truncate')`))
    .addColumn('pages_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('destination_connection_id', 'text')
    // Queue columns.
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_after', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('run_kind', 'text', (c) => c.notNull().defaultTo('full').check(sql`run_kind IN ('full', 'reextract')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('heartbeat_at', ts)
    .addColumn('cancel_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('result', 'jsonb')
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', ts)
    .addColumn('finished_at', ts)
    .addColumn('deleted_at', ts)
    // Every terminal job has finished_at; a processing job has a lease.
    .addCheckConstraint('jobs_terminal_finished', sql`status IN ('queued', 'processing') OR finished_at IS NOT NULL`)
    .addCheckConstraint('jobs_processing_leased', sql`status <> 'processing' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)`)
    .execute();
  // The claim's inner SELECT walks this partial index in order; it only holds queued rows.
  await sql`CREATE INDEX jobs_claim ON jobs (priority, created_at, id) WHERE status = 'queued'`.execute(db);
  await sql`CREATE INDEX jobs_leases ON jobs (lease_expires_at) WHERE status = 'processing'`.execute(db);
  await sql`CREATE INDEX jobs_tenant_list ON jobs (tenant_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX jobs_batch ON jobs (batch_id, status) WHERE batch_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX jobs_sha256 ON jobs (sha256)`.execute(db);
  await sql`CREATE INDEX jobs_deleted ON jobs (deleted_at) WHERE deleted_at IS NOT NULL`.execute(db);

  await db.schema
    .createTable('artifacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('source', 'canonical_json', 'markdown', 'page_image')`))
    .addColumn('page_number', 'integer')
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('artifacts_job').on('artifacts').columns(['job_id', 'kind', 'page_number']).execute();
  await db.schema.createIndex('artifacts_sha256').on('artifacts').column('sha256').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_time').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('job_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text')
    .addColumn('attempt', 'integer')
    .addColumn('worker', 'text')
    .addColumn('actor', 'text')
    .addColumn('detail', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('job_events_job').on('job_events').columns(['job_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['job_events', 'idempotency_keys', 'artifacts', 'jobs', 'batches', 'blobs']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
