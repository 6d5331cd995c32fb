// An integer a request carries must survive JSON.parse exactly. Past ±(2^53 − 1) a double can no
// longer hold every integer: 9007199254740993 parses to …992 and 1e300 is an "integer" too, so such
// a value would be stored as something the client never sent. Every integer in a route's request
// schemas (body, query, path, headers) that sets no bound of its own gets the safe one, which the
// validator then enforces as a 422 at the field and the OpenAPI document shows.
import type { RouteOptions } from 'fastify';

type Schema = Record<string | symbol, unknown>;

const CHILD_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const CHILD_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const CHILD_SCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

const isInteger = (s: Schema) => s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'));

/** A copy of `schema` whose integers are bounded to the safe range where they set no bound. */
export function withSafeIntegers<T>(schema: T): T {
  if (!isSchema(schema)) return schema;
  // Spread keeps TypeBox's symbol keys, which its own tooling reads.
  const out: Schema = { ...schema };
  if (isInteger(out)) {
    if (out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
    if (out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = Number.MIN_SAFE_INTEGER;
  }
  for (const key of CHILD_MAPS) {
    const map = out[key];
    if (isSchema(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, withSafeIntegers(v)]));
  }
  for (const key of CHILD_LISTS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((v) => withSafeIntegers(v));
  }
  for (const key of CHILD_SCHEMAS) if (isSchema(out[key])) out[key] = withSafeIntegers(out[key]);
  return out as T;
}

/** onRoute hook: bounds the integers of the request schemas (responses are ours, not checked). */
export function boundRequestIntegers(route: RouteOptions): void {
  const schema = route.schema as Schema | undefined;
  if (!schema) return;
  const bounded: Schema = { ...schema };
  for (const part of ['body', 'querystring', 'params', 'headers'] as const) if (schema[part]) bounded[part] = withSafeIntegers(schema[part]);
  route.schema = bounded as RouteOptions['schema'];
}
