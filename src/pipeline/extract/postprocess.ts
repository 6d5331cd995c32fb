// A template's `post_processing`, applied to the extracted data before validation:
// whitespace and case of text, date and number formats, value maps, defaults for missing fields
// and dropping empty values. Settings apply to every value; `fields.<path>` overrides them for
// one field (item paths like `lines[].unit` apply to every item).
import { Type } from 'typebox';
import { isoDate, parseDate } from '../entities/dates.js';
import { isEmpty, valuesAt, setAt, genericPath } from './paths.js';
import { compileLinear } from '../../lib/linear-regex.js';

const Case = Type.Union([Type.Literal('upper'), Type.Literal('lower'), Type.Literal('title'), Type.Literal('keep')]);
const Whitespace = Type.Union([Type.Literal('collapse'), Type.Literal('trim'), Type.Literal('keep')]);
const DateFormat = Type.String({ minLength: 2, maxLength: 32, pattern: '^(?=.*(YYYY|YY|MM|M|DD|D))[YMD./\\- ]+$', description: 'Tokens YYYY, YY, MM, M, DD, D with separators . / - and space; default YYYY-MM-DD' });
const Decimals = Type.Integer({ minimum: 0, maximum: 10 });
const ValueMap = Type.Record(Type.String(), Type.Unknown());

const perField = {
  whitespace: Type.Optional(Whitespace),
  case: Type.Optional(Case),
  date_format: Type.Optional(DateFormat),
  number_decimals: Type.Optional(Decimals),
};

export const PostProcessingShape = Type.Object(
  {
    ...perField,
    defaults: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    drop_empty: Type.Optional(Type.Boolean()),
    value_maps: Type.Optional(Type.Record(Type.String(), ValueMap)),
    fields: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object({ ...perField, default: Type.Optional(Type.Unknown()), value_map: Type.Optional(ValueMap) }, { additionalProperties: false }),
      ),
    ),
  },
  { additionalProperties: false },
);

export interface FieldSettings {
  whitespace?: 'collapse' | 'trim' | 'keep';
  case?: 'upper' | 'lower' | 'title' | 'keep';
  date_format?: string;
  number_decimals?: number;
  default?: unknown;
  value_map?: Record<string, unknown>;
}

export interface PostProcessing extends Omit<FieldSettings, 'default' | 'value_map'> {
  defaults?: Record<string, unknown>;
  drop_empty?: boolean;
  value_maps?: Record<string, Record<string, unknown>>;
  fields?: Record<string, FieldSettings>;
}

export function formatDate(iso: string, format: string): string {
  const [y, m, d] = iso.split('-');
  return format.replace(/YYYY|YY|MM|M|DD|D/g, (t) =>
    t === 'YYYY' ? y! : t === 'YY' ? y!.slice(2) : t === 'MM' ? m! : t === 'M' ? String(Number(m)) : t === 'DD' ? d! : String(Number(d)),
  );
}

/**
 * A date written in `format` read back to YYYY-MM-DD ("03/05/2024" in "MM/DD/YYYY" is
 * 2024-03-05), or null when the text is not written in it.
 */
export function readFormattedDate(text: string, format: string): string | null {
  const order: string[] = [];
  const pattern = format.replace(/YYYY|YY|MM|M|DD|D|[^YMD]/g, (t) => {
    if (!/^[YMD]+$/.test(t)) return t.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    order.push(t);
    return t === 'YYYY' ? '(\\d{4})' : t.length === 2 ? '(\\d{2})' : '(\\d{1,2})';
  });
  // Adjacent one-or-two-digit tokens ("DMDM…", up to 32) split a run of digits in exponentially
  // many ways for a backtracking engine; RE2 reads any text in one pass and picks the same groups.
  const m = compileLinear(`^${pattern}$`).exec(text.trim());
  if (!m) return null;
  const part = (token: string) => {
    const i = order.findIndex((t) => t[0] === token);
    return i < 0 ? null : Number(m[i + 1]);
  };
  const short = order.includes('YY') ? part('Y')! : null;
  const y = short === null ? part('Y') : short < 70 ? 2000 + short : 1900 + short;
  const month = part('M');
  const day = part('D');
  return y === null || month === null || day === null ? null : isoDate(y, month, day);
}

/** The date format a (concrete) path's dates were written in by post-processing, if any. */
export function dateFormatFor(pp: PostProcessing | null | undefined, path: string): string | undefined {
  return settingsFor(pp ?? {}, path, true).date_format;
}

