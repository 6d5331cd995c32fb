// What a template payload must be beyond its request schema: `json_schema` a JSON Schema Ajv
// compiles (describing an object with properties), and every validation rule well-formed for its
// kind and naming fields of that schema. Problems come back as 422 items located in the body.
import { Ajv, type ErrorObject } from 'ajv';
import { FORMAT_NAMES, addFormats } from '../../lib/formats.js';
import type { ValidationItem } from '../../lib/errors.js';
import { ajvLinearRegExp } from '../../lib/linear-regex.js';
import { MAX_FIELD_DEPTH, MAX_FIELDS, checkRule, expressionError, fieldsBeyondLimits, schemaFields } from '../../pipeline/extract/index.js';
import { PROTOTYPE_KEYS, genericPath } from '../../pipeline/extract/paths.js';

function segments(path: string): (string | number)[] {
  return path ? path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).map((s) => (/^\d+$/.test(s) ? Number(s) : s)) : [];
}

function schemaProblem(e: ErrorObject, root: (string | number)[]): ValidationItem {
  const extra = e.keyword === 'additionalProperties' ? [String((e.params as { additionalProperty: string }).additionalProperty)] : [];
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const detail = allowed ? `${e.message}: ${allowed.map((v) => JSON.stringify(v)).join(', ')}` : e.message;
  return { loc: [...root, ...segments(e.instancePath), ...extra], msg: `Not a valid JSON Schema: ${detail}`, type: 'json_schema_invalid' };
}

/**
 * The first property named `__proto__`, `constructor` or `prototype` anywhere in the schema (in
 * `$defs` too): extracted data is built from property names, and one of these would write to the
 * prototype every object shares instead of a field. Walked without recursion.
 */
function prototypeKeyProperty(schema: Record<string, unknown>, root: (string | number)[]): ValidationItem | null {
  const stack: { node: unknown; loc: (string | number)[] }[] = [{ node: schema, loc: root }];
  while (stack.length) {
    const { node, loc } = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    for (const [key, child] of Object.entries(node)) {
      const at = [...loc, Array.isArray(node) ? Number(key) : key];
      if (key === 'properties' && child && typeof child === 'object' && !Array.isArray(child)) {
        const name = Object.keys(child).find((k) => PROTOTYPE_KEYS.has(k));
        if (name !== undefined) {
          return { loc: [...at, name], msg: `'${name}' cannot name a field: __proto__, constructor and prototype are reserved in extracted data; rename the property (for example '${name.replace(/_/g, '')}_name')`, type: 'value_error', input: name };
        }
      }
      if (child && typeof child === 'object') stack.push({ node: child, loc: at });
    }
  }
  return null;
}

// What Ajv logs when it compiles a `format` it has no check for; it then checks nothing there.
const IGNORED_FORMAT = /^unknown format "([^]*)" ignored in schema at path "#([^]*)"$/;

/** An Ajv logger that collects the formats Ajv ignored and passes every other message on. */
function formatCollector(ignored: Map<string, string>) {
  return {
    log: () => {},
    warn: (...args: unknown[]) => {
      const m = IGNORED_FORMAT.exec(String(args[0]));
      if (m) ignored.set(m[2]!, m[1]!);
      else console.warn(...args);
    },
    error: (...args: unknown[]) => console.error(...args),
  };
}

/**
 * A `format` no check exists for is refused at its place in the schema: a template that asks for
 * "po-number" expects it checked, and Ajv would only skip it. JSON Schema 2020-12 has an
 * implementation fail on unknown formats wherever formats assert, as they do here.
 */
function unknownFormatProblems(ignored: Map<string, string>, root: (string | number)[]): ValidationItem[] {
  return [...ignored].map(([schemaPath, name]) => ({
    loc: [...root, ...segments(schemaPath.split('/').map((s) => decodeURIComponent(s)).join('/')), 'format'],
    msg: `Unknown format '${name}': the formats checked are ${[...FORMAT_NAMES].join(', ')}; describe a value of your own with "pattern" instead`,
    type: 'json_schema_invalid',
    input: name,
  }));
}

