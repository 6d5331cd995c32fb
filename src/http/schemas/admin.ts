// Wire shapes of platform and tenant administration: tenants, users, tenant-wide keys, audit.
import { Type } from 'typebox';
import type { AuditEntry as AuditRow } from '../../db/schema.js';
import { TENANT_ID_PATTERN } from '../../lib/ids.js';
import { CreatedRange, Email, FreeObject, Nullable, PageQuery, Role, StringEnum, TenantRole, Timestamp } from './common.js';
import { IssuedToken, TenantRecord, UserRecord } from './identity.js';

const Search = Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Case-insensitive substring match' }));
const TenantStatus = StringEnum(['active', 'suspended'] as const);
const UserStatus = StringEnum(['invited', 'active', 'suspended'] as const);

// ---- Tenants (platform) ----

export const TenantParams = Type.Object({ tenant_id: Type.String() });

export const TenantListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(TenantStatus),
  q: Search,
});

// interface.md: id pattern, name 1..256, initial_admin_email as an email; all required.
export const TenantCreateBody = Type.Object({
  id: Type.String({ pattern: TENANT_ID_PATTERN }),
  name: Type.String({ minLength: 1, maxLength: 256 }),
  initial_admin_email: Email,
});

export const TenantPatchBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) });

export const TenantWithInvitation = Type.Object({ ...TenantRecord.properties, invitation: IssuedToken });

// ---- Users ----

export const UserParams = Type.Object({ user_id: Type.String() });

export const UserListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(UserStatus),
  role: Type.Optional(Role),
  q: Search,
});

export const PlatformUserListQuery = Type.Object({ ...UserListQuery.properties, tenant_id: Type.Optional(Type.String({ minLength: 1 })) });

export const UserInviteBody = Type.Object({
  email: Email,
  // No schema default: Ajv would write it into the request, and a 422 must echo the input as sent.
  role: Type.Optional(StringEnum(['member', 'admin'] as const, { description: 'Defaults to member' })),
  display_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
});

export const UserWithInvitation = Type.Object({ ...UserRecord.properties, invitation: IssuedToken });
export const UserAndInvitation = Type.Object({ user: UserRecord, invitation: IssuedToken });
export const UserAndReset = Type.Object({ user: UserRecord, reset: IssuedToken });

// ---- Tenant-wide API keys ----

export const KeyParams = Type.Object({ public_id: Type.String() });

export const KeyCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  role: Type.Optional(TenantRole),
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'Must be in the future; null or absent: never expires' }))),
});

// ---- Audit ----

export const AuditQuery = Type.Object({
  ...PageQuery,
  ...CreatedRange,
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  actor_user_id: Type.Optional(Type.String({ minLength: 1 })),
  actor_api_key_id: Type.Optional(Type.String({ minLength: 1 })),
  resource_type: Type.Optional(Type.String({ minLength: 1 })),
  resource_id: Type.Optional(Type.String({ minLength: 1 })),
});

export const PlatformAuditQuery = Type.Object({ ...AuditQuery.properties, tenant_id: Type.Optional(Type.String({ minLength: 1 })) });

export const AuditEntry = Type.Object({
  id: Type.String(),
  tenant_id: Nullable(Type.String()),
  actor: Type.Object({
    user_id: Nullable(Type.String()),
    api_key_id: Nullable(Type.String()),
    email: Nullable(Type.String()),
  }),
  action: Type.String(),
  resource_type: Nullable(Type.String()),
  resource_id: Nullable(Type.String()),
  method: Nullable(Type.String()),
  path: Nullable(Type.String()),
  status_code: Nullable(Type.Integer()),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  request_id: Nullable(Type.String()),
  details: FreeObject,
  created_at: Timestamp,
});

export function presentAudit(e: AuditRow) {
  return {
    id: e.id,
    tenant_id: e.tenant_id,
    actor: { user_id: e.actor_user_id, api_key_id: e.actor_api_key_id, email: e.actor_email },
    action: e.action,
    resource_type: e.resource_type,
    resource_id: e.resource_id,
    method: e.method,
    path: e.path,
    status_code: e.status_code,
    ip: e.ip,
    user_agent: e.user_agent,
    request_id: e.request_id,
    details: e.details,
    created_at: e.created_at,
  };
}
