// SQL for the audit trail: append-only, read per tenant or (platform) across tenants.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import { newId } from '../../lib/ids.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export interface NewAuditEntry {
  tenantId: string | null;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  actorEmail: string | null;
  action: string;
  resourceType: string | null;
  resourceId: string | null;
  method: string | null;
  path: string | null;
  statusCode: number | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilters {
  tenant_id?: string;
  action?: string;
  actor_user_id?: string;
  actor_api_key_id?: string;
  resource_type?: string;
  resource_id?: string;
  created_after?: string;
  created_before?: string;
}

export async function insertAudit(db: Db | Tx, e: NewAuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('aud'),
      tenant_id: e.tenantId,
      actor_user_id: e.actorUserId,
      actor_api_key_id: e.actorApiKeyId,
      actor_email: e.actorEmail,
      action: e.action,
      resource_type: e.resourceType,
      resource_id: e.resourceId,
      method: e.method,
      path: e.path,
      status_code: e.statusCode,
      ip: e.ip,
      user_agent: e.userAgent,
      request_id: e.requestId,
      details: JSON.stringify(e.details),
    })
    .execute();
}

/** tenantId null lists every tenant's entries (platform audit); otherwise one tenant's. */
export async function listAudit(db: Db, tenantId: string | null, f: AuditFilters, page: PageRequest) {
  let q = db.selectFrom('audit_log').selectAll();
  if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
  if (f.tenant_id) q = q.where('tenant_id', '=', f.tenant_id);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.actor_user_id) q = q.where('actor_user_id', '=', f.actor_user_id);
  if (f.actor_api_key_id) q = q.where('actor_api_key_id', '=', f.actor_api_key_id);
  if (f.resource_type) q = q.where('resource_type', '=', f.resource_type);
  if (f.resource_id) q = q.where('resource_id', '=', f.resource_id);
  if (f.created_after) q = q.where('created_at', '>=', new Date(f.created_after));
  if (f.created_before) q = q.where('created_at', '<', new Date(f.created_before));
  return paginate(q, page);
}

/**
 * Every change to one template, newest first: those made on the template itself, and those that
 * made it or a version of it from elsewhere (a draft accepted as it, a forge result promoted into
 * it), which are filed under the draft or forge job and name the template in their details.
 */
export async function listTemplateAudit(db: Db, tenantId: string, templateId: string, page: PageRequest) {
  const q = db
    .selectFrom('audit_log')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) =>
      eb.or([
        eb.and([eb('resource_type', '=', 'template'), eb('resource_id', '=', templateId)]),
        eb.and([eb('resource_type', 'in', ['template_draft', 'forge_job']), eb(sql`details->>'template_id'`, '=', templateId)]),
      ]),
    );
  return paginate(q, page);
}
