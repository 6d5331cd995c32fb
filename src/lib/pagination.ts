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

/**
 * What encodeCursor writes: an instant as toISOString gives it (four-digit years; Date.parse
 * takes far more, "0" and "+275760-09-13" among them, which PostgreSQL refuses) and an id.
 */
const CURSOR_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CURSOR_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The 422 of a cursor this API did not give out (or gave out for another list). */
function notIssued(cursor: string) {
  return validationError([{ loc: ['query', 'cursor'], msg: 'Cursor is not one this API issued', type: 'value_error', input: cursor }]);
}

export function decodeCursor(cursor: string): CursorPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || !CURSOR_INSTANT.test(createdAt) || !CURSOR_ID.test(id)) throw new Error();
    if (new Date(createdAt).toISOString() !== createdAt) throw new Error(); // 2026-02-31 and the like
    return { createdAt, id };
  } catch {
    throw notIssued(cursor);
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

/** A cursor naming the last entry answered by its key: its place in a fixed order, or a version number. */
function encodeKeyCursor(key: string | number): string {
  return Buffer.from(JSON.stringify(['after', key])).toString('base64url');
}

function decodeKeyCursor(cursor: string, valid: (key: unknown) => boolean): string | number {
  try {
    const [tag, key] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (tag !== 'after' || !valid(key)) throw new Error();
    return key as string | number;
  } catch {
    throw notIssued(cursor);
  }
}

/**
 * A short list in a fixed order (one entry per endpoint type, per model backend) paged as every
 * list is: at most `limit` entries, and a cursor naming the last one answered. Resuming takes the
 * entries after that key's place in the order, so an entry added or removed between two pages
 * moves nothing.
 */
export function pageInOrder<T>(items: T[], order: readonly string[], keyOf: (item: T) => string, page: PageRequest): Page<T> {
  const limit = page.limit ?? 50;
  const after = page.cursor ? order.indexOf(decodeKeyCursor(page.cursor, (k) => typeof k === 'string' && order.includes(k)) as string) : -1;
  const rest = items.filter((item) => order.indexOf(keyOf(item)) > after).sort((a, b) => order.indexOf(keyOf(a)) - order.indexOf(keyOf(b)));
  const taken = rest.slice(0, limit);
  const last = taken[taken.length - 1];
  return { items: taken, next_cursor: rest.length > limit && last ? encodeKeyCursor(keyOf(last)) : null };
}

/** A cursor after `version` for a list of versions, newest (highest) first. */
export const encodeVersionCursor = (version: number) => encodeKeyCursor(version);

export function decodeVersionCursor(cursor: string): number {
  return decodeKeyCursor(cursor, (k) => Number.isSafeInteger(k) && (k as number) > 0) as number;
}
