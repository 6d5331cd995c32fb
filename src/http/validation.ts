// Request validation for Fastify routes: body, query, path and headers checked against their
// schemas (lib/json-schema.ts), failures answered in the FastAPI/pydantic shape.
import type { FastifySchemaCompiler } from 'fastify';
import { RequestValidationError } from '../lib/errors.js';
import { bodyAjv, textAjv, toValidationItems } from '../lib/json-schema.js';

export { compileBodyValidator, toValidationItems } from '../lib/json-schema.js';

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate = ajv.compile(schema as object);
  return (data: unknown) => {
    if (validate(data)) return { value: data };
    return { error: new RequestValidationError(toValidationItems(validate.errors ?? [], data, httpPart ?? 'body')) };
  };
};
