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
 * feature_not_supported: among others, what PostgreSQL answers ("cached plan must not change
 * result type") when a table under a prepared statement changed its result's columns (a migration).
 */
const RESULT_TYPE_CHANGED = '0A000';

/**
 * The pg client the pool hands out: a registered text goes out as a named statement, parsed and
 * planned once per connection. pg remembers what each connection has prepared and sends only
 * Bind and Execute after the first time.
 */
export class PreparingClient extends pg.Client {
  /** Texts whose statement went stale on this connection (a migration changed its columns), and how often. */
  private readonly renamed = new Map<string, number>();

  override query(config: unknown, values?: unknown, callback?: unknown): any {
    const run = super.query as (...args: unknown[]) => unknown;
    if (typeof config !== 'string' || typeof values === 'function' || callback !== undefined) return run.call(this, config, values, callback);
    const registered = names.get(config);
    const prepared = (this as unknown as { connection: Connection }).connection.parsedStatements;
    const generation = this.renamed.get(config);
    const name = registered && (generation ? `${registered}_${generation}` : registered);
    if (!name || (!(name in prepared) && Object.keys(prepared).length >= MAX_PER_CONNECTION)) return run.call(this, config, values);
    return (run.call(this, { name, text: config, values }) as Promise<unknown>).catch((err: { code?: string }) => {
      // The statement fails once on this connection; its next run prepares it again under a new name.
      if (err?.code === RESULT_TYPE_CHANGED) this.renamed.set(config, (generation ?? 0) + 1);
      throw err;
    });
  }
}
