// Classification, drafts and the template forge.
// - template_exemplars: one fingerprint per job that completed (or was approved) under a template;
//   a job has at most one exemplar, so an override or a reprocess with another template moves it.
// - template_drafts: proposed templates; `fingerprint` lets a similar unmatched document raise
//   auto_seen_count instead of proposing a second draft.
// - forge_jobs: a durable queue of their own with the document jobs' claim/lease columns;
//   forge_iterations records every candidate and its scores.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('template_exemplars')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('fingerprint', 'jsonb', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE INDEX template_exemplars_tenant ON template_exemplars (tenant_id, template_id, updated_at DESC)`.execute(db);

  await db.schema
    .createTable('template_drafts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('proposed_by', 'text')
    .addColumn('proposed_from_job_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('proposed_from_hint', 'text')
    .addColumn('auto_seen_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('proposed_name', 'text', (c) => c.notNull())
    .addColumn('proposed_description', 'text')
    .addColumn('json_schema', 'jsonb', (c) => c.notNull())
    .addColumn('prompt_overlay', 'text')
    .addColumn('validation_rules', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('field_examples', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('drafter_notes', 'text')
    .addColumn('fingerprint', 'jsonb')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status IN ('pending', 'accepted', 'rejected')`))
    .addColumn('accepted_as_template_id', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('resolved_at', ts)
    .addColumn('resolved_by', 'text')
    .execute();
  await sql`CREATE INDEX template_drafts_list ON template_drafts (tenant_id, created_at DESC, id DESC)`.execute(db);

  await db.schema
    .createTable('forge_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('queued').check(sql`status IN ('queued', 'running', 'succeeded', 'failed', 'aborted', 'promoted')`),
    )
    .addColumn('sample_job_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('hint', 'text')
    .addColumn('expected_outputs', 'jsonb')
    .addColumn('endpoint_id', 'text')
    .addColumn('limits', 'jsonb', (c) => c.notNull())
    .addColumn('iterations_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('best_iteration_id', 'text')
    .addColumn('best_score', sql`double precision`)
    .addColumn('tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('dollars', sql`double precision`, (c) => c.notNull().defaultTo(0))
    .addColumn('promoted_template_id', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('abort_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3))
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', ts)
    .addColumn('finished_at', ts)
    .execute();
  await sql`CREATE INDEX forge_jobs_list ON forge_jobs (tenant_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX forge_jobs_queued ON forge_jobs (created_at, id) WHERE status = 'queued'`.execute(db);

  await db.schema
    .createTable('forge_iterations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('forge_job_id', 'text', (c) => c.notNull().references('forge_jobs.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('candidate', 'jsonb', (c) => c.notNull())
    .addColumn('scores', 'jsonb', (c) => c.notNull())
    .addColumn('tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('dollars', sql`double precision`, (c) => c.notNull().defaultTo(0))
    .addColumn('notes', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('forge_iterations_number', ['forge_job_id', 'number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('forge_iterations').ifExists().execute();
  await db.schema.dropTable('forge_jobs').ifExists().execute();
  await db.schema.dropTable('template_drafts').ifExists().execute();
  await db.schema.dropTable('template_exemplars').ifExists().execute();
}
