// JSON Schema validation with Ajv, reporting failures in the FastAPI/pydantic shape that
// decisions.md requires: one item per problem, `loc` rooted at body/query/path/header. Shared by
// the HTTP layer (every route's schemas) and the domain (JSON inside a field, stored bodies).
import { Ajv, type ErrorObject, type Options } from 'ajv';
import { addFormats } from './formats.js';
import type { ValidationItem } from './errors.js';

const common: Options = { allErrors: true, strict: false, useDefaults: true, removeAdditional: false };
// JSON bodies keep their types: a null stays null (pydantic would not turn it into "").
export const bodyAjv = addFormats(new Ajv({ ...common, coerceTypes: false }));
// Query strings, path params and headers are text on the wire: coerce them like FastAPI does.
export const textAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));

const LOC_ROOT: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  integer: ['int_type', 'Input should be a valid integer'],
  number: ['float_type', 'Input should be a valid number'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
  null: ['none_required', 'Input should be None'],
};

function pathSegments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function valueAt(data: unknown, segments: (string | number)[]): unknown {
  let current: unknown = data;
  for (const s of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[s];
  }
  return current;
}

function quoteList(values: unknown[]): string {
  const quoted = values.filter((v) => v !== null).map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function describe(error: ErrorObject, input: unknown): Omit<ValidationItem, 'loc' | 'input'> {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const first = String(p.type).split(',')[0] ?? 'string';
      if (input === null && !String(p.type).includes('null')) {
        const [type, msg] = TYPE_NAMES[first] ?? ['type_error', `Input should be of type ${first}`];
        return { type, msg };
      }
      const [type, msg] = TYPE_NAMES[first] ?? ['type_error', `Input should be of type ${p.type}`];
      return { type, msg };
    }
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`, ctx: { min_length: p.limit } };
    case 'maxLength':
      return { type: 'string_too_long', msg: `String should have at most ${p.limit} character${p.limit === 1 ? '' : 's'}`, ctx: { max_length: p.limit } };
    case 'pattern':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${p.pattern}'`, ctx: { pattern: p.pattern } };
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${p.limit}`, ctx: { ge: p.limit } };
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${p.limit}`, ctx: { le: p.limit } };
    case 'exclusiveMinimum':
      return { type: 'greater_than', msg: `Input should be greater than ${p.limit}`, ctx: { gt: p.limit } };
    case 'exclusiveMaximum':
      return { type: 'less_than', msg: `Input should be less than ${p.limit}`, ctx: { lt: p.limit } };
    case 'enum': {
      const expected = quoteList(p.allowedValues as unknown[]);
      return { type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'const':
      return { type: 'literal_error', msg: `Input should be ${quoteList([p.allowedValue])}`, ctx: { expected: quoteList([p.allowedValue]) } };
    case 'format':
      if (p.format === 'email') return { type: 'value_error', msg: 'value is not a valid email address', ctx: { reason: 'not an email address' } };
      if (p.format === 'date-time') return { type: 'datetime_parsing', msg: 'Input should be a valid datetime', ctx: { format: 'RFC 3339' } };
      return { type: 'value_error', msg: `Input should be a valid ${p.format}`, ctx: { format: p.format } };
    case 'additionalProperties':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    case 'minItems':
      return { type: 'too_short', msg: `List should have at least ${p.limit} item${p.limit === 1 ? '' : 's'} after validation`, ctx: { min_length: p.limit } };
    case 'maxItems':
      return { type: 'too_long', msg: `List should have at most ${p.limit} item${p.limit === 1 ? '' : 's'} after validation`, ctx: { max_length: p.limit } };
    case 'minProperties':
      return { type: 'too_short', msg: `Object should have at least ${p.limit} field${p.limit === 1 ? '' : 's'}`, ctx: { min_length: p.limit } };
    default:
      return { type: 'value_error', msg: error.message ?? 'Input is invalid' };
  }
}

export function toValidationItems(errors: ErrorObject[], data: unknown, part: string): ValidationItem[] {
  const root = LOC_ROOT[part] ?? part;
  const items: ValidationItem[] = [];
  const seen = new Set<string>();
  // A failed anyOf also reports each branch; keep the branch errors only when there is no better signal.
  const meaningful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  // A union of literals fails once per literal: one item names them all, as pydantic's does.
  const literals = new Map<string, unknown[]>();
  for (const e of meaningful) if (e.keyword === 'const') literals.set(e.instancePath, [...(literals.get(e.instancePath) ?? []), (e.params as { allowedValue: unknown }).allowedValue]);
  for (const error of meaningful.length ? meaningful : errors) {
    if (error.keyword === 'const' && (literals.get(error.instancePath)?.length ?? 0) > 1) {
      const loc = [root, ...pathSegments(error.instancePath)];
      const key = loc.join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      const expected = quoteList(literals.get(error.instancePath)!);
      const input = valueAt(data, pathSegments(error.instancePath));
      items.push({ loc, type: 'literal_error', msg: `Input should be ${expected}`, input: input === undefined ? null : input, ctx: { expected } });
      continue;
    }
    const segments = pathSegments(error.instancePath);
    if (error.keyword === 'required') {
      const loc = [root, ...segments, String((error.params as { missingProperty: string }).missingProperty)];
      const key = loc.join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({ loc, msg: 'Field required', type: 'missing', input: valueAt(data, segments) ?? null });
      continue;
    }
    const extra = error.keyword === 'additionalProperties' ? [String((error.params as { additionalProperty: string }).additionalProperty)] : [];
    const loc = [root, ...segments, ...extra];
    const input = valueAt(data, [...segments, ...extra]);
    // Fastify hands a request without a body to validation as null or undefined.
    if (part === 'body' && segments.length === 0 && (data === undefined || data === null)) {
      items.push({ loc: ['body'], msg: 'Field required', type: 'missing', input: null });
      break;
    }
    const key = loc.join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ loc, ...describe(error, input), input: input === undefined ? null : input });
  }
  return items;
}

/** Compiles a schema for validation outside a route (e.g. a JSON field inside a multipart form). */
export function compileBodyValidator(schema: object) {
  return bodyAjv.compile(schema);
}
