// A model's answer read against the template: every field taken from it by the template's own
// field paths, coerced to the field's type (amounts printed as "1.234,50 €", dates as written),
// then the whole checked against the template's JSON schema. What fails is reported back to the
// model once (extract.ts); what still fails is dropped, never guessed.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { type DateOrder, parseDate } from '../../pipeline/entities/dates.js';
import { parseAmount } from '../../pipeline/entities/money.js';
import { parseNumber } from '../../pipeline/entities/numbers.js';
import type { FieldSpec } from '../../pipeline/extract/schema-fields.js';
import { setFieldPath } from '../../pipeline/extract/paths.js';
import { errorSegments, fieldPathOf, schemaErrors } from '../../pipeline/extract/schema-check.js';

const isDateTime = (fullFormats['date-time'] as { validate: (text: string) => boolean }).validate;

/** One value of the answer by its field path: "vendor.name", "tags[1]", "lines[0].qty". */
export type FlatAnswer = Map<string, unknown>;

export interface ReadAnswer {
  /** Values by field path; absent or null values are left out. */
  values: FlatAnswer;
  /** Items per array-of-objects field (so empty arrays are known). */
  itemCounts: Map<string, number>;
  /** What did not fit the template, in words the model can act on. */
  problems: string[];
  /** Paths the model gave a value for that did not fit (dropped from `values`). */
  rejected: Set<string>;
}

const TRUE = /^(?:yes|y|true|ja|oui|si|x|1)$/i;
const FALSE = /^(?:no|n|false|nein|non|0)$/i;

function get(obj: unknown, path: string): unknown {
  let target = obj;
  for (const part of path.split('.')) {
    if (!target || typeof target !== 'object') return undefined;
    target = (target as Record<string, unknown>)[part];
  }
  return target;
}

/** The document's day/month order (proven, else guessed) for a date the model did not give as YYYY-MM-DD. */
export interface AnswerDates {
  dateOrder: DateOrder | null;
  dateOrderGuess: DateOrder | null;
}

/** A value as the field's type, or an error message; null/empty stays null. */
export function coerceValue(spec: Pick<FieldSpec, 'type' | 'format' | 'enum'>, raw: unknown, dates: AnswerDates | null = null): { value: unknown } | { error: string } {
  if (raw === null || raw === undefined || (typeof raw === 'string' && !raw.trim())) return { value: null };
  switch (spec.type) {
    case 'number':
    case 'integer': {
      let n: number | null = typeof raw === 'number' ? raw : null;
      if (typeof raw === 'string') n = parseAmount(raw)?.amount ?? parseNumber(raw);
      if (n === null || !Number.isFinite(n)) return { error: `expected a number, got ${JSON.stringify(raw)}` };
      if (spec.type === 'integer' && !Number.isInteger(n)) return { error: `expected an integer, got ${JSON.stringify(raw)}` };
      return { value: n };
    }
    case 'date': {
      // A date-time field keeps the time read with the date: cut to the date, its format would refuse it.
      if (spec.format === 'date-time' && typeof raw === 'string' && isDateTime(raw.trim())) return { value: raw.trim() };
      const iso = typeof raw === 'string' ? (/^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) ? raw.trim() : parseDate(raw, dates?.dateOrder ?? null, dates?.dateOrderGuess ?? null)) : null;
      return iso ? { value: iso } : { error: `expected a date as YYYY-MM-DD, got ${JSON.stringify(raw)}` };
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { value: raw };
      if (TRUE.test(String(raw).trim())) return { value: true };
      if (FALSE.test(String(raw).trim())) return { value: false };
      return { error: `expected true or false, got ${JSON.stringify(raw)}` };
    }
    default: {
      if (typeof raw === 'object') return { error: `expected text, got ${Array.isArray(raw) ? 'a list' : 'an object'}` };
      const text = String(raw).trim();
      if (spec.enum?.length) {
        const hit = spec.enum.find((e) => String(e).toLowerCase() === text.toLowerCase());
        return hit !== undefined ? { value: hit } : { error: `expected one of ${spec.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(raw)}` };
      }
      return { value: text };
    }
  }
}

/** Reads the answer's `values` (or the answer itself) by the template's fields. */
export function readAnswer(fields: FieldSpec[], answer: unknown, dates: AnswerDates | null = null): ReadAnswer {
  const values: FlatAnswer = new Map();
  const itemCounts = new Map<string, number>();
  const problems: string[] = [];
  const rejected = new Set<string>();
  const take = (path: string, spec: Pick<FieldSpec, 'type' | 'format' | 'enum'>, raw: unknown) => {
    const out = coerceValue(spec, raw, dates);
    if ('error' in out) {
      problems.push(`${path}: ${out.error}`);
      rejected.add(path);
    } else if (out.value !== null) values.set(path, out.value);
  };
  for (const field of fields) {
    const raw = get(answer, field.path);
    if (field.kind === 'scalar') take(field.path, field, raw);
    else if (raw === undefined || raw === null) itemCounts.set(field.path, 0);
    else if (!Array.isArray(raw)) {
      problems.push(`${field.path}: expected a list`);
      rejected.add(field.path);
    }
    else if (field.kind === 'array_of_scalars') raw.forEach((item, i) => take(`${field.path}[${i}]`, field, item));
    else {
      itemCounts.set(field.path, raw.length);
      raw.forEach((item, i) => {
        for (const column of field.columns ?? []) take(`${field.path}[${i}].${column.key}`, column, (item as Record<string, unknown> | null)?.[column.key]);
      });
    }
  }
  return { values, itemCounts, problems, rejected };
}

/** The template's data object rebuilt from flat values (what the job result's `extraction.data` holds). */
export function buildData(fields: FieldSpec[], read: Pick<ReadAnswer, 'values' | 'itemCounts'>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of fields) {
    let value: unknown;
    if (field.kind === 'scalar') {
      if (!read.values.has(field.path)) continue;
      value = read.values.get(field.path);
    } else if (field.kind === 'array_of_scalars') {
      value = [...read.values.entries()].filter(([p]) => p.startsWith(`${field.path}[`) && /^\[\d+\]$/.test(p.slice(field.path.length))).map(([, v]) => v);
    } else {
      const n = read.itemCounts.get(field.path) ?? 0;
      value = Array.from({ length: n }, (_, i) => Object.fromEntries((field.columns ?? []).filter((c) => read.values.has(`${field.path}[${i}].${c.key}`)).map((c) => [c.key, read.values.get(`${field.path}[${i}].${c.key}`)])));
    }
    setPath(data, field.path, value);
  }
  return data;
}

/** A field's value at its dotted path, written as own properties (pipeline/extract/paths.ts). */
export const setPath = setFieldPath;

/**
 * Schema errors of the rebuilt data, as "path: message" lines. `partial`: the data of some pages
 * only, where a required value may well be printed on another page (not asked for again).
 */
export function schemaProblems(schema: Record<string, unknown>, data: Record<string, unknown>, partial = false): string[] {
  return schemaErrors(schema, data)
    .filter((e) => !(partial && e.keyword === 'required'))
    .map((e) => `${e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(root)'}: ${e.message ?? 'invalid'}`);
}

/** The flat value paths ("lines[0].amount", "tags[1]") whose values the template's schema refuses in the rebuilt data. */
export function schemaRefused(schema: Record<string, unknown>, data: Record<string, unknown>, values: FlatAnswer): string[] {
  const paths = schemaErrors(schema, data).map((e) => fieldPathOf(errorSegments(e)));
  return [...new Set(paths)].filter((p) => values.has(p));
}
