// Templates. A template row holds the current version; template_versions keeps an
// immutable snapshot of every version (decisions.md: every update creates a new version, jobs
// record the version they used, so an old job can always show the template it ran with).
// - Names are unique among a tenant's live templates (a deleted template frees its name).
// - Delete is soft: the row stays (jobs and versions point at it) with deleted_at set.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('prompt_overlay', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('json_schema', 'jsonb', (c) => c.notNull().check(sql`jsonb_typeof(json_schema) = 'object'`))
    .addColumn('validation_rules', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`).check(sql`jsonb_typeof(validation_rules) = 'array'`))
    .addColumn('review_thresholds', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('post_processing', 'jsonb')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1).check(sql`version >= 1`))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_by', 'text')
    .addColumn('updated_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', ts)
    .addColumn('deleted_by', 'text')
    .execute();
  await sql`CREATE UNIQUE INDEX templates_live_name ON templates (tenant_id, name) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX templates_tenant_list ON templates (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`.execute(db);
  // Auto-classification reads a tenant's active templates.
  await sql`CREATE INDEX templates_active ON templates (tenant_id) WHERE active AND deleted_at IS NULL`.execute(db);

  await db.schema
    .createTable('template_versions')
    .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'jsonb', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('template_versions_pk', ['template_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('template_versions').ifExists().execute();
  await db.schema.dropTable('templates').ifExists().execute();
}
