import { type CompiledQuery, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ReusableQuery } from './reusable-query.js';

/** A Kysely whose driver records each statement instead of running it. */
function recordingDb() {
  const seen: CompiledQuery[] = [];
  class Recording extends DummyDriver {
    override async acquireConnection() {
      return { executeQuery: async (q: CompiledQuery) => (seen.push(q), { rows: [{ ok: q.parameters }] }), streamQuery: async function* () {} } as never;
    }
  }
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new Recording(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, seen };
}

describe('ReusableQuery', () => {
  const query = new ReusableQuery((db, value: (name: 'tenant' | 'id') => string) =>
    db.selectFrom('jobs').selectAll().where('tenant_id', '=', value('tenant')).where('kind', '=', 'job').where('id', '=', value('id')).where('owner', '=', value('tenant')),
  );

  it('runs the same statement with each call\'s values in their places, constants kept', async () => {
    const { db, seen } = recordingDb();
    await query.execute(db, { tenant: 't1', id: 'job_1' });
    await query.execute(db, { tenant: 't2', id: 'job_2' });
    expect(seen.map((q) => q.parameters)).toEqual([
      ['t1', 'job', 'job_1', 't1'],
      ['t2', 'job', 'job_2', 't2'],
    ]);
    expect(seen[0]!.sql).toBe(seen[1]!.sql);
    expect(seen[0]!.sql).toBe('select * from "jobs" where "tenant_id" = $1 and "kind" = $2 and "id" = $3 and "owner" = $4');
  });
});
