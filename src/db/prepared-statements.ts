// Server-side prepared statements for the statements Quire runs most: the read path's job
// statement, the queue's claim, heartbeat and settle. PostgreSQL plans an unnamed statement
// afresh at every execution; for these, planning costs several times what running them does
// (the read path's job statement: 0.64 ms of the server's CPU unnamed, 0.11 ms prepared;
// docs/performance.md). A statement is prepared only when it is registered here, and only
// statements whose plan does not depend on their values are: key lookups and the queue's own
// statements, whose generic plan is the custom one. Anything else stays unnamed, so a skewed
// column can never be read through a plan made for other values.
import { createHash } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import pg from 'pg';

/** Most statements one connection keeps prepared; past it, further texts run unnamed on it. */
const MAX_PER_CONNECTION = 100;

const names = new Map<string, string>();

/** Runs `text` as a named, prepared statement on every connection from now on. */
export function keepPrepared(text: string): void {
  if (!names.has(text)) names.set(text, `quire_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
}

/** The name `text` is prepared under, or undefined when it runs unnamed. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}

/** Compiles a query (a builder or a `sql` template), registers its text as prepared, and runs it. */
export async function executePrepared<R>(db: Kysely<any>, query: Compilable<R> | RawBuilder<R>): Promise<QueryResult<R>> {
  // A builder compiles on its own; a `sql` template needs the Kysely instance. Both take it.
  const compiled = (query as { compile(db: Kysely<any>): CompiledQuery<R> }).compile(db);
  keepPrepared(compiled.sql);
  return db.executeQuery(compiled);
}

type Connection = { parsedStatements: Record<string, string> };

/**
 * The pg client the pool hands out: a registered text goes out as a named statement, parsed and
 * planned once per connection. pg remembers what each connection has prepared and sends only
 * Bind and Execute after the first time.
 */
export class PreparingClient extends pg.Client {
  override query(config: unknown, values?: unknown, callback?: unknown): any {
    if (typeof config === 'string') {
      const name = names.get(config);
      const prepared = (this as unknown as { connection: Connection }).connection.parsedStatements;
      if (name && (name in prepared || Object.keys(prepared).length < MAX_PER_CONNECTION)) {
        const cb = typeof values === 'function' ? values : callback;
        const vals = typeof values === 'function' ? undefined : values;
        return (super.query as (...args: unknown[]) => unknown)({ name, text: config, values: vals }, ...(cb ? [cb] : []));
      }
    }
    return (super.query as (...args: unknown[]) => unknown)(config, values, callback);
  }
}
