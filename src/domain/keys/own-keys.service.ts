// The caller's own API keys (/v1/account/api-keys). They belong to the person in their home
// tenant: a platform admin acting on another tenant (X-Tenant-Id) still manages the keys it owns.
import type { Db } from '../../db/database.js';
import type { ApiKey, Role } from '../../db/schema.js';
import { validationError } from '../../lib/errors.js';
import type { PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../identity/principal.js';
import type { KeyScope } from './keys.repository.js';
import { type KeyWithSecret, createKey, listScopedKeys, ownScope, revokeKey, rotateKey } from './keys.service.js';

function homeScope(principal: Principal): KeyScope {
  return ownScope({ ...principal, tenantId: principal.homeTenantId });
}

export async function createOwnKey(
  db: Db,
  principal: Principal,
  input: { name: string; role?: Role; expires_at?: string | null },
): Promise<KeyWithSecret> {
  if (input.expires_at && Date.parse(input.expires_at) <= Date.now()) {
    // pydantic's FutureDatetime wording, so clients see one validation vocabulary.
    throw validationError([{ loc: ['body', 'expires_at'], msg: 'Input should be in the future', type: 'datetime_future', input: input.expires_at }]);
  }
  return createKey(db, principal, homeScope(principal), input);
}

export function listOwnKeys(db: Db, principal: Principal, page: PageRequest) {
  return listScopedKeys(db, homeScope(principal), page);
}

export function revokeOwnKey(db: Db, principal: Principal, publicId: string): Promise<ApiKey> {
  return revokeKey(db, homeScope(principal), publicId);
}

export function rotateOwnKey(db: Db, principal: Principal, publicId: string): Promise<KeyWithSecret> {
  return rotateKey(db, principal, homeScope(principal), publicId);
}
