// The served OpenAPI document (@fastify/swagger) as interface.md states the operations: the
// swagger plugin writes what the route schemas say, and these fill in what they cannot.
import { optionalBody } from './routes/documents.routes.js';

/** Marks, on a body schema, a body the route takes as optional; removed again from the document. */
const OPTIONAL_BODY = 'x-quire-optional-body';

/** The registered HTTPValidationError schema by reference: one component, not a copy per operation. */
const VALIDATION_ERROR_REF = { $ref: 'HTTPValidationError#', description: 'Request validation failure (422)' };

type RouteView = { config?: unknown; preValidation?: unknown };

/** Per route: the documented body, security and responses. */
export function openapiRoute({ schema, url, route }: { schema: unknown; url: string; route: RouteView }) {
  const config = (route.config ?? {}) as { permission?: string; openapiBody?: unknown; openapiConsumes?: string[] };
  const next: Record<string, unknown> = { ...(schema as object) };
  if (config.openapiBody) next.body = config.openapiBody;
  if (config.openapiConsumes) next.consumes = config.openapiConsumes;
  if (config.permission && config.permission !== 'public') next.security = [{ bearer: [] }];
  // interface.md: every operation with a body can answer with the validation error shape (422).
  if (next.body && next.response) next.response = { 422: VALIDATION_ERROR_REF, ...(next.response as object) };
  // A body the route takes as optional (an absent one reads as {}) is documented as optional.
  if (next.body && [route.preValidation].flat().includes(optionalBody)) next.body = { ...(next.body as object), [OPTIONAL_BODY]: true };
  return { schema: next as never, url };
}

interface Operation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Record<string, unknown> }> };
}

/** The whole document: request bodies marked optional by openapiRoute become `required: false`. */
export function markOptionalBodies<T extends { paths?: Record<string, Record<string, unknown>> }>(doc: T): T {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item) as Operation[]) {
      const body = operation?.requestBody;
      if (!body?.content) continue;
      let optional = false;
      for (const media of Object.values(body.content)) {
        if (media.schema && OPTIONAL_BODY in media.schema) {
          optional = true;
          delete media.schema[OPTIONAL_BODY];
        }
      }
      if (optional) body.required = false;
    }
  }
  return doc;
}
