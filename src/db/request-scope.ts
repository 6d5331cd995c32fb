// A request-scoped transaction: every query a request makes, through any Kysely handle built by
// createDb, runs on one connection inside one transaction, so the request's changes and its audit
// entry commit together or not at all. The scope travels in AsyncLocalStorage, which is how the
// handlers' plain `ctx.db` calls reach it without being passed a transaction. A `db.transaction()`
// inside the scope becomes a savepoint. Outside a scope (workers, timers), nothing changes.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

interface Scope {
  /** The driver (database) whose connection the scope holds; another database is not scoped. */
  driver: ScopedDriver | null;
  connection: Promise<ScopedConnection> | null;
  closed: boolean;
  savepoints: number;
}

const storage = new AsyncLocalStorage<Scope>();

class ScopedConnection implements DatabaseConnection {
  /** The last query queued: one connection runs one query at a time, in the order they were asked. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly inner: DatabaseConnection,
    readonly scope: Scope,
  ) {}
  // A handler's parallel reads (Promise.all) share the request's one connection: they are queued
  // here instead of overlapping on the pg client, which pg does not support.
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const run = this.tail.then(() => this.inner.executeQuery<R>(query));
    this.tail = run.catch(() => undefined);
    return run;
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const raw = (conn: DatabaseConnection, text: string) => conn.executeQuery(CompiledQuery.raw(text));

class ScopedDriver implements Driver {
  /** Savepoint names of nested transactions, per connection (innermost last). */
  private readonly nested = new WeakMap<ScopedConnection, string[]>();

  constructor(readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const scope = storage.getStore();
    if (!scope || scope.closed || (scope.driver && scope.driver !== this)) return this.inner.acquireConnection();
    scope.driver = this;
    scope.connection ??= (async () => {
      const conn = await this.inner.acquireConnection();
      await raw(conn, 'begin');
      return new ScopedConnection(conn, scope);
    })();
    return scope.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.beginTransaction(connection, settings);
    const name = `quire_sp_${++connection.scope.savepoints}`;
    const stack = this.nested.get(connection) ?? [];
    stack.push(name);
    this.nested.set(connection, stack);
    await raw(connection, `savepoint ${name}`);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.commitTransaction(connection);
    const name = this.nested.get(connection)?.pop();
    if (name) await raw(connection, `release savepoint ${name}`);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!(connection instanceof ScopedConnection)) return this.inner.rollbackTransaction(connection);
    const name = this.nested.get(connection)?.pop();
    if (name) await raw(connection, `rollback to savepoint ${name}`);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    return this.inner.savepoint!(connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    return this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    return this.inner.releaseSavepoint!(connection, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // The scope's connection is released once, when the scope ends.
    if (!(connection instanceof ScopedConnection)) await this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /** Commits or rolls back the scope's transaction (if it ever opened one) and frees its connection. */
  async end(scope: Scope, commit: boolean): Promise<void> {
    scope.closed = true;
    const pending = scope.connection;
    scope.connection = null;
    if (!pending) return;
    const conn = await pending;
    try {
      await raw(conn, commit ? 'commit' : 'rollback');
    } finally {
      await this.inner.releaseConnection(conn.inner);
    }
  }
}

/** Wraps a dialect so that Kysely handles built on it honour request scopes. */
export function scopedDialect(inner: Dialect): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createDriver: () => new ScopedDriver(inner.createDriver()),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => inner.createIntrospector(db),
  };
}

export interface RequestScope {
  /** Runs `fn` (and everything it starts) inside the scope. */
  run<T>(fn: () => T): T;
  /** Runs `fn` on the scope's transaction, even from outside its async context. */
  within<T>(fn: () => Promise<T>): Promise<T>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** A new scope for one request. Its transaction opens lazily, on the first query. */
export function openRequestScope(): RequestScope {
  const scope: Scope = { driver: null, connection: null, closed: false, savepoints: 0 };
  const end = async (commit: boolean) => {
    scope.closed = true;
    await scope.driver?.end(scope, commit);
  };
  return {
    run: (fn) => storage.run(scope, fn),
    within: (fn) => storage.run(scope, fn),
    commit: () => end(true),
    rollback: () => end(false),
  };
}
