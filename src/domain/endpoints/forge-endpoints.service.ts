// Forge endpoints: a tenant's model endpoints for the template forge. One default per tenant;
// credentials sealed with the secrets box and shown only as `{<key>: "set"}`.
import type { Db, Tx } from '../../db/database.js';
import type { ForgeEndpointRow } from '../../db/endpoints-schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import { sealingContext } from '../../db/sealed-columns.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { type Page, type PageRequest, paginate } from '../../lib/pagination.js';
import { type SecretBox, credentialKeysView } from '../../lib/secret-box.js';
import type { ModelPrice } from '../../models/endpoint-config.js';
import type { Principal } from '../identity/principal.js';
import { policyTenant } from '../policy/policy.service.js';
import { checkModelEndpoint } from './backends.js';
import { assertCredentialsFollow } from './credential-destination.js';
import { openCredentials } from './resolve.js';

export interface ForgeEndpointCreate {
  name: string;
  backend: string;
  model: string;
  credentials: Record<string, unknown>;
  base_url?: string;
  aws_region?: string;
  gcp_project?: string;
  gcp_region?: string;
  default_max_budget_usd?: number;
  default_max_turns?: number;
  /** US dollars per million input and output tokens: what a forge iteration's tokens cost. */
  price_per_mtok?: ModelPrice | null;
  is_default_for_tenant?: boolean;
  tenant_id?: string;
}

export type ForgeEndpointUpdate = Partial<Omit<ForgeEndpointCreate, 'backend' | 'credentials' | 'is_default_for_tenant' | 'tenant_id'>> & {
  credentials?: Record<string, unknown> | null;
};

const TABLE = 'forge_endpoints';

