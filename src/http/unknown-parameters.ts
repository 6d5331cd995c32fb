// A query parameter an operation does not take is refused, never ignored: `?stauts=failed` on a
// list would otherwise answer every row as if no filter had been asked for. Every API route's
// query string is checked against its declared parameters (none, for a route that declares no
// query schema), and an unknown one is a 422 at `["query", <name>]` with type `extra_forbidden`,
// as an unknown property of a JSON body is.
import type { RouteOptions } from 'fastify';

type Schema = Record<string | symbol, unknown>;

/** The API's own routes: /v1/... and the root. The console (/app) and the docs take their own query strings. */
const isApiRoute = (url: string) => url === '/' || url.startsWith('/v1/');

const NO_PARAMETERS: Schema = { type: 'object', properties: {}, additionalProperties: false };

/** onRoute hook: closes every API route's query schema to the parameters it declares. */
export function refuseUnknownQueryParameters(route: RouteOptions): void {
  if (!isApiRoute(route.url)) return;
  const schema = (route.schema ?? {}) as Schema;
  const key = schema.querystring ? 'querystring' : schema.query ? 'query' : 'querystring';
  const query = schema[key] as Schema | undefined;
  if (query && (query.type !== 'object' || query.additionalProperties !== undefined)) return;
  // Spread keeps TypeBox's symbol keys; the shared schema object itself is left as it is.
  route.schema = { ...schema, [key]: query ? { ...query, additionalProperties: false } : NO_PARAMETERS } as RouteOptions['schema'];
}
