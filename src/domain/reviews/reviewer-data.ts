// What a reviewer's override may write into extraction.data: the template's own fields, each a
// value of its type. The reviewer's word is final on rules (they run again and may still fail), but
// a key the template does not have, text in a number field, or a value its schema forbids (an
// email that is none, a number above the schema's maximum) is a typo the job must not keep.
import type { ValidationItem } from '../../lib/errors.js';
import type { FieldSpec } from '../../pipeline/extract/index.js';
import { type ValueBreach, breachWords, valueBreaches } from '../../pipeline/extract/schema-check.js';

type Loc = (string | number)[];

const TYPE_PROBLEMS: Record<FieldSpec['type'], { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  date: { type: 'string_type', msg: 'Input should be a valid string (a date)' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  integer: { type: 'int_type', msg: 'Input should be a valid integer' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fitsScalar(spec: FieldSpec, value: unknown): boolean {
  switch (spec.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return typeof value === 'string';
  }
}

/** A real day of the calendar written YYYY-MM-DD (2026-02-30 is none). */
function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function checkScalar(spec: FieldSpec, value: unknown, loc: Loc, out: ValidationItem[]): void {
  if (value === null) return;
  if (!fitsScalar(spec, value)) {
    out.push({ loc, ...TYPE_PROBLEMS[spec.type], input: value });
  } else if (spec.type === 'date' && !isCalendarDate(value as string)) {
    // Extraction writes dates as YYYY-MM-DD; a reviewer's date is held to the same form.
    out.push({ loc, type: 'date_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD', input: value });
  } else if (spec.enum && !spec.enum.includes(value)) {
    const expected = spec.enum.map((v) => JSON.stringify(v)).join(', ');
    out.push({ loc, type: 'enum', msg: `Input should be one of ${expected}`, input: value, ctx: { expected } });
  }
}

/** The values of `patch` checked against `fields` (one object level: the template's or an item's). */
function checkObject(fields: FieldSpec[], patch: Record<string, unknown>, loc: Loc, prefix: string, out: ValidationItem[]): void {
  for (const [key, value] of Object.entries(patch)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const here = [...loc, key];
    if (value === null) {
      if (!fields.some((f) => f.path === path || f.path.startsWith(`${path}.`))) out.push({ loc: here, type: 'extra_forbidden', msg: 'Extra inputs are not permitted: the template has no such field', input: value });
      continue;
    }
    const spec = fields.find((f) => f.path === path);
    if (!spec) {
      // A nested object of the template ("vendor" of "vendor.name") is walked; anything else is no field.
      if (isPlainObject(value) && fields.some((f) => f.path.startsWith(`${path}.`))) checkObject(fields, value, loc, path, out);
      else out.push({ loc: here, type: 'extra_forbidden', msg: 'Extra inputs are not permitted: the template has no such field', input: value });
      continue;
    }
    if (spec.kind === 'scalar') {
      checkScalar(spec, value, here, out);
      continue;
    }
    if (!Array.isArray(value)) {
      out.push({ loc: here, type: 'list_type', msg: 'Input should be a valid list (an array is replaced whole: send every item)', input: value });
      continue;
    }
    value.forEach((item, i) => {
      if (spec.kind === 'array_of_scalars') checkScalar(spec, item, [...here, i], out);
      else if (isPlainObject(item)) checkObject(spec.columns ?? [], item, [...here, i], '', out);
      else if (item !== null) out.push({ loc: [...here, i], type: 'dict_type', msg: 'Input should be a valid dictionary (one row)', input: item });
    });
  }
}

/** A value constraint of the schema broken, in pydantic's words where pydantic has them. */
function breachProblem(b: ValueBreach): Pick<ValidationItem, 'type' | 'msg' | 'ctx'> {
  const limit = b.params.limit;
  switch (b.keyword) {
    case 'pattern':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(b.params.pattern)}'`, ctx: { pattern: b.params.pattern } };
    case 'format':
      return { type: 'format', msg: `Input should be a valid ${String(b.params.format)}`, ctx: { format: b.params.format } };
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${limit}`, ctx: { ge: limit } };
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${limit}`, ctx: { le: limit } };
    case 'exclusiveMinimum':
      return { type: 'greater_than', msg: `Input should be greater than ${limit}`, ctx: { gt: limit } };
    case 'exclusiveMaximum':
      return { type: 'less_than', msg: `Input should be less than ${limit}`, ctx: { lt: limit } };
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${limit} character${limit === 1 ? '' : 's'}`, ctx: { min_length: limit } };
    case 'maxLength':
      return { type: 'string_too_long', msg: `String should have at most ${limit} character${limit === 1 ? '' : 's'}`, ctx: { max_length: limit } };
    case 'multipleOf':
      return { type: 'multiple_of', msg: `Input should be a multiple of ${String(b.params.multipleOf)}`, ctx: { multiple_of: b.params.multipleOf } };
    case 'enum': {
      const expected = (b.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return { type: 'enum', msg: `Input should be one of ${expected}`, ctx: { expected } };
    }
    case 'const':
      return { type: 'literal_error', msg: `Input should be ${JSON.stringify(b.params.allowedValue)}`, ctx: { expected: JSON.stringify(b.params.allowedValue) } };
    default:
      return { type: 'value_error', msg: `Value error, the template's schema says it ${breachWords(b)}` };
  }
}

/**
 * What in a review's merge patch does not fit the template, as 422 items under body.patch: the
 * fields' names and types first, then the value constraints of its JSON schema (one item per
 * place: a value of the wrong type is not also out of range).
 */
export function patchProblems(fields: FieldSpec[], patch: Record<string, unknown>, schema: Record<string, unknown> | null = null): ValidationItem[] {
  const out: ValidationItem[] = [];
  checkObject(fields, patch, ['body', 'patch'], '', out);
  if (!schema) return out;
  const placed = new Set(out.map((item) => JSON.stringify(item.loc)));
  // The patch alone is checked: the values it sets are the reviewer's; what it leaves is the extraction's.
  for (const b of valueBreaches(schema, patch)) {
    const loc = ['body', 'patch', ...b.segments];
    if (placed.has(JSON.stringify(loc))) continue;
    placed.add(JSON.stringify(loc));
    out.push({ loc, ...breachProblem(b), input: b.value });
  }
  return out;
}
