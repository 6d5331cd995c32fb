// First start: an empty database gets a default tenant and the first platform admin, so that
// `npm start` leads straight to a usable service. The generated password is printed once.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { hashPassword, randomToken } from '../../lib/secrets.js';
import { countTenants, insertTenant } from './tenants.repository.js';
import { findLiveUserByEmailAnyTenant, insertUser } from '../users/users.repository.js';

export const DEFAULT_TENANT_ID = 'default';
export const DEFAULT_ADMIN_EMAIL = 'admin@quire.local';

export async function bootstrapPlatform(db: Db, config: Config, log: Logger): Promise<void> {
  await db.transaction().execute(async (tx) => {
    // Serialise concurrent first starts (several processes on one fresh database).
    await sql`SELECT pg_advisory_xact_lock(7219001)`.execute(tx);
    if ((await countTenants(tx)) > 0) return;
    await insertTenant(tx, { id: DEFAULT_TENANT_ID, name: 'Default' });
    const email = config.adminEmail ?? DEFAULT_ADMIN_EMAIL;
    const generated = config.adminPassword === null;
    const password = config.adminPassword ?? randomToken(18);
    await insertUser(tx, {
      tenant_id: DEFAULT_TENANT_ID,
      email,
      display_name: 'Platform admin',
      role: 'platform_admin',
      status: 'active',
      password_hash: await hashPassword(password),
    });
    if (generated) {
      // Printed to stdout (not the structured log) so it is seen once and never shipped to log storage.
      process.stdout.write(`\nQuire platform admin created: ${email}\nGenerated password (shown once): ${password}\n\n`);
    }
    log.info({ email, tenantId: DEFAULT_TENANT_ID }, 'platform admin created');
  });
}

/** `quire create-admin`: adds a platform admin (or fails if the email is taken). */
export async function createPlatformAdmin(db: Db, email: string, password: string, tenantId = DEFAULT_TENANT_ID) {
  if (await findLiveUserByEmailAnyTenant(db, email)) throw new Error(`a user with email ${email} already exists`);
  return insertUser(db, {
    tenant_id: tenantId,
    email,
    display_name: null,
    role: 'platform_admin',
    status: 'active',
    password_hash: await hashPassword(password),
  });
}
