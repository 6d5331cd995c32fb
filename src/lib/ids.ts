// Opaque, sortable, prefixed identifiers (decisions.md "Names").
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

// ulidx's own source of randomness asks the system for one byte per character, sixteen calls an
// id; this one draws the same cryptographic bytes from a pool filled 4 KB at a time. A byte over
// 256 also picks each of the 32 characters equally often (ulidx divides by 255 and clamps).
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomFraction(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

const ulid = monotonicFactory(randomFraction);

/** Tenant ids, chosen by the platform admin who creates the tenant: one safe path segment too. */
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9\\-]{1,62}$';

export type IdPrefix =
  | 'job' | 'bat' | 'rev' | 'tpl' | 'drf' | 'fgj' | 'fgi' | 'con' | 'fep'
  | 'usr' | 'ses' | 'art' | 'aud' | 'key' | 'tok';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