/** Problems with `json_schema` (loc under `root`, e.g. ['body', 'json_schema']). */
export function checkJsonSchema(schema: Record<string, unknown>, root: (string | number)[]): ValidationItem[] {
  // A fresh Ajv per check: a schema's own $id must not collide with one compiled earlier. Its
  // patterns compile in the linear-time engine extraction runs them in, so one RE2 cannot run
  // (a backreference, a lookaround) is refused here rather than skipped at every extraction.
  const ignoredFormats = new Map<string, string>();
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true, validateSchema: true, code: { regExp: ajvLinearRegExp }, logger: formatCollector(ignoredFormats) }));
  if (!ajv.validateSchema(schema)) {
    const errors = (ajv.errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
    return (errors.length ? errors : ajv.errors ?? []).slice(0, 20).map((e) => schemaProblem(e, root));
  }
  try {
    ajv.compile(schema);
  } catch (err) {
    return [{ loc: root, msg: `Not a valid JSON Schema: ${(err as Error).message}`, type: 'json_schema_invalid' }];
  }
  if (ignoredFormats.size) return unknownFormatProblems(ignoredFormats, root);
  const type = schema.type;
  if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) {
    return [{ loc: [...root, 'type'], msg: 'json_schema describes the extracted data, which is an object: use "type": "object" with "properties"', type: 'value_error', input: type }];
  }
  const reserved = prototypeKeyProperty(schema, root);
  if (reserved) return [reserved];
  if (!schema.properties || typeof schema.properties !== 'object' || Object.keys(schema.properties).length === 0) {
    return [{ loc: [...root, 'properties'], msg: 'json_schema needs "properties": the fields to extract', type: 'missing' }];
  }
  if (fieldsBeyondLimits(schema)) {
    return [{
      loc: root,
      msg: `Not a valid template schema: its fields go deeper than ${MAX_FIELD_DEPTH} levels or number more than ${MAX_FIELDS.toLocaleString('en')} (a $ref that points back into the schema it is in has no end); extraction needs a finite set of fields`,
      type: 'json_schema_invalid',
    }];
  }
  return [];
}

/** The paths rules may name: every field, item fields as `lines[].qty`, lists as `tags` and `tags[]`. */
export function knownPaths(schema: Record<string, unknown>): Set<string> {
  const paths = new Set<string>();
  for (const f of schemaFields(schema)) {
    paths.add(f.path);
    const parts = f.path.split('.');
    for (let i = 1; i < parts.length; i++) paths.add(parts.slice(0, i).join('.'));
    if (f.kind === 'array_of_scalars') paths.add(`${f.path}[]`);
    for (const c of f.columns ?? []) paths.add(`${f.path}[].${c.key}`);
  }
  return paths;
}

/** Problems with the validation rules (loc under `root`, e.g. ['body', 'validation_rules']). */
export function checkRules(rules: unknown[], schema: Record<string, unknown>, root: (string | number)[]): ValidationItem[] {
  const paths = knownPaths(schema);
  const known = (p: string) => paths.has(genericPath(p));
  const items: ValidationItem[] = [];
  rules.forEach((rule, i) => {
    for (const p of checkRule(rule, known, expressionError)) {
      const loc = [...root, i, ...p.loc];
      let input: unknown = rule;
      for (const k of p.loc) input = input && typeof input === 'object' ? (input as Record<string | number, unknown>)[k] : undefined;
      items.push({ loc, msg: p.msg, type: p.type, input: input === undefined ? null : input });
    }
  });
  return items;
}

/**
 * Problems with `post_processing` (loc under `root`): the keys of `defaults`, `fields` and
 * `value_maps` are field paths, and each must name a field of the schema, as rules do.
 */
export function checkPostProcessing(pp: Record<string, unknown> | null | undefined, schema: Record<string, unknown>, root: (string | number)[]): ValidationItem[] {
  if (!pp) return [];
  const paths = knownPaths(schema);
  const items: ValidationItem[] = [];
  for (const section of ['defaults', 'fields', 'value_maps'] as const) {
    const entries = pp[section];
    if (!entries || typeof entries !== 'object') continue;
    for (const path of Object.keys(entries)) {
      if (paths.has(genericPath(path))) continue;
      items.push({ loc: [...root, section, path], msg: `'${path}' is not a field of json_schema; post_processing names fields as rules do (vendor.name, lines[].qty)`, type: 'value_error', input: path });
    }
  }
  return items;
}

/** Every semantic problem of a template payload (after its request schema passed). */
export function checkTemplate(
  payload: { json_schema: Record<string, unknown>; validation_rules?: unknown[]; post_processing?: Record<string, unknown> | null },
  root: (string | number)[],
): ValidationItem[] {
  const schemaItems = checkJsonSchema(payload.json_schema, [...root, 'json_schema']);
  if (schemaItems.length) return schemaItems;
  return [
    ...checkRules(payload.validation_rules ?? [], payload.json_schema, [...root, 'validation_rules']),
    ...checkPostProcessing(payload.post_processing, payload.json_schema, [...root, 'post_processing']),
  ];
}
