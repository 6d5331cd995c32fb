// Which endpoint a tenant's work uses, with its credentials opened: the one place the model path,
// the remote OCR engine and the mailer ask. Results hold secrets: never log or return them.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import { executePrepared } from '../../db/prepared-statements.js';
import type { ForgeEndpointRow, InfraEndpointRow, InfraScope, InfraType } from '../../db/endpoints-schema.js';
import { sealingContext } from '../../db/sealed-columns.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ModelBackend, ModelEndpointConfig } from '../../models/endpoint-config.js';
import { findPolicyLayers } from '../policy/policy.repository.js';
import { platformDefaults, resolvePolicy } from '../policy/policy.resolve.js';
import { type InfraSettings, MODEL_RETRIES_DEFAULT, MODEL_TIMEOUT_DEFAULT, type ModelSettings, type OcrSettings, type SmtpSettings } from './infra-settings.js';

export interface OcrEndpointConfig extends OcrSettings {
  api_key: string | null;
  label: string;
}

export interface SmtpEndpointConfig extends SmtpSettings {
  username: string | null;
  password: string | null;
  label: string;
}

export interface ResolvedInfra {
  vlm: ModelEndpointConfig;
  judge: ModelEndpointConfig;
  ocr: OcrEndpointConfig;
  smtp: SmtpEndpointConfig;
}

export interface ForgeEndpointConfig extends ModelEndpointConfig {
  id: string;
  default_max_budget_usd: number | null;
  default_max_turns: number | null;
}

/** Opens a row's sealed credentials (bound to `<table>:<id>`); a row without any gives {}. */
export function openCredentials(secretBox: SecretBox, table: string, row: { id: string; credentials_sealed: string | null }): Record<string, string> {
  if (!row.credentials_sealed) return {};
  return secretBox.openJson<Record<string, string>>(row.credentials_sealed, sealingContext(table, row.id));
}

/** A tenant's own endpoints count only while its `tenant_infra_overrides_enabled` is true. */
export async function tenantOverridesEnabled(db: Db | Tx, tenantId: string): Promise<boolean> {
  const { platform, tenant } = await findPolicyLayers(db, tenantId);
  return resolvePolicy(platformDefaults(platform), tenant).effective.tenant_infra_overrides_enabled === true;
}

/**
 * The row in effect for a tenant: its own override when allowed and present, else the platform's.
 * A caller that has just read the tenant's policy passes its `tenant_infra_overrides_enabled`, so
 * the row comes from the same policy snapshot and in one statement.
 */
export async function effectiveInfraRow(db: Db | Tx, tenantId: string, type: InfraType, overridesEnabled?: boolean): Promise<InfraEndpointRow | null> {
  const ownAllowed = overridesEnabled ?? (await tenantOverridesEnabled(db, tenantId));
  const query = db
    .selectFrom('infra_endpoints')
    .selectAll()
    .where('endpoint_type', '=', type)
    .where((eb) => (ownAllowed ? eb.or([eb('scope', '=', 'platform'), eb.and([eb('scope', '=', 'tenant'), eb('tenant_id', '=', tenantId)])]) : eb('scope', '=', 'platform')))
    // The tenant's own row first; the platform's answers only when there is none.
    .orderBy(sql`scope = 'tenant'`, 'desc')
    .limit(1);
  const [row] = (await executePrepared(db, query)).rows;
  return row ?? null;
}

function modelConfig(settings: ModelSettings, credentials: Record<string, string>, label: string): ModelEndpointConfig {
  return {
    backend: settings.backend,
    model: settings.model,
    base_url: settings.base_url ?? null,
    aws_region: settings.aws_region ?? null,
    gcp_project: settings.gcp_project ?? null,
    gcp_region: settings.gcp_region ?? null,
    credentials,
    timeout_seconds: settings.timeout_seconds ?? MODEL_TIMEOUT_DEFAULT,
    max_retries: settings.max_retries ?? MODEL_RETRIES_DEFAULT,
    price_per_mtok: settings.price_per_mtok ?? null,
    label,
  };
}

/** Turns a stored infra row into what its consumer calls with (credentials opened). */
export function infraConfig<T extends InfraType>(secretBox: SecretBox, row: InfraEndpointRow & { endpoint_type: T }): ResolvedInfra[T] {
  const credentials = openCredentials(secretBox, 'infra_endpoints', row);
  const label = `${row.scope satisfies InfraScope} ${row.endpoint_type} endpoint`;
  const type: InfraType = row.endpoint_type;
  switch (type) {
    case 'vlm':
    case 'judge':
      return modelConfig(row.settings as unknown as ModelSettings, credentials, label) as ResolvedInfra[T];
    case 'ocr': {
      const s = row.settings as unknown as InfraSettings['ocr'];
      return { base_url: s.base_url, timeout_seconds: s.timeout_seconds, api_key: credentials.api_key ?? null, label } as ResolvedInfra[T];
    }
    case 'smtp': {
      const s = row.settings as unknown as InfraSettings['smtp'];
      return { host: s.host, port: s.port, secure: s.secure, from: s.from, username: credentials.username ?? null, password: credentials.password ?? null, label } as ResolvedInfra[T];
    }
  }
}

/**
 * The effective endpoint of `type` for a tenant (tenant override if allowed and present, else the
 * platform's), with opened credentials; null when neither is configured. `overridesEnabled`: as
 * for effectiveInfraRow.
 */
export async function resolveInfraEndpoint<T extends InfraType>(db: Db | Tx, secretBox: SecretBox, tenantId: string, type: T, overridesEnabled?: boolean): Promise<ResolvedInfra[T] | null> {
  const row = await effectiveInfraRow(db, tenantId, type, overridesEnabled);
  return row ? infraConfig(secretBox, row as InfraEndpointRow & { endpoint_type: T }) : null;
}

export function forgeConfig(secretBox: SecretBox, row: ForgeEndpointRow): ForgeEndpointConfig {
  return {
    id: row.id,
    backend: row.backend as ModelBackend,
    model: row.model,
    base_url: row.base_url,
    aws_region: row.aws_region,
    gcp_project: row.gcp_project,
    gcp_region: row.gcp_region,
    credentials: openCredentials(secretBox, 'forge_endpoints', row),
    timeout_seconds: MODEL_TIMEOUT_DEFAULT,
    max_retries: MODEL_RETRIES_DEFAULT,
    price_per_mtok: row.price_per_mtok ?? null,
    label: `forge endpoint ${row.id}`,
    default_max_budget_usd: row.default_max_budget_usd,
    default_max_turns: row.default_max_turns,
  };
}

/** A tenant's forge endpoint by id, or its default when no id is given; null when there is none. */
export async function resolveForgeEndpoint(db: Db | Tx, secretBox: SecretBox, tenantId: string, endpointId?: string | null): Promise<ForgeEndpointConfig | null> {
  let query = db.selectFrom('forge_endpoints').selectAll().where('tenant_id', '=', tenantId);
  query = endpointId ? query.where('id', '=', endpointId) : query.where('is_default_for_tenant', '=', true);
  const row = await query.executeTakeFirst();
  return row ? forgeConfig(secretBox, row) : null;
}
