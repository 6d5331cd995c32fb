// A parameter an operation does not take is refused, never ignored: `?stauts=failed` on a list
// would otherwise answer every row as if no filter had been asked for, and `{"templat_id": …}` in
// a reprocess would keep the template. Every API route's query string is checked against its
// declared parameters (none, for a route that declares no query schema), and every JSON body
// against its declared fields: an unknown one is a 422 at `["query" | "body", <name>]` with type
// `extra_forbidden`. A body that is a free-form object by design (additionalProperties set) keeps
// what it takes.
import type { RouteOptions } from 'fastify';

type Schema = Record<string | symbol, unknown>;

/** The API's own routes: /v1/... and the root. The console (/app) and the docs take their own query strings. */
const isApiRoute = (url: string) => url === '/' || url.startsWith('/v1/');

const NO_PARAMETERS: Schema = { type: 'object', properties: {}, additionalProperties: false };

/** An object schema that lists its fields and says nothing of others: closed to them. */
function closed(schema: Schema): Schema {
  if (schema.type !== 'object' || schema.additionalProperties !== undefined || schema.patternProperties !== undefined) return schema;
  // Spread keeps TypeBox's symbol keys; the shared schema object itself is left as it is.
  return { ...schema, additionalProperties: false };
}

/** onRoute hook: closes every API route's query schema and JSON body schema to the fields it declares. */
export function refuseUnknownParameters(route: RouteOptions): void {
  if (!isApiRoute(route.url)) return;
  const schema = { ...((route.schema ?? {}) as Schema) };
  const key = schema.querystring ? 'querystring' : schema.query ? 'query' : 'querystring';
  const query = schema[key] as Schema | undefined;
  schema[key] = query ? closed(query) : NO_PARAMETERS;
  if (schema.body) schema.body = closed(schema.body as Schema);
  route.schema = schema as RouteOptions['schema'];
}