const titleCase = (s: string) => s.toLowerCase().replace(/(^|[\s\-'(])(\p{L})/gu, (_, p: string, c: string) => p + c.toUpperCase());

/** A record's own entry: a field named "constructor" must not find Object's. */
function entryOf<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Settings for one concrete path: the template-wide ones, overridden by `fields[<path>]`. */
function settingsFor(pp: PostProcessing, path: string, isDate: boolean): FieldSettings {
  const generic = genericPath(path);
  const own = entryOf(pp.fields, path) ?? entryOf(pp.fields, generic) ?? {};
  const map = own.value_map ?? entryOf(pp.value_maps, path) ?? entryOf(pp.value_maps, generic);
  return {
    whitespace: own.whitespace ?? pp.whitespace ?? 'collapse',
    case: own.case ?? pp.case ?? 'keep',
    ...(isDate || own.date_format || pp.date_format ? { date_format: own.date_format ?? pp.date_format } : {}),
    ...(own.number_decimals ?? pp.number_decimals) !== undefined ? { number_decimals: own.number_decimals ?? pp.number_decimals } : {},
    ...(map ? { value_map: map } : {}),
  };
}

export function transformValue(value: unknown, s: FieldSettings, isDate: boolean): unknown {
  let v = value;
  if (typeof v === 'string') {
    // The line-break match starts only where a run of spaces starts (else quadratic in a long run).
    if (s.whitespace === 'collapse') v = (v as string).replace(/[ \t\u00a0]+/g, ' ').replace(/(?<!\s)\s*\n\s*/g, '\n').trim();
    else if (s.whitespace === 'trim') v = (v as string).trim();
  }
  if (s.value_map && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
    const key = String(v);
    const hit = Object.entries(s.value_map).find(([from]) => from === key) ?? Object.entries(s.value_map).find(([from]) => from.toLowerCase() === key.toLowerCase());
    if (hit) v = hit[1];
  }
  if (typeof v === 'string') {
    if (s.case === 'upper') v = (v as string).toUpperCase();
    else if (s.case === 'lower') v = (v as string).toLowerCase();
    else if (s.case === 'title') v = titleCase(v as string);
    if (isDate && s.date_format) {
      const iso = /^\d{4}-\d{2}-\d{2}$/.test(v as string) ? (v as string) : parseDate(v as string);
      if (iso) v = formatDate(iso, s.date_format);
    }
  }
  if (typeof v === 'number' && s.number_decimals !== undefined) {
    const f = 10 ** s.number_decimals;
    v = Math.round(v * f) / f;
  }
  return v;
}

function dropEmpty(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(dropEmpty).filter((v) => !isEmpty(v) && !(v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0));
    return items;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const cleaned = dropEmpty(v);
      if (isEmpty(cleaned)) continue;
      if (cleaned && typeof cleaned === 'object' && !Array.isArray(cleaned) && Object.keys(cleaned).length === 0) continue;
      out[k] = cleaned;
    }
    return out;
  }
  return value;
}

function leaves(value: unknown, prefix: string, out: { path: string; value: unknown }[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => (v && typeof v === 'object' ? leaves(v, `${prefix}[${i}]`, out) : out.push({ path: `${prefix}[${i}]`, value: v })));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.push({ path: prefix, value });
}

/**
 * Applies post-processing to `data` (a new object is returned). `isDatePath` says which
 * (generic) paths hold dates. `changed` receives every concrete path whose value changed or was
 * defaulted, with its new value.
 */
export function postProcess(
  data: Record<string, unknown>,
  pp: PostProcessing | null | undefined,
  isDatePath: (genericPath: string) => boolean,
  changed: (path: string, value: unknown, defaulted: boolean) => void = () => undefined,
): Record<string, unknown> {
  const config = pp ?? {};
  let out = structuredClone(data);
  const all: { path: string; value: unknown }[] = [];
  leaves(out, '', all);
  for (const { path, value } of all) {
    const isDate = isDatePath(genericPath(path));
    const next = transformValue(value, settingsFor(config, path, isDate), isDate);
    if (next !== value) {
      setAt(out, path, next);
      changed(path, next, false);
    }
  }
  const defaults: Record<string, unknown> = { ...(config.defaults ?? {}) };
  for (const [path, s] of Object.entries(config.fields ?? {})) if (s.default !== undefined && defaults[path] === undefined) defaults[path] = s.default;
  for (const [path, value] of Object.entries(defaults)) {
    if (path.includes('[]')) {
      const [arrayPath, rest] = path.split('[]') as [string, string];
      const items = valuesAt(out, `${arrayPath}[]`);
      for (const item of items) {
        const concrete = `${item.path}${rest}`;
        if (isEmpty(valuesAt(out, concrete)[0]?.value)) {
          setAt(out, concrete, value);
          changed(concrete, value, true);
        }
      }
      continue;
    }
    if (isEmpty(valuesAt(out, path)[0]?.value)) {
      setAt(out, path, value);
      changed(path, value, true);
    }
  }
  if (config.drop_empty) out = dropEmpty(out) as Record<string, unknown>;
  return out;
}
