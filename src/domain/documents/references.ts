// Ids a request points with into other parts of its tenant (templates, connections). Each must
// name a live row of the caller's tenant; anything else (missing, deleted, another tenant's) is
// the same 404 to the caller, who may not learn which.
import type { Db, Tx } from '../../db/database.js';

export async function templateIsLive(db: Db | Tx, tenantId: string, templateId: string): Promise<boolean> {
  const row = await db.selectFrom('templates').select('id').where('id', '=', templateId).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}

export async function connectionExists(db: Db | Tx, tenantId: string, connectionId: string): Promise<boolean> {
  const row = await db.selectFrom('connections').select('id').where('id', '=', connectionId).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}
