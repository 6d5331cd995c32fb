// SQL of connections. Every function takes the tenant; the worker-side ones that act across
// tenants are named …AnyTenant.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { Connection, Direction, Protocol } from '../../db/connections-schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export interface NewConnection {
  id: string;
  tenant_id: string;
  name: string;
  protocol: Protocol;
  direction: Direction;
  config: Record<string, unknown>;
  credentials_sealed: string | null;
  credential_keys: string[];
  created_by: string | null;
}

export async function insertConnection(db: Db | Tx, row: NewConnection): Promise<Connection> {
  return db
    .insertInto('connections')
    .values({ ...row, config: JSON.stringify(row.config) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findConnection(db: Db | Tx, tenantId: string, id: string): Promise<Connection | undefined> {
  return db.selectFrom('connections').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function findConnectionAnyTenant(db: Db | Tx, id: string): Promise<Connection | undefined> {
  return db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listConnections(db: Db, tenantId: string, filters: { protocol?: Protocol; direction?: Direction }, page: PageRequest) {
  let query = db.selectFrom('connections').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
  if (filters.protocol) query = query.where('protocol', '=', filters.protocol);
  if (filters.direction) query = query.where('direction', '=', filters.direction);
  return paginate(query, page);
}

export interface ConnectionChanges {
  name?: string;
  direction?: Direction;
  config?: Record<string, unknown>;
  credentials_sealed?: string | null;
  credential_keys?: string[];
}

export async function updateConnection(db: Db | Tx, tenantId: string, id: string, changes: ConnectionChanges): Promise<Connection | undefined> {
  const { config, ...rest } = changes;
  return db
    .updateTable('connections')
    .set({ ...rest, ...(config ? { config: JSON.stringify(config) } : {}), updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function softDeleteConnection(db: Db | Tx, tenantId: string, id: string): Promise<Connection | undefined> {
  return db
    .updateTable('connections')
    .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
