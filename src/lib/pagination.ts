// Keyset pagination, newest first, over (created_at, id): stable while rows are added.
import { type SelectQueryBuilder, sql } from 'kysely';
import { validationError } from './errors.js';

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

interface CursorPosition {
  createdAt: string;
  id: string;
}

export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): CursorPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(createdAt))) throw new Error();
    return { createdAt, id };
  } catch {
    throw validationError([{ loc: ['query', 'cursor'], msg: 'Cursor is not one this API issued', type: 'value_error', input: cursor }]);
  }
}

/**
 * Applies ordering, the cursor and limit+1 to a query whose rows have created_at and id
 * (qualified by `table` when the query joins), then cuts the extra row into next_cursor.
 */
export async function paginate<DB, TB extends keyof DB, O extends { created_at: Date; id: string }>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  table?: string,
): Promise<Page<O>> {
  const limit = page.limit ?? 50;
  const createdAt = sql.ref(table ? `${table}.created_at` : 'created_at');
  const id = sql.ref(table ? `${table}.id` : 'id');
  let q = query;
  if (page.cursor) {
    const position = decodeCursor(page.cursor);
    q = q.where(sql<boolean>`(${createdAt}, ${id}) < (${position.createdAt}::timestamptz, ${position.id})`);
  }
  const rows = await q.orderBy(createdAt, 'desc').orderBy(id, 'desc').limit(limit + 1).execute();
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null };
}
