// Model usage totals per tenant and calendar month (UTC), per backend and model: what the model
// path spent (calls, tokens, dollars from price_per_mtok). Job results keep each job's own share;
// these totals are what quotas and billing read without scanning results.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('model_usage_monthly')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('month', 'text', (c) => c.notNull().check(sql`month ~ '^[0-9]{4}-[0-9]{2}$'`))
    .addColumn('backend', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_usd', sql`numeric(14, 6)`, (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', sql`timestamptz(3)`, (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('model_usage_monthly_pk', ['tenant_id', 'month', 'backend', 'model'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('model_usage_monthly').execute();
}
