// The caller's own profile.
import type { Db } from '../../db/database.js';
import type { User } from '../../db/schema.js';
import { notFound } from '../../lib/errors.js';
import type { Principal } from '../identity/principal.js';
import { findLiveUserByIdAnyTenant, updateUser } from '../users/users.repository.js';

/** Partial update: an absent field is left as it is; display_name null clears it. */
export async function updateProfile(db: Db, principal: Principal, changes: { display_name?: string | null }): Promise<User> {
  const user = principal.userId ? await findLiveUserByIdAnyTenant(db, principal.userId) : undefined;
  if (!user) throw notFound('Your user account');
  if (changes.display_name === undefined) return user;
  const updated = await updateUser(db, user.tenant_id, user.id, { display_name: changes.display_name });
  if (!updated) throw notFound('Your user account');
  return updated;
}
