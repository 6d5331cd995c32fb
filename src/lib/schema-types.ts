// Schema building blocks below any transport: TypeBox helpers that keep one validation error per
// field (plain `enum`, `type: [T, "null"]`).
import { type Static, type TSchema, Type } from 'typebox';

/** A string enum as plain JSON Schema `enum` (one clear validation error, not an anyOf of consts). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `T | null` as `type: [T, "null"]`, so a wrong type yields a single error item. */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type?: string | string[]; enum?: unknown[] };
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return Type.Unsafe<Static<T> | null>({
    ...(schema as object),
    ...(types.length ? { type: [...types, 'null'] } : {}),
    ...(s.enum ? { enum: [...s.enum, null] } : {}),
  });
}
