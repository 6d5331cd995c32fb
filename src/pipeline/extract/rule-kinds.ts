// The validation rule kinds of decisions.md ("Templates, drafts, forge"), each with the schema of
// its params and an example. A rule: {kind, field | fields, params, severity: error|warn, message,
// name?, on_fail?}. `on_fail: "reject"` marks a document that breaks the rule as not acceptable
// (job status `rejected`); by default a broken error-severity rule asks for review.
import { linearRegexProblem } from '../../lib/linear-regex.js';
import { Ajv, type ErrorObject } from 'ajv';
import { type TSchema, Type } from 'typebox';

export type Severity = 'error' | 'warn';

export const RULE_KIND_NAMES = ['required', 'pattern', 'enum', 'range', 'length', 'date', 'date_order', 'sum', 'arithmetic', 'checksum', 'equals', 'required_if'] as const;
export type RuleKind = (typeof RULE_KIND_NAMES)[number];

export interface Rule {
  kind: RuleKind;
  field?: string;
  fields?: string[];
  params?: Record<string, unknown>;
  severity?: Severity;
  message?: string;
  /** Names the rule in review reasons (`validation:<name>`); default `<kind>:<fields>`. */
  name?: string;
  on_fail?: 'review' | 'reject';
}

const Num = Type.Number();
const Tolerance = Type.Optional(Type.Number({ minimum: 0, description: 'Largest difference still counted as equal (default 0.01)' }));
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

interface KindSpec {
  description: string;
  /** `field`: one field; `fields`: two or more; `either`: one field or several. */
  target: 'field' | 'fields' | 'either' | 'none';
  params: TSchema;
  example: Rule;
}

const strict = { additionalProperties: false } as const;

export const RULE_KINDS: Record<RuleKind, KindSpec> = {
  required: {
    description: 'The field has a value (not null, not an empty string or list). On an item path (`lines[].qty`) every item needs one.',
    target: 'either',
    params: Type.Object({}, strict),
    example: { kind: 'required', field: 'invoice_number', severity: 'error', message: 'The invoice number is missing.' },
  },
  pattern: {
    description: 'A text value matches a regular expression (JavaScript syntax; anchor it with ^ and $ to match the whole value).',
    target: 'field',
    params: Type.Object({ pattern: Type.String({ minLength: 1, maxLength: 1000 }), flags: Type.Optional(Type.String({ pattern: '^[imsu]*$' })) }, strict),
    example: { kind: 'pattern', field: 'invoice_number', params: { pattern: '^[A-Z0-9/-]{4,20}$' }, severity: 'warn' },
  },
  enum: {
    description: 'The value is one of a list.',
    target: 'field',
    params: Type.Object({ values: Type.Array(Scalar, { minItems: 1 }), case_insensitive: Type.Optional(Type.Boolean()) }, strict),
    example: { kind: 'enum', field: 'currency', params: { values: ['EUR', 'USD', 'GBP'] }, severity: 'error' },
  },
  range: {
    description: 'A number lies between min and max (inclusive; either may be left out).',
    target: 'field',
    params: Type.Object({ min: Type.Optional(Num), max: Type.Optional(Num) }, { ...strict, minProperties: 1 }),
    example: { kind: 'range', field: 'total', params: { min: 0, max: 100000 }, severity: 'warn' },
  },
  length: {
    description: 'The length of a text, or the number of items of a list, lies between min and max.',
    target: 'field',
    params: Type.Object({ min: Type.Optional(Type.Integer({ minimum: 0 })), max: Type.Optional(Type.Integer({ minimum: 0 })) }, { ...strict, minProperties: 1 }),
    example: { kind: 'length', field: 'lines', params: { min: 1 }, severity: 'error', message: 'The invoice has no line items.' },
  },
  date: {
    description: 'The value is a real calendar date (YYYY-MM-DD), optionally within min/max and not in the future.',
    target: 'field',
    params: Type.Object({ min: Type.Optional(IsoDate), max: Type.Optional(IsoDate), not_in_future: Type.Optional(Type.Boolean()) }, strict),
    example: { kind: 'date', field: 'date', params: { min: '2000-01-01', not_in_future: true }, severity: 'error' },
  },
  date_order: {
    description: 'Dates come in the order given (each on or after the one before; `strict`: after).',
    target: 'fields',
    params: Type.Object({ strict: Type.Optional(Type.Boolean()) }, strict),
    example: { kind: 'date_order', fields: ['date', 'due_date'], severity: 'warn', message: 'The due date is before the invoice date.' },
  },
  sum: {
    description: 'The items add up to the total: the sum of `params.items` (an item path such as `lines[].amount`) equals the field, within the tolerance.',
    target: 'field',
    params: Type.Object({ items: Type.String({ minLength: 1, maxLength: 256 }), tolerance: Tolerance }, strict),
    example: { kind: 'sum', field: 'subtotal', params: { items: 'lines[].amount', tolerance: 0.01 }, severity: 'error' },
  },
  arithmetic: {
    description: 'An equation between fields holds within the tolerance: fields, numbers, + - * / and parentheses on each side of =, <, <=, > or >=.',
    target: 'none',
    params: Type.Object({ expression: Type.String({ minLength: 3, maxLength: 500 }), tolerance: Tolerance }, strict),
    example: { kind: 'arithmetic', params: { expression: 'subtotal + tax = total', tolerance: 0.02 }, severity: 'error' },
  },
  checksum: {
    description: 'The value passes a check-digit algorithm: `luhn` (card numbers), `iban` (ISO 13616 mod 97) or `vat` (EU VAT format and national check digits).',
    target: 'field',
    params: Type.Object({ algorithm: Type.Union([Type.Literal('luhn'), Type.Literal('iban'), Type.Literal('vat')]) }, strict),
    example: { kind: 'checksum', field: 'iban', params: { algorithm: 'iban' }, severity: 'error' },
  },
  equals: {
    description: 'Several fields hold the same value (`fields`), or one field holds `params.value`.',
    target: 'either',
    params: Type.Object({ value: Type.Optional(Scalar), case_insensitive: Type.Optional(Type.Boolean()), tolerance: Tolerance }, strict),
    example: { kind: 'equals', fields: ['total', 'amount_paid'], severity: 'warn' },
  },
  required_if: {
    description: 'The field must have a value when another field (`params.when`) has one, or equals `params.equals`, or is one of `params.in`.',
    target: 'field',
    params: Type.Object({ when: Type.String({ minLength: 1, maxLength: 256 }), equals: Type.Optional(Scalar), in: Type.Optional(Type.Array(Scalar, { minItems: 1 })) }, strict),
    example: { kind: 'required_if', field: 'vat_id', params: { when: 'tax', }, severity: 'error', message: 'An invoice that charges VAT must show the VAT id.' },
  },
};

