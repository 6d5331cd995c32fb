// Infrastructure endpoints (vlm, judge, ocr, smtp) at platform scope and tenant scope. A tenant's
// own endpoint is written only while its `tenant_infra_overrides_enabled` is true, and counts only
// then; its reads show the effective endpoint of each type with its scope.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { INFRA_TYPES, type InfraEndpointRow, type InfraScope, type InfraType } from '../../db/endpoints-schema.js';
import { sealingContext } from '../../db/sealed-columns.js';
import { forbidden, notFound } from '../../lib/errors.js';
import { type SecretBox, credentialKeysView } from '../../lib/secret-box.js';
import type { Principal } from '../identity/principal.js';
import { policyTenant } from '../policy/policy.service.js';
import { assertCredentialsFollow } from './credential-destination.js';
import { checkInfraBody } from './infra-body.js';
import { effectiveInfraRow, openCredentials, tenantOverridesEnabled } from './resolve.js';

const TABLE = 'infra_endpoints';

export function presentInfraEndpoint(row: InfraEndpointRow) {
  return {
    endpoint_type: row.endpoint_type,
    scope: row.scope,
    tenant_id: row.tenant_id,
    ...row.settings,
    credentials: credentialKeysView(Object.fromEntries(row.credential_keys.map((k) => [k, true]))),
    updated_at: row.updated_at,
  };
}

async function findRow(db: Db, type: InfraType, tenantId: string | null): Promise<InfraEndpointRow | undefined> {
  let query = db.selectFrom('infra_endpoints').selectAll().where('endpoint_type', '=', type);
  query = tenantId ? query.where('scope', '=', 'tenant').where('tenant_id', '=', tenantId) : query.where('scope', '=', 'platform');
  return query.executeTakeFirst();
}

function missing(type: InfraType, scope: InfraScope, tenantId: string | null): Error {
  return notFound(scope === 'platform' ? `The platform ${type} endpoint` : `The tenant's ${type} endpoint (tenant ${tenantId})`);
}

/**
 * Saves the endpoint of one type and scope (a PUT replaces the settings). Credentials absent from
 * the body are kept when the endpoint already has some, its backend did not change, and neither
 * did its address (credential-destination.ts).
 */
async function putEndpoint(db: Db, box: SecretBox, actor: Principal, type: InfraType, tenantId: string | null, body: Record<string, unknown>): Promise<InfraEndpointRow> {
  const existing = await findRow(db, type, tenantId);
  const sameBackend = existing && existing.settings.backend === body.backend;
  const keeps = existing && body.credentials === undefined && (sameBackend || type === 'ocr' || type === 'smtp');
  const kept = keeps ? openCredentials(box, TABLE, existing) : null;
  const { settings, credentials } = checkInfraBody(type, body, kept);
  if (keeps && existing.credential_keys.length) assertCredentialsFollow(existing.settings as Record<string, unknown>, settings as unknown as Record<string, unknown>);
  const id = existing?.id ?? randomUUID();
  const sealed = Object.keys(credentials).length ? box.sealJson(credentials, sealingContext(TABLE, id)) : null;
  const values = { settings: JSON.stringify(settings), credentials_sealed: sealed, credential_keys: Object.keys(credentials), updated_by: actor.userId, updated_at: new Date() };
  if (existing) {
    return db.updateTable('infra_endpoints').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }
  return db
    .insertInto('infra_endpoints')
    .values({ id, endpoint_type: type, scope: tenantId ? 'tenant' : 'platform', tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst()
    // A concurrent first PUT won the insert: this one updates it instead.
    .then((row) => row ?? putEndpoint(db, box, actor, type, tenantId, body));
}

// Platform scope (platform admins).

export async function listPlatformEndpoints(db: Db): Promise<InfraEndpointRow[]> {
  const rows = await db.selectFrom('infra_endpoints').selectAll().where('scope', '=', 'platform').execute();
  return sortByType(rows);
}

export async function getPlatformEndpoint(db: Db, type: InfraType): Promise<InfraEndpointRow> {
  const row = await findRow(db, type, null);
  if (!row) throw missing(type, 'platform', null);
  return row;
}

export function putPlatformEndpoint(db: Db, box: SecretBox, actor: Principal, type: InfraType, body: Record<string, unknown>): Promise<InfraEndpointRow> {
  return putEndpoint(db, box, actor, type, null, body);
}

// Tenant scope (the tenant's admins, or a platform admin).

function sortByType(rows: InfraEndpointRow[]): InfraEndpointRow[] {
  return rows.sort((a, b) => INFRA_TYPES.indexOf(a.endpoint_type) - INFRA_TYPES.indexOf(b.endpoint_type));
}

/** The endpoint in effect for each type that has one, tenant override or platform. */
export async function listTenantEffective(db: Db, actor: Principal, tenantParam: string): Promise<InfraEndpointRow[]> {
  const tenantId = await policyTenant(db, actor, tenantParam);
  const rows = await Promise.all(INFRA_TYPES.map((type) => effectiveInfraRow(db, tenantId, type)));
  return rows.filter((row): row is InfraEndpointRow => row !== null);
}

export async function getTenantEffective(db: Db, actor: Principal, tenantParam: string, type: InfraType): Promise<InfraEndpointRow> {
  const tenantId = await policyTenant(db, actor, tenantParam);
  const row = await effectiveInfraRow(db, tenantId, type);
  if (!row) throw notFound(`The ${type} endpoint of tenant ${tenantId} (none is configured for the tenant or the platform)`);
  return row;
}

export async function putTenantEndpoint(db: Db, box: SecretBox, actor: Principal, tenantParam: string, type: InfraType, body: Record<string, unknown>): Promise<InfraEndpointRow> {
  const tenantId = await policyTenant(db, actor, tenantParam);
  if (!(await tenantOverridesEnabled(db, tenantId))) {
    throw forbidden(
      'tenant_infra_overrides_disabled',
      `Tenant ${tenantId} may not set its own infrastructure endpoints: its policy has tenant_infra_overrides_enabled false. Turn it on in the tenant policy (PATCH /v1/admin/tenant-policy/${tenantId}), then set the endpoint again.`,
    );
  }
  return putEndpoint(db, box, actor, type, tenantId, body);
}

/** Removes the tenant's own endpoint of a type; the platform's is in effect again. */
export async function deleteTenantEndpoint(db: Db, actor: Principal, tenantParam: string, type: InfraType): Promise<void> {
  const tenantId = await policyTenant(db, actor, tenantParam);
  const deleted = await db.deleteFrom('infra_endpoints').where('scope', '=', 'tenant').where('tenant_id', '=', tenantId).where('endpoint_type', '=', type).executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw missing(type, 'tenant', tenantId);
}
