// Reviews: a job that ends needs_review opens exactly one pending review with its
// reasons; a person approves, overrides or reprocesses it (decisions.md "Reviews").
// - At most one open (pending/in_review) review per job: a partial unique index.
// - Tenant-scoped like every row; lists are newest first over (created_at, id).
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('pending').check(sql`status IN ('pending', 'in_review', 'approved', 'overridden', 'reprocessed', 'closed_by_delete')`),
    )
    .addColumn('reasons', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('resolved_at', ts)
    .addColumn('resolved_by', 'text')
    .addColumn('resolution', 'text')
    .addColumn('resolution_note', 'text')
    .execute();
  await sql`CREATE UNIQUE INDEX reviews_one_open_per_job ON reviews (job_id) WHERE status IN ('pending', 'in_review')`.execute(db);
  await sql`CREATE INDEX reviews_tenant_list ON reviews (tenant_id, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX reviews_job ON reviews (tenant_id, job_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reviews').ifExists().execute();
}
