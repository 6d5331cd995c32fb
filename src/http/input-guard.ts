// Hostile input stops at the door: every string a request carries (body, query, path) is checked
// for characters PostgreSQL cannot store (NUL, lone UTF-16 surrogates), every number for being
// finite (JSON's 1e400 parses to Infinity, which would be stored as null or not at all), and every
// free-form value for nesting depth and size, before any handler, hash or merge walks it recursively.
// Each problem is a 422 at the field, in the validation shape.
import type { FastifyRequest } from 'fastify';
import type { ValidationItem } from '../lib/errors.js';
import { validationError } from '../lib/errors.js';

/** Deepest nesting accepted in any JSON value (objects and arrays count one level each). */
export const MAX_DEPTH = 32;
/** Most values (keys, elements and scalars) accepted under one top-level field. */
export const MAX_NODES = 20_000;

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unstorableText(value: string): boolean {
  return UNSTORABLE.test(value);
}

function stringItem(loc: (string | number)[]): ValidationItem {
  return { loc, msg: 'String should not contain NUL characters or unpaired surrogates', type: 'string_unstorable' };
}

/**
 * Walks one value iteratively (never recursion: a hostile depth must not cost the stack) and
 * reports the first problem under `root`, or null.
 */
export function inspectValue(value: unknown, root: (string | number)[]): ValidationItem | null {
  const stack: { value: unknown; loc: (string | number)[]; depth: number }[] = [{ value, loc: root, depth: 0 }];
  let nodes = 0;
  while (stack.length) {
    const { value: v, loc, depth } = stack.pop()!;
    if (++nodes > MAX_NODES) {
      return { loc: root, msg: `Value should have at most ${MAX_NODES} entries in all`, type: 'too_long', ctx: { max_entries: MAX_NODES } };
    }
    if (typeof v === 'string') {
      if (unstorableText(v)) return stringItem(loc);
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { loc, msg: 'Input should be a finite number', type: 'finite_number' };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_DEPTH) {
      return { loc: root, msg: `Value should be nested at most ${MAX_DEPTH} levels deep`, type: 'too_deep', ctx: { max_depth: MAX_DEPTH } };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], loc: [...loc, i], depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      if (unstorableText(key)) return stringItem([...loc, key]);
      stack.push({ value: child, loc: [...loc, key], depth: depth + 1 });
    }
  }
  return null;
}

/** One item per top-level field that fails, so a client sees every field to fix at once. */
export function inspectFields(fields: unknown, root: string): ValidationItem[] {
  if (fields === null || typeof fields !== 'object') {
    const item = inspectValue(fields, [root]);
    return item ? [item] : [];
  }
  const items: ValidationItem[] = [];
  const entries = Array.isArray(fields) ? fields.map((v, i) => [i, v] as const) : Object.entries(fields as Record<string, unknown>);
  for (const [key, child] of entries) {
    if (typeof key === 'string' && unstorableText(key)) {
      items.push(stringItem([root, key]));
      continue;
    }
    const item = inspectValue(child, [root, key]);
    if (item) items.push(item);
  }
  return items;
}

/** preValidation hook: body, query and path parameters of every request. */
export async function guardInput(request: FastifyRequest): Promise<void> {
  const items = [
    ...inspectFields(request.params ?? {}, 'path'),
    ...inspectFields(request.query ?? {}, 'query'),
    ...(request.body === undefined ? [] : inspectFields(request.body, 'body')),
  ];
  if (items.length) throw validationError(items);
}
