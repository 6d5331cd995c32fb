// Reading the audit trail: a tenant admin sees its (acting) tenant's entries, a platform admin every tenant's.
import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../identity/principal.js';
import { type AuditFilters, listAudit } from './audit.repository.js';

export function listTenantAudit(db: Db, principal: Principal, filters: Omit<AuditFilters, 'tenant_id'>, page: PageRequest) {
  const { action, actor_user_id, actor_api_key_id, resource_type, resource_id, created_after, created_before } = filters;
  return listAudit(db, principal.tenantId, { action, actor_user_id, actor_api_key_id, resource_type, resource_id, created_after, created_before }, page);
}

export function listPlatformAudit(db: Db, filters: AuditFilters, page: PageRequest) {
  return listAudit(db, null, filters, page);
}
