// A query built with Kysely once and then run many times with new values. Building a query with
// nested subqueries (immutable operation trees, cloned at every step) costs more CPU than the
// database spends answering a key lookup, so the hottest reads build theirs once per process.
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { keepPrepared } from './prepared-statements.js';

const MARK = '\u0000quire-param:';

type Slot = { name: string } | { value: unknown };

export class ReusableQuery<Values extends Record<string, unknown>, Row> {
  private compiled: CompiledQuery<Row> | null = null;
  private slots: Slot[] = [];

  /**
   * `build` writes the query with `value('name')` wherever a run-time value goes; the query's own
   * constants stay parameters of their own.
   */
  constructor(private readonly build: (db: Kysely<any>, value: (name: keyof Values & string) => string) => Compilable<Row>) {}

  async execute(db: Kysely<any>, values: Values): Promise<Row[]> {
    const compiled = (this.compiled ??= this.compile(db));
    const parameters = this.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
    const result = await db.executeQuery<Row>({ ...compiled, parameters });
    return result.rows;
  }

  private compile(db: Kysely<any>): CompiledQuery<Row> {
    const compiled = this.build(db, (name) => `${MARK}${name}`).compile();
    keepPrepared(compiled.sql);
    this.slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? { name: p.slice(MARK.length) } : { value: p }));
    return compiled;
  }
}
