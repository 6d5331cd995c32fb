// Idempotency-Key: the same key with the same request within 24 hours answers the first result;
// the same key with a different request is a conflict. Keys are per tenant and per endpoint.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import { conflict } from '../../lib/errors.js';
import { IDEMPOTENCY_HOURS } from '../../queue/maintenance.js';

export type IdempotencyScope = 'documents' | 'batches';

/** A stable digest of what makes two requests "the same": every field and every file's content. */
export function requestHash(parts: unknown): string {
  const canonical = JSON.stringify(parts, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as object).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/** The resource a live key already produced, or null; throws 409 when the key was used for another request. */
export async function replayOf(db: Db | Tx, tenantId: string, scope: IdempotencyScope, key: string, hash: string): Promise<string | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'resource_id'])
    .where('tenant_id', '=', tenantId)
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('created_at', '>', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`)
    .executeTakeFirst();
  if (!row) return null;
  if (row.request_hash !== hash) {
    throw conflict('idempotency_key_reused', 'This Idempotency-Key was already used with a different request in the last 24 hours. Use a new key for a new request.');
  }
  return row.resource_id;
}

/**
 * Claims the key for a new resource inside the creating transaction. False when another request
 * claimed it first (the caller rolls back and replays that request's answer). An expired key is
 * taken over.
 */
export async function claimKey(tx: Tx, tenantId: string, scope: IdempotencyScope, key: string, hash: string, resourceId: string): Promise<boolean> {
  const row = await tx
    .insertInto('idempotency_keys')
    .values({ tenant_id: tenantId, scope, key, request_hash: hash, resource_id: resourceId })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'scope', 'key'])
        .doUpdateSet({ request_hash: hash, resource_id: resourceId, created_at: sql`now()` })
        .where('idempotency_keys.created_at', '<=', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`),
    )
    .returning('resource_id')
    .executeTakeFirst();
  return !!row;
}

export class IdempotentReplay extends Error {
  constructor() {
    super('idempotency key claimed concurrently');
  }
}
