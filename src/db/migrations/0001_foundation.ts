// Identity, tenancy and audit: the tables every other area builds on.
import { type Kysely, sql } from 'kysely';

// Millisecond precision: the API speaks milliseconds, and keyset cursors must round-trip exactly.
const ts = sql`timestamptz(3)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status IN ('active', 'suspended')`))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', ts)
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('platform_admin', 'admin', 'member')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('invited', 'active', 'suspended')`))
    .addColumn('password_hash', 'text')
    .addColumn('failed_login_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_login_window_start', ts)
    .addColumn('locked_until', ts)
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_login_at', ts)
    .addColumn('deleted_at', ts)
    .execute();
  // Login takes an email alone, so a live email is unique across the platform.
  await sql`CREATE UNIQUE INDEX users_email_live ON users (lower(email)) WHERE deleted_at IS NULL`.execute(db);
  await db.schema.createIndex('users_tenant').on('users').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('revoked_at', ts)
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope IN ('user', 'tenant')`))
    .addColumn('owner_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role IN ('platform_admin', 'admin', 'member')`))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', ts)
    .addColumn('revoked_at', ts)
    .addColumn('expires_at', ts)
    .execute();
  await db.schema.createIndex('api_keys_tenant').on('api_keys').columns(['tenant_id', 'scope', 'created_at']).execute();

  await db.schema
    .createTable('user_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('invite', 'reset')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text')
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addColumn('used_at', ts)
    .addColumn('revoked_at', ts)
    .execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'kind']).execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text')
    .addColumn('actor_user_id', 'text')
    .addColumn('actor_api_key_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text')
    .addColumn('resource_id', 'text')
    .addColumn('method', 'text')
    .addColumn('path', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', ts, (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('audit_tenant_time').on('audit_log').columns(['tenant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_time').on('audit_log').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['audit_log', 'user_tokens', 'api_keys', 'sessions', 'users', 'tenants']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
