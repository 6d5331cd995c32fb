// Rotating and revoking one API key at the same time. Each race is made deterministic: the test
// runs one side (the real service function) in a transaction of its own, starts the other through
// the API, waits until it is blocked on the key's row, then commits. Exactly one side changes the
// key; the other is 409, and every secret answered works.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Tx } from '../../src/db/database.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { revokeKey, rotateKey, tenantScope } from '../../src/domain/keys/keys.service.js';
import { waitFor } from '../helpers/documents.js';
import { type Harness, type Reply, startHarness } from '../helpers/harness.js';

let h: Harness;
let admin: { id: string; token: string | null };
let principal: Principal;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme', 'Acme');
  admin = await h.seedUser('acme', 'admin');
  principal = { userId: admin.id, email: null, role: 'admin', tenantId: 'acme', homeTenantId: 'acme', method: 'session', sessionId: null, apiKeyId: null };
});
afterAll(() => h.close());

async function newKey(): Promise<string> {
  const res = await h.request('POST', '/v1/admin/api-keys', { token: admin.token!, body: { name: 'ci' } });
  expect(res.status).toBe(201);
  return res.body.public_id;
}

/** Runs `first` in a transaction, then `second` through the API, blocked until that commits. */
async function race<T>(first: (tx: Tx) => Promise<T>, second: () => Promise<Reply>): Promise<[T, Reply]> {
  let pending!: Promise<Reply>;
  const result = await h.db.transaction().execute(async (tx) => {
    const out = await first(tx);
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
    pending = second();
    await waitFor('the second request to wait for the key', async () => {
      const blocked = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${rows[0]!.pid}::int = ANY(pg_blocking_pids(pid))`.execute(h.db);
      return blocked.rows[0]!.n > 0;
    });
    return out;
  });
  return [result, await pending];
}

const works = async (secret: string) => (await h.request('GET', '/v1/me', { token: secret })).status;
const rotateVia = (id: string) => () => h.request('POST', `/v1/admin/api-keys/${id}/rotate`, { token: admin.token! });
const revokeVia = (id: string) => () => h.request('POST', `/v1/admin/api-keys/${id}/revoke`, { token: admin.token! });

describe('API keys changed at the same time', () => {
  it('two rotations: one answers the secret, which works; the other is 409 key_rotated', async () => {
    const id = await newKey();
    const [won, lost] = await race((tx) => rotateKey(tx as unknown as Db, principal, tenantScope(principal), id), rotateVia(id));
    expect(lost.status, JSON.stringify(lost.body)).toBe(409);
    expect(lost.body.code).toBe('key_rotated');
    expect(await works(won.secret)).toBe(200);
  });

  it('a rotation racing a revoke that wins: 409 key_revoked, never a secret that does not work', async () => {
    const id = await newKey();
    const [revoked, rotated] = await race((tx) => revokeKey(tx as unknown as Db, tenantScope(principal), id), rotateVia(id));
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(409);
    expect(rotated.body.code).toBe('key_revoked');
  });

  it('two revokes: one revokes, the other is 409 key_revoked', async () => {
    const id = await newKey();
    const [revoked, again] = await race((tx) => revokeKey(tx as unknown as Db, tenantScope(principal), id), revokeVia(id));
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body.code).toBe('key_revoked');
  });

  it('one after the other, rotations all work: each reads the secret the one before left', async () => {
    const id = await newKey();
    for (let i = 0; i < 3; i++) {
      const res = await rotateVia(id)();
      expect(res.status).toBe(200);
      expect(await works(res.body.secret)).toBe(200);
    }
  });
});
