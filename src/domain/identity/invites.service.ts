// Invitations: anyone holding an invite token can see what it is for, and accept it by choosing a password.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Role } from '../../db/schema.js';
import { linkNotValid } from '../../lib/errors.js';
import { findTenant } from '../tenants/tenants.repository.js';
import { findRedeemableToken, redeemToken } from './redeem.service.js';
import type { ClientInfo, SessionGrant } from './sessions.service.js';

export interface InvitePeek {
  email: string;
  tenant_id: string;
  tenant_name: string;
  role: Role;
  expires_at: Date;
}

export async function peekInvite(db: Db, rawToken: string): Promise<InvitePeek> {
  const found = await findRedeemableToken(db, rawToken, 'invite');
  const tenant = found ? await findTenant(db, found.user.tenant_id) : undefined;
  if (!found || !tenant) throw linkNotValid('This invitation link', 'Ask an admin of your tenant to send a new invitation.');
  return { email: found.user.email, tenant_id: tenant.id, tenant_name: tenant.name, role: found.user.role, expires_at: found.token.expires_at };
}

/** Activates the invited user with the chosen password and signs them in. */
export function acceptInvite(db: Db, config: Config, rawToken: string, newPassword: string, client: ClientInfo): Promise<SessionGrant> {
  return redeemToken(db, config, { rawToken, kind: 'invite', newPassword, client });
}
