// Lazily drawn page images and prompt credential-cache invalidation:
// - Page images are drawn when first downloaded, not for every page of every job: a page_image
//   artifact is recorded at settle with how to draw it (`render`) and no blob yet; the first
//   download draws it, stores the blob and fills in sha256 and size_bytes.
// - The API caches resolved credentials for a few seconds. Any change that can revoke one
//   (a session or key revoked, a user or tenant suspended, demoted or deleted) sends a NOTIFY on
//   `quire_auth` from the database itself, so every API process drops its cache at once whatever
//   code path made the change.
import { type Kysely, sql } from 'kysely';

const AUTH_WATCH: { table: string; columns: string[] }[] = [
  { table: 'sessions', columns: ['revoked_at', 'expires_at', 'user_id'] },
  { table: 'api_keys', columns: ['revoked_at', 'expires_at', 'role', 'scope', 'owner_user_id', 'tenant_id'] },
  { table: 'users', columns: ['status', 'role', 'email', 'tenant_id', 'deleted_at'] },
  { table: 'tenants', columns: ['status', 'deleted_at'] },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE artifacts ALTER COLUMN sha256 DROP NOT NULL, ALTER COLUMN size_bytes DROP NOT NULL, ADD COLUMN render jsonb`.execute(db);
  await sql`ALTER TABLE artifacts ADD CONSTRAINT artifacts_blob_or_render CHECK (sha256 IS NOT NULL OR (kind = 'page_image' AND render IS NOT NULL))`.execute(db);

  await sql`
    CREATE FUNCTION quire_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('quire_auth', TG_TABLE_NAME);
      RETURN NULL;
    END $$`.execute(db);
  for (const { table, columns } of AUTH_WATCH) {
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_auth_changed`)}
      AFTER UPDATE OF ${sql.raw(columns.join(', '))} OR DELETE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION quire_auth_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table } of AUTH_WATCH) await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${table}_auth_changed`)} ON ${sql.table(table)}`.execute(db);
  await sql`DROP FUNCTION IF EXISTS quire_auth_changed()`.execute(db);
  await sql`ALTER TABLE artifacts DROP CONSTRAINT IF EXISTS artifacts_blob_or_render`.execute(db);
  await sql`DELETE FROM artifacts WHERE sha256 IS NULL`.execute(db);
  await sql`ALTER TABLE artifacts DROP COLUMN render, ALTER COLUMN sha256 SET NOT NULL, ALTER COLUMN size_bytes SET NOT NULL`.execute(db);
}
