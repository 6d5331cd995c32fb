// Validation of ids that point into areas other issues build (templates, connections). Where the
// table exists, an id must name a live row of the caller's tenant (else 404, as for any other
// tenant's object). Until the templates table exists a template_id is accepted and recorded as
// given (docs/documents.md); a destination_connection_id must name a live connection (404).
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';

async function tableExists(db: Db | Tx, table: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(${table})::text AS found`.execute(db);
  return rows[0]?.found != null;
}

async function liveRowExists(db: Db | Tx, table: 'templates' | 'connections', tenantId: string, id: string): Promise<boolean> {
  const hasDeletedAt = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND column_name = 'deleted_at'`.execute(db);
  const live = (hasDeletedAt.rows[0]?.n ?? 0) > 0 ? sql` AND deleted_at IS NULL` : sql``;
  const { rows } = await sql<{ one: number }>`SELECT 1 AS one FROM ${sql.table(table)} WHERE id = ${id} AND tenant_id = ${tenantId}${live} LIMIT 1`.execute(db);
  return rows.length > 0;
}

export type ReferenceCheck = 'found' | 'missing' | 'unchecked';

/** 'unchecked' while the templates feature has not created its table yet. */
export async function checkTemplate(db: Db | Tx, tenantId: string, templateId: string): Promise<ReferenceCheck> {
  if (!(await tableExists(db, 'templates'))) return 'unchecked';
  return (await liveRowExists(db, 'templates', tenantId, templateId)) ? 'found' : 'missing';
}

export async function connectionExists(db: Db | Tx, tenantId: string, connectionId: string): Promise<boolean> {
  if (!(await tableExists(db, 'connections'))) return false;
  return liveRowExists(db, 'connections', tenantId, connectionId);
}
