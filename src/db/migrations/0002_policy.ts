// Tenant policy and platform defaults.
// - tenant_policies: one row per tenant that has set anything; `values` holds only the fields the
//   tenant set (an absent key inherits). A JSON object rather than one column per field, because the
//   registry (src/domain/policy/policy.registry.ts) is the single list of fields: adding a field needs
//   no migration, and a stored key the registry no longer knows is ignored on read.
// - platform_defaults: one row per field a platform admin has set; an absent row means the built-in
//   default from the registry.
// - policy_version: a single counter bumped in the same transaction as every policy write. Each
//   process polls it and drops its policy cache when it moves, so a change made through one API
//   process reaches every other process and worker within about a second.
import { type Kysely, sql } from 'kysely';

const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tenant_policies')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('values', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`).check(sql`jsonb_typeof("values") = 'object'`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'text')
    .execute();

  await db.schema
    .createTable('platform_defaults')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'text')
    .execute();

  await db.schema
    .createTable('policy_version')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`INSERT INTO policy_version (id, version) VALUES (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('policy_version').execute();
  await db.schema.dropTable('platform_defaults').execute();
  await db.schema.dropTable('tenant_policies').execute();
}
