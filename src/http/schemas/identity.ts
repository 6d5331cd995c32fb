// Wire shapes of tenants, users, sessions, API keys and issued tokens (decisions.md "Records").
import { Type } from 'typebox';
import type { ApiKey, Session, Tenant, User } from '../../db/schema.js';
import { Nullable, NullableTimestamp, Role, StringEnum, Timestamp } from './common.js';

export const TenantRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: StringEnum(['active', 'suspended'] as const),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const UserRecord = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  email: Type.String(),
  display_name: Nullable(Type.String()),
  role: Role,
  status: StringEnum(['invited', 'active', 'suspended'] as const),
  created_at: Timestamp,
  last_login_at: NullableTimestamp,
});

export const IssuedToken = Type.Object({ token: Type.String(), url: Type.String(), expires_at: Timestamp });

export const ApiKeyRecord = Type.Object({
  public_id: Type.String(),
  name: Type.String(),
  role: Role,
  prefix: Type.String(),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  expires_at: NullableTimestamp,
});

export const ApiKeyWithSecret = Type.Object({
  ...ApiKeyRecord.properties,
  secret: Type.String({ description: 'The whole bearer token. Shown once: store it now.' }),
});

export const SessionRecord = Type.Object({
  session_id: Type.String(),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: NullableTimestamp,
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  current: Type.Boolean(),
});

export const SessionGrant = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_at: Timestamp,
  session_id: Type.String(),
  user: UserRecord,
});

export function presentTenant(t: Tenant) {
  return { id: t.id, name: t.name, status: t.status, created_at: t.created_at, updated_at: t.updated_at };
}

export function presentUser(u: User) {
  return {
    id: u.id,
    tenant_id: u.tenant_id,
    email: u.email,
    display_name: u.display_name,
    role: u.role,
    status: u.status,
    created_at: u.created_at,
    last_login_at: u.last_login_at,
  };
}

export function presentKey(k: ApiKey) {
  return {
    public_id: k.id,
    name: k.name,
    role: k.role,
    prefix: k.prefix,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
    revoked_at: k.revoked_at,
    expires_at: k.expires_at,
  };
}

export function presentSession(s: Session, currentSessionId: string | null) {
  return {
    session_id: s.id,
    created_at: s.created_at,
    last_seen_at: s.last_seen_at,
    expires_at: s.expires_at,
    revoked_at: s.revoked_at,
    ip: s.ip,
    user_agent: s.user_agent,
    current: s.id === currentSessionId,
  };
}
