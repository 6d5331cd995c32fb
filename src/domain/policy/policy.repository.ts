// SQL for tenant policies, platform defaults and the policy version counter. Every write goes
// through a transaction that first bumps the counter: the row lock serialises policy writers
// (so "old" values in the audit are exact) and the new version tells other processes to refresh.
import { sql } from 'kysely';
import { executePrepared } from '../../db/prepared-statements.js';
import type { Db, Tx } from '../../db/database.js';
import type { PolicyValues } from './policy.registry.js';
import { knownValues } from './policy.resolve.js';

export async function findTenantValues(db: Db | Tx, tenantId: string): Promise<PolicyValues> {
  const [row] = (await executePrepared(db, db.selectFrom('tenant_policies').select('values').where('tenant_id', '=', tenantId))).rows;
  return knownValues(row?.values);
}

export async function findPlatformOverrides(db: Db | Tx): Promise<{ values: PolicyValues; updatedAt: Date | null }> {
  const { rows } = await executePrepared(db, db.selectFrom('platform_defaults').select(['name', 'value', 'updated_at']));
  const values = knownValues(Object.fromEntries(rows.map((r) => [r.name, r.value])));
  const updatedAt = rows.reduce<Date | null>((latest, r) => (latest && latest > r.updated_at ? latest : r.updated_at), null);
  return { values, updatedAt };
}

/**
 * The platform's overrides and the tenant's own values in one statement: what a job reads when it
 * starts (one round trip instead of two).
 */
export async function findPolicyLayers(db: Db | Tx, tenantId: string): Promise<{ platform: PolicyValues; tenant: PolicyValues }> {
  const { rows } = await executePrepared(
    db,
    sql<{ platform: Record<string, unknown> | null; tenant: Record<string, unknown> | null }>`
    SELECT (SELECT jsonb_object_agg(name, value) FROM platform_defaults) AS platform,
           (SELECT values FROM tenant_policies WHERE tenant_id = ${tenantId}) AS tenant`,
  );
  return { platform: knownValues(rows[0]?.platform), tenant: knownValues(rows[0]?.tenant) };
}

export async function currentPolicyVersion(db: Db): Promise<number> {
  const row = await db.selectFrom('policy_version').select('version').where('id', '=', 1).executeTakeFirst();
  return row ? Number(row.version) : 0;
}

/** Bumps the version (taking the row lock that serialises policy writers); answers the new one. */
export async function bumpPolicyVersion(tx: Tx): Promise<number> {
  const row = await tx
    .updateTable('policy_version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

export async function saveTenantValues(tx: Tx, tenantId: string, values: PolicyValues, actorId: string | null): Promise<void> {
  const json = JSON.stringify(values);
  await tx
    .insertInto('tenant_policies')
    .values({ tenant_id: tenantId, values: json, updated_by: actorId })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ values: json, updated_by: actorId, updated_at: new Date() }))
    .execute();
}

export async function deleteTenantValues(tx: Tx, tenantId: string): Promise<void> {
  await tx.deleteFrom('tenant_policies').where('tenant_id', '=', tenantId).execute();
}

export async function savePlatformValues(tx: Tx, values: PolicyValues, actorId: string | null): Promise<void> {
  const rows = Object.entries(values).map(([name, value]) => ({ name, value: JSON.stringify(value), updated_by: actorId }));
  if (!rows.length) return;
  await tx
    .insertInto('platform_defaults')
    .values(rows)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_by: eb.ref('excluded.updated_by'), updated_at: new Date() })),
    )
    .execute();
}
