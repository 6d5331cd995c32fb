// Migration 0020: the deliveries, forge jobs and sources that wait for a suspended tenant when it
// is applied are marked tenant_paused at once (and out of their claims' indexes); a deleted
// tenant's runs left behind are not, their claims taking them to end at once.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0020_paused_tenant_claims.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

class RollBack extends Error {}

it('marks the waiting work of the tenants suspended when it is applied', async () => {
  await h.db
    .transaction()
    .execute(async (tx) => {
      await down(tx as unknown as Kysely<unknown>);
      await sql`
        INSERT INTO tenants (id, name, status, deleted_at) VALUES
          ('acme', 'Acme', 'suspended', NULL), ('globex', 'Globex', 'active', NULL), ('gone', 'Gone', 'suspended', now())`.execute(tx);
      for (const t of ['acme', 'globex', 'gone']) {
        await sql`
          INSERT INTO connections (id, tenant_id, name, protocol, direction, config, deleted_at) VALUES
            (${`${t}_src`}, ${t}, 'inbox', 'local', 'source', '{}', ${t === 'gone' ? sql`now()` : null}),
            (${`${t}_dst`}, ${t}, 'results', 'local', 'destination', '{}', ${t === 'gone' ? sql`now()` : null})`.execute(tx);
        await sql`
          INSERT INTO deliveries (id, tenant_id, connection_id, kind, event, status, lease_expires_at) VALUES
            (${`${t}_pending`}, ${t}, ${`${t}_dst`}, 'job', 'job.completed', 'pending', NULL),
            (${`${t}_delivering`}, ${t}, ${`${t}_dst`}, 'job', 'job.completed', 'delivering', now() - interval '1 minute'),
            (${`${t}_delivered`}, ${t}, ${`${t}_dst`}, 'job', 'job.completed', 'delivered', NULL)`.execute(tx);
        await sql`
          INSERT INTO forge_jobs (id, tenant_id, status, sample_job_ids, limits) VALUES
            (${`${t}_queued`}, ${t}, 'queued', '{}', '{}'), (${`${t}_running`}, ${t}, 'running', '{}', '{}'), (${`${t}_failed`}, ${t}, 'failed', '{}', '{}')`.execute(tx);
      }
      await up(tx as unknown as Kysely<unknown>);

      const marked = async (table: 'deliveries' | 'forge_jobs' | 'connections') =>
        (await sql<{ id: string }>`SELECT id FROM ${sql.table(table)} WHERE tenant_paused ORDER BY id`.execute(tx)).rows.map((r) => r.id);
      expect(await marked('deliveries')).toEqual(['acme_delivering', 'acme_pending']);
      expect(await marked('forge_jobs')).toEqual(['acme_queued', 'acme_running']);
      expect(await marked('connections')).toEqual(['acme_dst', 'acme_src']);

      // From here on the triggers keep the marks.
      await sql`UPDATE tenants SET status = 'active' WHERE id = 'acme'`.execute(tx);
      expect([await marked('deliveries'), await marked('forge_jobs'), await marked('connections')]).toEqual([[], [], []]);
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
});