export function presentForgeEndpoint(row: ForgeEndpointRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    backend: row.backend,
    model: row.model,
    base_url: row.base_url,
    aws_region: row.aws_region,
    gcp_project: row.gcp_project,
    gcp_region: row.gcp_region,
    credentials: credentialKeysView(Object.fromEntries(row.credential_keys.map((k) => [k, true]))),
    default_max_budget_usd: row.default_max_budget_usd,
    default_max_turns: row.default_max_turns,
    price_per_mtok: row.price_per_mtok ?? null,
    is_default_for_tenant: row.is_default_for_tenant,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function nameTaken(name: string) {
  return conflict('endpoint_name_taken', `A forge endpoint named "${name}" already exists in this tenant. Choose another name, or update that endpoint.`);
}

async function findOwn(db: Db | Tx, tenantId: string, id: string, lock = false): Promise<ForgeEndpointRow> {
  let query = db.selectFrom('forge_endpoints').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound(`Forge endpoint ${id}`);
  return row;
}

async function clearDefault(tx: Tx, tenantId: string): Promise<void> {
  await tx.updateTable('forge_endpoints').set({ is_default_for_tenant: false, updated_at: new Date() }).where('tenant_id', '=', tenantId).where('is_default_for_tenant', '=', true).execute();
}

/** Creates an endpoint; the tenant's first endpoint, or one asked to be, becomes its default. */
export async function createForgeEndpoint(db: Db, box: SecretBox, principal: Principal, body: ForgeEndpointCreate): Promise<ForgeEndpointRow> {
  const tenantId = await policyTenant(db, principal, body.tenant_id ?? principal.tenantId);
  const problems = checkModelEndpoint(body, body.credentials);
  if (problems.length) throw validationError(problems);
  const id = newId('fep');
  try {
    return await db.transaction().execute(async (tx) => {
      // Serialises default changes within the tenant.
      await tx.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
      const hasDefault = await tx.selectFrom('forge_endpoints').select('id').where('tenant_id', '=', tenantId).where('is_default_for_tenant', '=', true).executeTakeFirst();
      const makeDefault = body.is_default_for_tenant === true || (!hasDefault && body.is_default_for_tenant !== false);
      if (makeDefault) await clearDefault(tx, tenantId);
      return tx
        .insertInto('forge_endpoints')
        .values({
          id,
          tenant_id: tenantId,
          name: body.name,
          backend: body.backend,
          model: body.model,
          base_url: body.base_url ?? null,
          aws_region: body.aws_region ?? null,
          gcp_project: body.gcp_project ?? null,
          gcp_region: body.gcp_region ?? null,
          credentials_sealed: box.sealJson(body.credentials, sealingContext(TABLE, id)),
          credential_keys: Object.keys(body.credentials),
          default_max_budget_usd: body.default_max_budget_usd ?? null,
          default_max_turns: body.default_max_turns ?? null,
          price_per_mtok: body.price_per_mtok ? JSON.stringify(body.price_per_mtok) : null,
          is_default_for_tenant: makeDefault,
          created_by: principal.userId,
          updated_by: principal.userId,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (err) {
    if (isUniqueViolation(err, 'forge_endpoints_name')) throw nameTaken(body.name);
    throw err;
  }
}

/**
 * The forge endpoint a forge job runs with: the one `endpointId` names (404 when the tenant has no
 * such endpoint), the tenant's default when it is left out, none when it is null.
 */
export async function forgeEndpointOfJob(db: Db, tenantId: string, endpointId: string | null | undefined): Promise<ForgeEndpointRow | null> {
  if (endpointId === null) return null;
  if (endpointId !== undefined) return findOwn(db, tenantId, endpointId);
  const row = await db.selectFrom('forge_endpoints').selectAll().where('tenant_id', '=', tenantId).where('is_default_for_tenant', '=', true).executeTakeFirst();
  return row ?? null;
}

export function listForgeEndpoints(db: Db, tenantId: string, page: PageRequest): Promise<Page<ForgeEndpointRow>> {
  return paginate(db.selectFrom('forge_endpoints').selectAll().where('tenant_id', '=', tenantId), page);
}

export function getForgeEndpoint(db: Db, tenantId: string, id: string): Promise<ForgeEndpointRow> {
  return findOwn(db, tenantId, id);
}

/**
 * Changes the fields present in the body. `credentials` replaces the stored set when given as an
 * object; absent or null keeps it. The result is checked against the backend as a whole.
 */
export async function updateForgeEndpoint(db: Db, box: SecretBox, principal: Principal, id: string, body: ForgeEndpointUpdate): Promise<ForgeEndpointRow> {
  try {
    return await db.transaction().execute(async (tx) => {
      const row = await findOwn(tx, principal.tenantId, id, true);
      const merged = {
        backend: row.backend,
        model: body.model ?? row.model,
        base_url: body.base_url !== undefined ? body.base_url : row.base_url,
        aws_region: body.aws_region !== undefined ? body.aws_region : row.aws_region,
        gcp_project: body.gcp_project !== undefined ? body.gcp_project : row.gcp_project,
        gcp_region: body.gcp_region !== undefined ? body.gcp_region : row.gcp_region,
      };
      const newCredentials = body.credentials ?? null;
      if (!newCredentials && row.credential_keys.length) assertCredentialsFollow(row as unknown as Record<string, unknown>, merged);
      const problems = checkModelEndpoint(merged, newCredentials ?? openCredentials(box, TABLE, row));
      if (problems.length) throw validationError(problems);
      return tx
        .updateTable('forge_endpoints')
        .set({
          ...merged,
          name: body.name ?? row.name,
          default_max_budget_usd: body.default_max_budget_usd !== undefined ? body.default_max_budget_usd : row.default_max_budget_usd,
          default_max_turns: body.default_max_turns !== undefined ? body.default_max_turns : row.default_max_turns,
          ...(body.price_per_mtok !== undefined ? { price_per_mtok: body.price_per_mtok ? JSON.stringify(body.price_per_mtok) : null } : {}),
          ...(newCredentials ? { credentials_sealed: box.sealJson(newCredentials, sealingContext(TABLE, id)), credential_keys: Object.keys(newCredentials) } : {}),
          updated_by: principal.userId,
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (err) {
    if (isUniqueViolation(err, 'forge_endpoints_name')) throw nameTaken(body.name ?? '');
    throw err;
  }
}

export async function deleteForgeEndpoint(db: Db, tenantId: string, id: string): Promise<void> {
  const deleted = await db.deleteFrom('forge_endpoints').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw notFound(`Forge endpoint ${id}`);
}

export async function setDefaultForgeEndpoint(db: Db, principal: Principal, id: string): Promise<ForgeEndpointRow> {
  return db.transaction().execute(async (tx) => {
    await tx.selectFrom('tenants').select('id').where('id', '=', principal.tenantId).forUpdate().execute();
    await findOwn(tx, principal.tenantId, id);
    await clearDefault(tx, principal.tenantId);
    return tx
      .updateTable('forge_endpoints')
      .set({ is_default_for_tenant: true, updated_by: principal.userId, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}
