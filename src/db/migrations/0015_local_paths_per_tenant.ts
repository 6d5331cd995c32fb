// A `local` connection's path is now relative to its tenant's own folder, <QUIRE_LOCAL_ROOT>/<tenant_id>
// (connectors/local-path.ts), where it was relative to the root. A path that already began with
// the tenant's id ("acme/results" for acme, as the documentation showed) keeps naming the same
// directory: the prefix is dropped. Any other path now lies inside the tenant's folder; one that
// named another tenant's folder no longer reaches it, which is the point.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE connections
       SET config = jsonb_set(config, '{path}', to_jsonb(CASE
             WHEN config->>'path' = tenant_id THEN '.'
             ELSE substr(config->>'path', length(tenant_id) + 2) END)),
           updated_at = now()
     WHERE protocol = 'local'
       AND (config->>'path' = tenant_id OR starts_with(config->>'path', tenant_id || '/'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE connections
       SET config = jsonb_set(config, '{path}', to_jsonb(CASE
             WHEN config->>'path' IN ('.', '') THEN tenant_id
             ELSE tenant_id || '/' || (config->>'path') END)),
           updated_at = now()
     WHERE protocol = 'local'`.execute(db);
}
