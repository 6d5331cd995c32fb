// Migration 0021: the columns holding template schemas become `json`, which keeps an object's keys
// as written; rolled back, they are `jsonb` again. Stored schemas keep their content either way.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { down, up } from '../../src/db/migrations/0021_schema_key_order.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

class RollBack extends Error {}

const schema = { type: 'object', properties: { invoice_number: { type: 'string' }, date: { type: 'string' }, total: { type: 'number' } } };

it('turns the schema columns into json and back, keeping what is stored', async () => {
  const admin = (await h.seedUser(DEFAULT_TENANT_ID, 'admin')).token!;
  const created = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'migration-order', json_schema: schema } });
  expect(created.status).toBe(201);
  const types = async (tx: typeof h.db) => {
    const { rows } = await sql<{ t: string; c: string; type: string }>`
      SELECT table_name AS t, column_name AS c, data_type AS type FROM information_schema.columns
       WHERE (table_name, column_name) IN (('templates', 'json_schema'), ('template_versions', 'snapshot'), ('template_drafts', 'json_schema'),
             ('template_drafts', 'field_examples'), ('forge_jobs', 'expected_outputs'), ('forge_iterations', 'candidate'))`.execute(tx);
    return new Set(rows.map((r) => r.type));
  };
  const stored = async (tx: typeof h.db) => {
    const { rows } = await sql<{ s: string }>`SELECT json_schema::text AS s FROM templates WHERE id = ${created.body.id}`.execute(tx);
    return JSON.parse(rows[0]!.s);
  };
  await h.db
    .transaction()
    .execute(async (tx) => {
      expect(await types(tx)).toEqual(new Set(['json']));
      await down(tx as unknown as Kysely<unknown>);
      expect(await types(tx)).toEqual(new Set(['jsonb']));
      expect(await stored(tx)).toEqual(schema);
      // The check still refuses a schema that is no object, under either type.
      await expect(sql`UPDATE templates SET json_schema = '[]' WHERE id = ${created.body.id}`.execute(tx)).rejects.toThrow(/templates_json_schema_check/);
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
  await h.db
    .transaction()
    .execute(async (tx) => {
      await down(tx as unknown as Kysely<unknown>);
      await up(tx as unknown as Kysely<unknown>);
      expect(await types(tx)).toEqual(new Set(['json']));
      expect(await stored(tx)).toEqual(schema);
      await sql`INSERT INTO template_drafts (id, tenant_id, proposed_name, json_schema) VALUES ('drf_migration_order', ${DEFAULT_TENANT_ID}, 'x', ${JSON.stringify(schema)})`.execute(tx);
      const { rows } = await sql<{ e: string }>`SELECT field_examples::text AS e FROM template_drafts WHERE id = 'drf_migration_order'`.execute(tx);
      expect(rows[0]!.e).toBe('{}');
      await expect(sql`UPDATE templates SET json_schema = '[]' WHERE id = ${created.body.id}`.execute(tx)).rejects.toThrow(/templates_json_schema_check/);
      throw new RollBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RollBack)) throw err;
    });
});
