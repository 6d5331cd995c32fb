// Ids a request points with into other parts of its tenant (templates, connections). Each must
// name a live row of the caller's tenant; anything else (missing, deleted, another tenant's) is
// the same 404 to the caller, who may not learn which.
import type { Db, Tx } from '../../db/database.js';

async function liveRowExists(db: Db | Tx, table: 'templates' | 'connections', tenantId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom(table).select('id').where('id', '=', id).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).executeTakeFirst();
  return row !== undefined;
}

export function templateIsLive(db: Db | Tx, tenantId: string, templateId: string): Promise<boolean> {
  return liveRowExists(db, 'templates', tenantId, templateId);
}

/**
 * templateIsLive, holding the row until the transaction ends: a delete committing meanwhile is
 * waited for and then seen, and a delete that starts later waits for this transaction and sees
 * what it wrote (the tenant policy's default_template_id).
 */
export async function lockLiveTemplate(tx: Tx, tenantId: string, templateId: string): Promise<boolean> {
  const row = await tx.selectFrom('templates').select('id').where('id', '=', templateId).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).forShare().executeTakeFirst();
  return row !== undefined;
}

export function connectionExists(db: Db | Tx, tenantId: string, connectionId: string): Promise<boolean> {
  return liveRowExists(db, 'connections', tenantId, connectionId);
}
