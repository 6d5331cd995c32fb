// Migration 0015: a local connection's path becomes relative to its tenant's folder. Paths that
// began with the tenant's id keep naming the same directory; others are left as they are.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0015_local_paths_per_tenant.js';
import { newId } from '../../src/lib/ids.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('pathco');
});
afterAll(() => h.close());

class RollBack extends Error {}

it("drops the tenant's own prefix from local paths, and only that", async () => {
  const rows = [
    ['local', 'pathco/results'],
    ['local', 'pathco'],
    ['local', 'pathcoffee/in'],
    ['local', 'results'],
    ['local', 'globex/x'],
    ['sftp', 'pathco/remote'],
  ] as const;
  const ids = rows.map(() => newId('con'));
  const read = async (tx: typeof h.db) =>
    (await tx.selectFrom('connections').select(['id', 'config']).where('id', 'in', ids).execute()).map((r) => [ids.indexOf(r.id), (r.config as { path: string }).path]).sort((a, b) => Number(a[0]) - Number(b[0])).map((r) => r[1]);
  // Inside a transaction that is rolled back: other test files share this table.
  await h.db
    .transaction()
    .execute(async (tx) => {
      for (const [i, [protocol, path]] of rows.entries()) {
        await tx.insertInto('connections').values({ id: ids[i]!, tenant_id: 'pathco', name: `c${i}`, protocol, direction: 'destination', config: JSON.stringify({ path }) }).execute();
      }
      await up(tx as unknown as Kysely<unknown>);
      expect(await read(tx)).toEqual(['results', '.', 'pathcoffee/in', 'results', 'globex/x', 'pathco/remote']);
      await down(tx as unknown as Kysely<unknown>);
      expect((await read(tx)).slice(0, 2)).toEqual(['pathco/results', 'pathco']);
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
});