export const FIELD_PATH = '^[A-Za-z_$][\\w$-]*(\\[\\d*\\])?(\\.[A-Za-z_$][\\w$-]*(\\[\\d*\\])?)*$';

/** The shape every rule has, whatever its kind (kind-specific params are checked after). */
export const RuleShape = Type.Object(
  {
    kind: Type.Union(RULE_KIND_NAMES.map((k) => Type.Literal(k))),
    field: Type.Optional(Type.String({ pattern: FIELD_PATH, maxLength: 256 })),
    fields: Type.Optional(Type.Array(Type.String({ pattern: FIELD_PATH, maxLength: 256 }), { minItems: 1, maxItems: 20 })),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
    severity: Type.Optional(Type.Union([Type.Literal('error'), Type.Literal('warn')])),
    message: Type.Optional(Type.String({ maxLength: 1000 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:\\-]+$' })),
    on_fail: Type.Optional(Type.Union([Type.Literal('review'), Type.Literal('reject')])),
  },
  { additionalProperties: false },
);

/** GET /v1/templates/meta/rule-kinds. */
export function ruleKindsCatalogue() {
  return {
    items: RULE_KIND_NAMES.map((kind) => {
      const k = RULE_KINDS[kind] as KindSpec;
      return { kind, description: k.description, target: k.target, params: JSON.parse(JSON.stringify(k.params)) as Record<string, unknown>, example: k.example };
    }),
    severities: ['error', 'warn'],
    on_fail: ['review', 'reject'],
    rule_shape: JSON.parse(JSON.stringify(RuleShape)) as Record<string, unknown>,
  };
}

export interface RuleProblem {
  /** Location inside the rule ([] = the rule itself). */
  loc: (string | number)[];
  msg: string;
  type: string;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const shapeCheck = ajv.compile(RuleShape);
const paramChecks = Object.fromEntries(RULE_KIND_NAMES.map((k) => [k, ajv.compile((RULE_KINDS[k] as KindSpec).params)]));

function segments(instancePath: string): (string | number)[] {
  return instancePath ? instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s)) : [];
}

function problem(e: ErrorObject, prefix: (string | number)[]): RuleProblem {
  const loc = [...prefix, ...segments(e.instancePath)];
  if (e.keyword === 'required') return { loc: [...loc, String((e.params as { missingProperty: string }).missingProperty)], msg: 'Field required', type: 'missing' };
  if (e.keyword === 'additionalProperties') return { loc: [...loc, String((e.params as { additionalProperty: string }).additionalProperty)], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
  return { loc, msg: e.message ? `Input ${e.message}` : 'Input is invalid', type: e.keyword === 'pattern' ? 'string_pattern_mismatch' : 'value_error' };
}

/** All paths a rule refers to (field, fields, sum items, arithmetic operands, required_if's when). */
export function rulePaths(rule: Rule): { loc: (string | number)[]; path: string }[] {
  const out: { loc: (string | number)[]; path: string }[] = [];
  if (rule.field) out.push({ loc: ['field'], path: rule.field });
  rule.fields?.forEach((f, i) => out.push({ loc: ['fields', i], path: f }));
  if (rule.kind === 'sum' && typeof rule.params?.items === 'string') out.push({ loc: ['params', 'items'], path: rule.params.items });
  if (rule.kind === 'required_if' && typeof rule.params?.when === 'string') out.push({ loc: ['params', 'when'], path: rule.params.when });
  if (rule.kind === 'arithmetic' && typeof rule.params?.expression === 'string') {
    for (const m of rule.params.expression.matchAll(/[A-Za-z_$][\w$-]*(?:\[\d*\])?(?:\.[A-Za-z_$][\w$-]*(?:\[\d*\])?)*/g)) out.push({ loc: ['params', 'expression'], path: m[0] });
  }
  return out;
}

/**
 * Problems with one rule: its shape, its kind's params, its target (field / fields), a pattern
 * that does not compile, an expression that does not parse, and paths that name no field of the
 * template (`knownPath` decides; item paths are written `lines[].qty`).
 */
export function checkRule(raw: unknown, knownPath: (path: string) => boolean, parseExpression: (e: string) => string | null): RuleProblem[] {
  if (!shapeCheck(raw)) return (shapeCheck.errors ?? []).filter((e) => e.keyword !== 'anyOf').map((e) => problem(e, []));
  const rule = raw as Rule;
  const spec = RULE_KINDS[rule.kind] as KindSpec;
  const problems: RuleProblem[] = [];
  const params = rule.params ?? {};
  const check = paramChecks[rule.kind]!;
  if (!check(params)) problems.push(...(check.errors ?? []).filter((e) => e.keyword !== 'anyOf').map((e) => problem(e, ['params'])));
  const hasField = rule.field !== undefined;
  const hasFields = rule.fields !== undefined;
  if (spec.target === 'field' && !hasField) problems.push({ loc: ['field'], msg: `Field required: a ${rule.kind} rule applies to one field`, type: 'missing' });
  if (spec.target === 'field' && hasFields) problems.push({ loc: ['fields'], msg: `A ${rule.kind} rule takes one \`field\`, not \`fields\``, type: 'extra_forbidden' });
  if (spec.target === 'fields' && (!hasFields || (rule.fields?.length ?? 0) < 2)) problems.push({ loc: ['fields'], msg: `A ${rule.kind} rule needs \`fields\` with at least two fields`, type: 'missing' });
  if (spec.target === 'fields' && hasField) problems.push({ loc: ['field'], msg: `A ${rule.kind} rule takes \`fields\`, not \`field\``, type: 'extra_forbidden' });
  if (spec.target === 'either' && hasField === hasFields) problems.push({ loc: [], msg: `A ${rule.kind} rule takes either \`field\` or \`fields\`, exactly one of them`, type: 'value_error' });
  if (rule.kind === 'equals' && hasField && params.value === undefined) problems.push({ loc: ['params', 'value'], msg: 'An equals rule on one field needs params.value (or use `fields` to compare fields)', type: 'missing' });
  if (rule.kind === 'pattern' && typeof params.pattern === 'string') {
    const why = linearRegexProblem(params.pattern, typeof params.flags === 'string' ? params.flags : '');
    // Patterns run in a linear-time engine: backreferences and lookaround are refused here.
    if (why) problems.push({ loc: ['params', 'pattern'], msg: `Not a regular expression the linear-time engine can run: ${why}`, type: 'value_error' });
  }
  if (rule.kind === 'arithmetic' && typeof params.expression === 'string') {
    const error = parseExpression(params.expression);
    if (error) problems.push({ loc: ['params', 'expression'], msg: error, type: 'value_error' });
  }
  if (rule.kind === 'range' && typeof params.min === 'number' && typeof params.max === 'number' && params.min > params.max) {
    problems.push({ loc: ['params'], msg: 'min is greater than max', type: 'value_error' });
  }
  if (!problems.length) {
    for (const { loc, path } of rulePaths(rule)) {
      if (!knownPath(path)) problems.push({ loc, msg: `'${path}' is not a field of json_schema (item fields are written like lines[].qty)`, type: 'value_error' });
    }
  }
  return problems;
}
