// Model and infrastructure endpoints. Credentials are stored only sealed by the secrets
// box (src/lib/secret-box.ts), bound to `<table>:<id>`; the names of the keys that are set are
// kept beside them so responses can show `{<key>: "set"}` without opening anything.
// - forge_endpoints: per tenant, names unique per tenant, at most one default per tenant.
// - infra_endpoints: types vlm, judge, ocr, smtp; one per type at platform scope and one per
//   type and tenant at tenant scope.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('forge_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('backend', 'text', (c) => c.notNull().check(sql`backend IN ('anthropic', 'bedrock', 'vertex', 'custom_url')`))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text')
    .addColumn('aws_region', 'text')
    .addColumn('gcp_project', 'text')
    .addColumn('gcp_region', 'text')
    .addColumn('credentials_sealed', 'text')
    .addColumn('credential_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('default_max_budget_usd', 'double precision')
    .addColumn('default_max_turns', 'double precision')
    .addColumn('is_default_for_tenant', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_by', 'text')
    .addColumn('updated_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE UNIQUE INDEX forge_endpoints_name ON forge_endpoints (tenant_id, name)`.execute(db);
  await sql`CREATE UNIQUE INDEX forge_endpoints_one_default ON forge_endpoints (tenant_id) WHERE is_default_for_tenant`.execute(db);
  await sql`CREATE INDEX forge_endpoints_tenant_list ON forge_endpoints (tenant_id, created_at DESC, id DESC)`.execute(db);

  await db.schema
    .createTable('infra_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_type', 'text', (c) => c.notNull().check(sql`endpoint_type IN ('vlm', 'judge', 'ocr', 'smtp')`))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope IN ('platform', 'tenant')`))
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('settings', 'jsonb', (c) => c.notNull().check(sql`jsonb_typeof(settings) = 'object'`))
    .addColumn('credentials_sealed', 'text')
    .addColumn('credential_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('updated_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('infra_endpoints_scope_tenant', sql`(scope = 'platform') = (tenant_id IS NULL)`)
    .execute();
  await sql`CREATE UNIQUE INDEX infra_endpoints_platform ON infra_endpoints (endpoint_type) WHERE scope = 'platform'`.execute(db);
  await sql`CREATE UNIQUE INDEX infra_endpoints_tenant ON infra_endpoints (tenant_id, endpoint_type) WHERE scope = 'tenant'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('infra_endpoints').ifExists().execute();
  await db.schema.dropTable('forge_endpoints').ifExists().execute();
}
