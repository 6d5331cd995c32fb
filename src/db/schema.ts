// Row types of every table, as Kysely sees them.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';
import type { ClassificationTables } from './classification-schema.js';
import type { ConnectionTables } from './connections-schema.js';
import type { DocumentTables } from './documents-schema.js';
import type { EndpointTables } from './endpoints-schema.js';
import type { ModelUsageTables } from './model-usage-schema.js';
import type { ReviewTables } from './reviews-schema.js';
import type { TemplateTables } from './templates-schema.js';

type Json = ColumnType<Record<string, unknown>, string | Record<string, unknown> | undefined, string | Record<string, unknown>>;

export type Role = 'platform_admin' | 'admin' | 'member';

export interface TenantsTable {
  id: string;
  name: string;
  status: ColumnType<'active' | 'suspended', 'active' | 'suspended' | undefined>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface UsersTable {
  id: string;
  tenant_id: string;
  email: string;
  display_name: string | null;
  role: Role;
  status: 'invited' | 'active' | 'suspended';
  password_hash: string | null;
  failed_login_count: Generated<number>;
  failed_login_window_start: NullableTimestamp;
  locked_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_login_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  scope: 'user' | 'tenant';
  owner_user_id: string | null;
  name: string;
  role: Role;
  prefix: string;
  token_hash: string;
  created_by: string | null;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  expires_at: NullableTimestamp;
}

export interface UserTokensTable {
  id: string;
  user_id: string;
  kind: 'invite' | 'reset';
  token_hash: string;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface AuditLogTable {
  id: string;
  tenant_id: string | null;
  actor_user_id: string | null;
  actor_api_key_id: string | null;
  actor_email: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  method: string | null;
  path: string | null;
  status_code: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: Json;
  created_at: Timestamp;
}

/** Only the fields a tenant has set (decisions: an absent key inherits the platform default). */
export interface TenantPoliciesTable {
  tenant_id: string;
  values: ColumnType<Record<string, unknown>, string, string>;
  updated_at: Timestamp;
  updated_by: string | null;
}

/** One row per platform default a platform admin has set; absent = the registry's built-in default. */
export interface PlatformDefaultsTable {
  name: string;
  value: ColumnType<unknown, string, string>;
  updated_at: Timestamp;
  updated_by: string | null;
}

/** A single counter bumped by every policy write; processes poll it to drop their policy caches. */
export interface PolicyVersionTable {
  id: number;
  version: ColumnType<number, number | undefined, number>;
}

// Documents, batches, artifacts and the queue: src/db/documents-schema.ts (migration 0003).
// Templates and their versions: src/db/templates-schema.ts (migration 0004).
// Reviews: src/db/reviews-schema.ts (migration 0005).
// Forge and infrastructure endpoints: src/db/endpoints-schema.ts (migration 0006).
// Connections, deliveries and sources: src/db/connections-schema.ts (migration 0008).
// Classification exemplars, drafts and forge jobs: src/db/classification-schema.ts (migration 0009).
export interface Database extends DocumentTables, TemplateTables, ReviewTables, EndpointTables, ModelUsageTables, ClassificationTables, ConnectionTables {
  tenants: TenantsTable;
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  user_tokens: UserTokensTable;
  audit_log: AuditLogTable;
  tenant_policies: TenantPoliciesTable;
  platform_defaults: PlatformDefaultsTable;
  policy_version: PolicyVersionTable;
  login_failures: import('./reliability-schema.js').LoginFailuresTable;
  maintenance_marks: import('./reliability-schema.js').MaintenanceMarksTable;
}

export type Tenant = Selectable<TenantsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Session = Selectable<SessionsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type UserToken = Selectable<UserTokensTable>;
export type AuditEntry = Selectable<AuditLogTable>;
