// A template's JSON schema as the check of its values: compiled once per schema (ajv, every format
// of lib/formats.ts, the tenant's patterns in the linear-time engine), its errors given as field
// paths. Model answers (models/extraction/answer.ts), the embedded extractor's values (index.ts)
// and a reviewer's override (domain/reviews/reviewer-data.ts) are all held to it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { addFormats } from '../../lib/formats.js';
import { ajvLinearRegExp } from '../../lib/linear-regex.js';

// The template's schema is the tenant's: its patterns run in the linear-time engine.
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, code: { regExp: ajvLinearRegExp } }));

const byObject = new WeakMap<object, ValidateFunction | null>();
// A job reads its template from the database, so the same schema arrives as a new object every
// time: validators are also kept by the schema's JSON text, for the schemas most recently used.
const byJson = new Map<string, ValidateFunction | null>();
const BY_JSON_SIZE = 64;

function compile(schema: Record<string, unknown>): ValidateFunction | null {
  try {
    return ajv.compile(schema);
  } catch {
    return null; // a schema ajv cannot compile was accepted as a template: the field walk is the check
  } finally {
    // ajv keeps every schema it compiled (by object and by $id): the validator is all that is needed.
    ajv.removeSchema(schema);
  }
}

/** The template schema's compiled validator, or null when ajv cannot compile it. Cached per object and per JSON text. */
export function schemaValidator(schema: Record<string, unknown>): ValidateFunction | null {
  const cached = byObject.get(schema);
  if (cached !== undefined) return cached;
  let json: string | null;
  try {
    json = JSON.stringify(schema);
  } catch {
    json = null; // not JSON (a cycle): cached per object only
  }
  let validate = json === null ? undefined : byJson.get(json);
  if (validate !== undefined) byJson.delete(json!); // re-inserted below as the most recently used
  else validate = compile(schema);
  if (json !== null) {
    byJson.set(json, validate);
    if (byJson.size > BY_JSON_SIZE) byJson.delete(byJson.keys().next().value!);
  }
  byObject.set(schema, validate);
  return validate;
}

/** ajv's errors for `data` against the template's schema (none when the schema cannot be compiled). */
export function schemaErrors(schema: Record<string, unknown>, data: unknown): ErrorObject[] {
  const validate = schemaValidator(schema);
  if (!validate || validate(data)) return [];
  return [...(validate.errors ?? [])];
}

/** An error's place in the data as path segments: "/lines/0/qty" → ["lines", 0, "qty"]. */
export function errorSegments(error: ErrorObject): (string | number)[] {
  if (!error.instancePath) return [];
  return error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** A field path as the extraction writes it: ["lines", 0, "qty"] → "lines[0].qty". */
export function fieldPathOf(segments: (string | number)[]): string {
  return segments.reduce<string>((path, part) => (typeof part === 'number' ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** The schema keywords that constrain a value (not its type or presence), by the rule kind each is the same check as. */
export const VALUE_KEYWORDS: Readonly<Record<string, string>> = {
  pattern: 'pattern',
  format: 'format',
  minimum: 'range',
  maximum: 'range',
  exclusiveMinimum: 'range',
  exclusiveMaximum: 'range',
  minLength: 'length',
  maxLength: 'length',
  enum: 'enum',
  const: 'enum',
  multipleOf: 'multiple_of',
};

/** A value that breaks one of its field's value constraints in the template's schema. */
export interface ValueBreach {
  /** Where the value is: ["lines", 0, "qty"]. */
  segments: (string | number)[];
  /** The same as a field path: "lines[0].qty". */
  path: string;
  /** The schema keyword it breaks ("maximum", "format", …) and ajv's params for it. */
  keyword: string;
  params: Record<string, unknown>;
  value: unknown;
  /** ajv's words: 'must be <= 100', 'must match format "email"'. */
  message: string;
}

function valueAt(data: unknown, segments: (string | number)[]): unknown {
  let target = data;
  for (const part of segments) {
    if (target === null || typeof target !== 'object') return undefined;
    target = (target as Record<string | number, unknown>)[part];
  }
  return target;
}

/**
 * Quire writes dates as days (YYYY-MM-DD): a `date-time` field holding a day, as the embedded
 * extractor reads one and a reviewer writes one, is not held to have a time.
 */
function isDayOfDateTime(error: ErrorObject, value: unknown): boolean {
  return error.keyword === 'format' && error.params.format === 'date-time' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/**
 * Every value of `data` that breaks a value constraint of the template's schema (VALUE_KEYWORDS),
 * once per value and keyword. A missing value or the wrong type is not one: `required` and the
 * field's type are checked where values are read. Null values (nothing found, or a reviewer's
 * deletion) break nothing.
 */
export function valueBreaches(schema: Record<string, unknown>, data: unknown): ValueBreach[] {
  const out: ValueBreach[] = [];
  const seen = new Set<string>();
  for (const error of schemaErrors(schema, data)) {
    if (!(error.keyword in VALUE_KEYWORDS)) continue;
    const segments = errorSegments(error);
    const value = valueAt(data, segments);
    if (value === null || value === undefined || isDayOfDateTime(error, value)) continue;
    const key = `${error.instancePath} ${error.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ segments, path: fieldPathOf(segments), keyword: error.keyword, params: error.params as Record<string, unknown>, value, message: error.message ?? 'is not valid' });
  }
  return out;
}

/** The rule kind a breach reads as in `validation` and review reasons (VALUE_KEYWORDS). */
export const breachKind = (breach: ValueBreach) => VALUE_KEYWORDS[breach.keyword]!;

/** A breach in words: "must be <= 100", "must be equal to one of the allowed values: \"EUR\", \"USD\"". */
export function breachWords(breach: ValueBreach): string {
  if (breach.keyword === 'enum') return `${breach.message}: ${(breach.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (breach.keyword === 'const') return `must be ${JSON.stringify(breach.params.allowedValue)}`;
  return breach.message;
}
