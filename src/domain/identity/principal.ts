// Who is calling, resolved once per request by the auth plugin and handed to services first.
import type { Role } from '../../db/schema.js';

export interface Principal {
  /** null for a tenant-wide API key, which acts for the tenant rather than a person. */
  userId: string | null;
  email: string | null;
  /** The role the caller holds (a platform admin keeps platform_admin in any tenant it acts on). */
  role: Role;
  /** The tenant this request acts on: the caller's own, or X-Tenant-Id for a platform admin. */
  tenantId: string;
  homeTenantId: string;
  method: 'session' | 'api_key';
  sessionId: string | null;
  apiKeyId: string | null;
}

export type Permission = 'public' | 'member' | 'admin' | 'platform_admin';

const RANK: Record<Role, number> = { member: 1, admin: 2, platform_admin: 3 };

export function roleAtLeast(role: Role, required: Role): boolean {
  return RANK[role] >= RANK[required];
}
