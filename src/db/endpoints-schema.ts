// Row types of forge_endpoints and infra_endpoints (migration 0006), as Kysely sees them.
import type { ColumnType, Selectable } from 'kysely';
import type { ModelPrice } from '../models/endpoint-config.js';
import type { Timestamp } from './column-types.js';

export const INFRA_TYPES = ['vlm', 'judge', 'ocr', 'smtp'] as const;
export type InfraType = (typeof INFRA_TYPES)[number];
export type InfraScope = 'platform' | 'tenant';

type TextArray = ColumnType<string[], string[] | undefined, string[]>;

export interface ForgeEndpointsTable {
  id: string;
  tenant_id: string;
  name: string;
  backend: string;
  model: string;
  base_url: string | null;
  aws_region: string | null;
  gcp_project: string | null;
  gcp_region: string | null;
  /** Sealed JSON object of the credentials, context `forge_endpoints:<id>`. */
  credentials_sealed: string | null;
  credential_keys: TextArray;
  default_max_budget_usd: number | null;
  default_max_turns: number | null;
  /** US dollars per million tokens (migration 0012); null: calls are recorded at $0. */
  price_per_mtok: ColumnType<ModelPrice | null, string | null | undefined, string | null>;
  is_default_for_tenant: ColumnType<boolean, boolean | undefined, boolean>;
  created_by: string | null;
  updated_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface InfraEndpointsTable {
  id: string;
  endpoint_type: InfraType;
  scope: InfraScope;
  tenant_id: string | null;
  /** The PUT body's fields except credentials. */
  settings: ColumnType<Record<string, unknown>, string, string>;
  /** Sealed JSON object of the credentials, context `infra_endpoints:<id>`. */
  credentials_sealed: string | null;
  credential_keys: TextArray;
  updated_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EndpointTables {
  forge_endpoints: ForgeEndpointsTable;
  infra_endpoints: InfraEndpointsTable;
}

export type ForgeEndpointRow = Selectable<ForgeEndpointsTable>;
export type InfraEndpointRow = Selectable<InfraEndpointsTable>;
