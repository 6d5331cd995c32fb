// Ids a request points with into other parts of its tenant (templates, connections). Each must
// name a live row of the caller's tenant; anything else (missing, deleted, another tenant's) is
// the same 404 to the caller, who may not learn which.
import type { Db, Tx } from '../../db/database.js';

/** `lock`: the row is held (FOR SHARE) until the transaction ends, so a delete waits for it. */
async function liveRowExists(db: Db | Tx, table: 'templates' | 'connections', tenantId: string, id: string, lock = false): Promise<boolean> {
  const query = db.selectFrom(table).select('id').where('id', '=', id).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
  return (await (lock ? query.forShare() : query).executeTakeFirst()) !== undefined;
}

export function templateIsLive(db: Db | Tx, tenantId: string, templateId: string): Promise<boolean> {
  return liveRowExists(db, 'templates', tenantId, templateId);
}

/**
 * templateIsLive, holding the row until the transaction ends: a delete committing meanwhile is
 * waited for and then seen, and a delete that starts later waits for this transaction and sees
 * what it wrote (the tenant policy's default_template_id).
 */
export function lockLiveTemplate(tx: Tx, tenantId: string, templateId: string): Promise<boolean> {
  return liveRowExists(tx, 'templates', tenantId, templateId, true);
}

/**
 * connectionExists, holding the row until the transaction ends: a source poll's job is made
 * under it, so a deletion of the connection (or of its tenant) waits for that job and a file
 * taken after one finds the connection gone.
 */
export function lockLiveConnection(tx: Tx, tenantId: string, connectionId: string): Promise<boolean> {
  return liveRowExists(tx, 'connections', tenantId, connectionId, true);
}

/** The direction of a live connection of the tenant (source, destination or both), or undefined. */
export async function liveConnectionDirection(db: Db | Tx, tenantId: string, connectionId: string): Promise<string | undefined> {
  const row = await db.selectFrom('connections').select('direction').where('id', '=', connectionId).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).executeTakeFirst();
  return row?.direction;
}
