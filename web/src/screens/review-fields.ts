// Pure helpers of the review screen: field paths ("vendor.name", "line_items[0].amount"), the
// template schema node a path names, which review reasons belong to which field, and the JSON
// merge patch (RFC 7386) that carries a reviewer's edits.

export interface Step {
  key: string;
  /** The item index after the key ("line_items[0]" → 0), null when the step names no item. */
  index: number | null;
}

/** "line_items[0].amount" → [{key: 'line_items', index: 0}, {key: 'amount', index: null}]. */
export function parsePath(path: string): Step[] {
  return path.split('.').map((part) => {
    const m = /^([^[\]]+)\[(\d*)\]$/.exec(part);
    return m ? { key: m[1]!, index: m[2] === '' ? -1 : Number(m[2]) } : { key: part, index: null };
  });
}

/** "line_items[2].amount" → "line_items[].amount": the path as a template and review reasons name it. */
export function genericPath(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

/**
 * Whether a reason or rule naming `target` (concrete "lines[1].qty", generic "lines[].qty", or a
 * whole "lines") concerns the field at `field` (always concrete).
 */
export function concerns(target: string, field: string): boolean {
  for (const path of target.includes('[]') ? [genericPath(field)] : [field, genericPath(field)]) {
    if (path === target || path.startsWith(`${target}.`) || path.startsWith(`${target}[`)) return true;
  }
  return false;
}

type SchemaNode = { type?: string | string[]; properties?: Record<string, unknown>; items?: unknown } | undefined;

/** The schema node `path` names, through objects' `properties` and arrays' `items`. */
export function schemaAt(schema: unknown, path: string): SchemaNode {
  let node = schema as SchemaNode;
  for (const step of parsePath(path)) {
    node = node?.properties?.[step.key] as SchemaNode;
    if (step.index !== null) node = node?.items as SchemaNode;
  }
  return node;
}

/** The JSON type the template gives the field at `path` (the non-null one of a nullable type). */
export function schemaType(schema: unknown, path: string): string | undefined {
  const type = schemaAt(schema, path)?.type;
  return Array.isArray(type) ? type.find((t) => t !== 'null') : type;
}

/** "line_items[0].amount" → "line_items[0]": the array item a field lives in, null outside arrays. */
export function rowOf(path: string): string | null {
  const end = path.lastIndexOf(']');
  return end < 0 ? null : path.slice(0, end + 1);
}

/** "line_items[3]" → {array: "line_items", index: 3}. */
function splitRow(row: string): { array: string; index: number } {
  const m = /^(.*)\[(\d+)\]$/.exec(row)!;
  return { array: m[1]!, index: Number(m[2]) };
}

function get(data: unknown, path: string): unknown {
  let node = data;
  for (const step of parsePath(path)) {
    node = node && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[step.key] : undefined;
    if (step.index !== null) node = Array.isArray(node) ? node[step.index] : undefined;
  }
  return node;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function set(data: Record<string, unknown>, path: string, value: unknown): void {
  const steps = parsePath(path);
  if (steps.some((s) => PROTOTYPE_KEYS.has(s.key))) return;
  let node: Record<string, unknown> | unknown[] = data;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1;
    const obj = node as Record<string, unknown>;
    if (step.index === null) {
      if (last) obj[step.key] = value;
      else node = (obj[step.key] = obj[step.key] && typeof obj[step.key] === 'object' && !Array.isArray(obj[step.key]) ? obj[step.key] : {}) as Record<string, unknown>;
      return;
    }
    const arr = (obj[step.key] = Array.isArray(obj[step.key]) ? obj[step.key] : []) as unknown[];
    if (last) arr[step.index] = value;
    else node = (arr[step.index] = arr[step.index] && typeof arr[step.index] === 'object' ? arr[step.index] : {}) as Record<string, unknown>;
  });
}

/** Sets `value` at the object path `keys` of a patch, creating objects on the way. */
function setIn(patch: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = patch;
  for (const k of keys.slice(0, -1)) node = (node[k] = node[k] && typeof node[k] === 'object' && !Array.isArray(node[k]) ? node[k] : {}) as Record<string, unknown>;
  node[keys[keys.length - 1]!] = value;
}

/**
 * The merge patch that turns `data` into `data` with `edits` (typed values by concrete path) and
 * without the array items `removed` ("line_items[2]"). A merge patch replaces an array whole, so
 * an edit inside one sends the whole array, with the item changed; outside arrays only the
 * edited keys are sent.
 */
export function buildPatch(data: Record<string, unknown>, edits: [string, unknown][], removed: string[] = []): Record<string, unknown> {
  const next = structuredClone(data ?? {}) as Record<string, unknown>;
  for (const [path, value] of edits) set(next, path, value);
  // Highest index first, so the indexes still to remove stay where they were.
  const rows = removed.map(splitRow).sort((a, b) => b.index - a.index);
  for (const { array, index } of rows) {
    const arr = get(next, array);
    if (Array.isArray(arr)) arr.splice(index, 1);
  }
  const patch: Record<string, unknown> = {};
  for (const path of [...edits.map(([p]) => p), ...rows.map((r) => `${r.array}[${r.index}]`)]) {
    const steps = parsePath(path);
    const firstArray = steps.findIndex((s) => s.index !== null);
    if (firstArray < 0) {
      setIn(patch, steps.map((s) => s.key), get(next, path));
    } else {
      const keys = steps.slice(0, firstArray + 1).map((s) => s.key);
      setIn(patch, keys, get(next, keys.join('.')));
    }
  }
  return patch;
}

/**
 * A number as people write it on invoices: "34,73", "1.234,50", "1,234.50", "1'234.50", "EUR 12".
 * With both marks, the last one is the decimal mark; with one, it is decimal unless exactly three
 * digits follow it, which reads either way ("1,234" is 1234 in English and 1.234 in German): then
 * null, and the reviewer is asked to write it unambiguously.
 */
export function parseNumber(text: string): number | null {
  const t = text.replace(/[\s\u00a0\u202f']/g, '').replace(/^[^\d+-]+|[^\d]+$/g, '');
  if (!/^[+-]?[\d.,]+$/.test(t)) return null;
  const lastDot = t.lastIndexOf('.');
  const lastComma = t.lastIndexOf(',');
  let normal: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const grouping = decimal === '.' ? ',' : '.';
    if (t.indexOf(decimal) !== t.lastIndexOf(decimal)) return null;
    normal = t.split(grouping).join('').replace(decimal, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const mark = lastDot >= 0 ? '.' : ',';
    const parts = t.split(mark);
    if (parts.length > 2) {
      // Several of one mark: thousands groups ("1.234.567"), each of three digits.
      if (!parts.slice(1).every((p) => p.length === 3)) return null;
      normal = parts.join('');
    } else {
      if (parts[1]!.length === 3 && /\d/.test(parts[0]!)) return null;
      normal = parts.join('.');
    }
  } else {
    normal = t;
  }
  const n = Number(normal);
  return Number.isFinite(n) ? n : null;
}

/** The typed value for what the reviewer typed, by the template's schema type for that field; an Error when it cannot be one. */
export function coerce(text: string, type: string | undefined, path: string): unknown {
  const t = text.trim();
  if (t === '') return null;
  if (type === 'number' || type === 'integer') {
    const n = parseNumber(t);
    if (n === null) throw new Error(`${path}: "${t}" is not a number that reads one way only. Write it with a decimal point and no thousands marks, e.g. 1234.50.`);
    if (type === 'integer' && !Number.isInteger(n)) throw new Error(`${path}: "${t}" is not a whole number.`);
    return n;
  }
  if (type === 'boolean') {
    if (/^(true|yes|1)$/i.test(t)) return true;
    if (/^(false|no|0)$/i.test(t)) return false;
    throw new Error(`${path}: "${t}" is not yes or no (true or false).`);
  }
  if (type === 'object' || type === 'array') {
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch {
      throw new Error(`${path}: write it as JSON (${type === 'array' ? '[…]' : '{…}'}).`);
    }
    if (type === 'array' ? !Array.isArray(v) : !v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${path}: write it as a JSON ${type}.`);
    return v;
  }
  return t;
}

export interface FieldRow {
  path: string;
  value: unknown;
  confidence: number;
  evidence: { page: number; bbox: [number, number, number, number]; text: string }[];
  reasons: string[];
  risk: number;
}

interface Extraction {
  fields: Record<string, { value: unknown; confidence: number; evidence?: FieldRow['evidence']; edited_by_reviewer?: boolean }>;
  validation: { rule: string; field: string; severity: string; message: string }[];
}

const ruleText = (v: { severity: string; message: string }) => `${v.severity === 'error' ? 'rule failed' : 'rule warning'}: ${v.message}`;

/**
 * Fields with their reasons, riskiest first (rule failures, then disagreement, low confidence, no
 * evidence; a value a reviewer entered is marked as such, not as missing from the page), and the review's reasons that concern no one field (`warn_count`, a rule on a field
 * that was not extracted), for the top of the screen. Reasons name item fields generically
 * ("low_confidence:line_items[].amount"): they stand under every item's field.
 */
export function rankFields(x: Extraction | undefined, jobReasons: string[], rules: TemplateRule[] = []): { fields: FieldRow[]; general: GeneralReason[] } {
  const describe = (r: string): GeneralReason => ({ text: describeReason(r, rules), code: r });
  if (!x) return { fields: [], general: jobReasons.map(describe) };
  const paths = Object.keys(x.fields);
  const placed = new Set<string>();
  const fields = Object.entries(x.fields)
    .map(([path, f]) => {
      const reasons: string[] = [];
      let risk = 0;
      for (const v of x.validation.filter((v) => v.field && concerns(v.field, path))) {
        reasons.push(ruleText(v));
        risk += v.severity === 'error' ? 100 : 40;
      }
      for (const r of jobReasons) {
        const [kind, target] = [r.slice(0, r.indexOf(':')), r.slice(r.indexOf(':') + 1)];
        if (!target || !concerns(target, path)) continue;
        if (kind === 'low_agreement') (reasons.push('low agreement between engines'), (risk += 30), placed.add(r));
        if (kind === 'low_confidence') (reasons.push('low confidence'), (risk += 20), placed.add(r));
      }
      // A reviewer's value has no box on the page by nature: it is theirs, not an ungrounded guess.
      if (f.edited_by_reviewer) reasons.push('entered by the reviewer');
      else if (!f.evidence?.length && f.value !== null && f.value !== undefined) (reasons.push('not found on the page (ungrounded)'), (risk += 15));
      return { path, value: f.value, confidence: f.confidence, evidence: f.evidence ?? [], reasons, risk: risk + (1 - f.confidence) * 10 };
    })
    .sort((a, b) => b.risk - a.risk || a.path.localeCompare(b.path));
  const general: GeneralReason[] = [];
  // Rule results on no extracted field (a required field that is missing from the template's fields, a rule on the whole data).
  for (const v of x.validation) if (!v.field || !paths.some((p) => concerns(v.field, p))) general.push({ text: ruleText(v), code: `validation:${v.rule}` });
  for (const r of jobReasons) {
    if (placed.has(r)) continue;
    if (r.startsWith('validation:')) {
      // Shown with its rule's message above or under its field; a rule with no entry is named.
      if (x.validation.some((v) => `validation:${v.rule}` === r)) continue;
    }
    general.push(describe(r));
  }
  return { fields, general };
}

/** A reason for the whole review: the sentence shown, and the code behind it for the tooltip. */
export interface GeneralReason {
  text: string;
  code: string;
}

/** A validation rule as a template stores it (spec/decisions.md: {kind, field | fields, params, severity, message, name?}). */
export interface TemplateRule {
  kind: string;
  field?: string;
  fields?: string[];
  params?: Record<string, unknown>;
  message?: string;
  name?: string;
}

/**
 * The id a rule goes by in `validation:<rule>` reasons and validation entries: its name, else
 * `<kind>:<fields>` (an arithmetic rule: its expression without spaces). The pipeline's ruleId
 * (src/pipeline/extract/rules.ts) makes it; this reads it back to find the template's rule.
 */
export function ruleIdOf(rule: TemplateRule): string {
  if (rule.name) return rule.name;
  if (rule.kind === 'arithmetic') return `arithmetic:${String(rule.params?.expression ?? '').replace(/\s+/g, '')}`;
  return `${rule.kind}:${(rule.field ? [rule.field] : (rule.fields ?? [])).join(',')}`;
}

/**
 * A rule id in words: "required:po_number" → "po_number is required". A rule with a name of its
 * own (not `<kind>:<fields>`) says nothing about what it checks: null.
 */
export function ruleInWords(id: string): string | null {
  const [kind, target] = splitReason(id);
  if (!target) return null;
  const fields = target.split(',');
  const one = fields.length === 1;
  const list = fields.length > 1 ? `${fields.slice(0, -1).join(', ')} and ${fields[fields.length - 1]}` : target;
  switch (kind) {
    case 'required':
      return `${list} ${one ? 'is' : 'are'} required`;
    case 'required_if':
      return `${list} ${one ? 'is' : 'are'} required in this case`;
    case 'pattern':
      return `${target} does not match its pattern`;
    case 'enum':
      return `${target} is not one of the allowed values`;
    case 'range':
      return `${target} is out of its range`;
    case 'length':
      return `${target} is too short or too long`;
    case 'date':
      return `${target} is not an acceptable date`;
    case 'date_order':
      return `${list} are in the wrong order`;
    case 'sum':
      return `${target} is not the sum of its items`;
    case 'arithmetic':
      return `${target} does not hold`;
    case 'checksum':
      return `${target} fails its checksum`;
    case 'format':
      return `${target} is not in its format`;
    case 'multiple_of':
      return `${target} is not a multiple of its step`;
    case 'equals':
      return `${target} is not the expected value`;
    default:
      return null;
  }
}

/**
 * A review reason as a sentence: "warn_count" → "several rule warnings". A failed rule reads as
 * the template's own message for it when `rules` (the template version the job used) has one,
 * else in words from its id.
 */
export function describeReason(r: string, rules: TemplateRule[] = []): string {
  const [kind, target] = splitReason(r);
  if (kind === 'warn_count') return 'several rule warnings (warn_count)';
  if (kind === 'low_confidence') return `low confidence: ${target}`;
  if (kind === 'low_agreement') return `low agreement between engines: ${target}`;
  if (kind === 'validation') {
    const message = rules.find((rule) => ruleIdOf(rule) === target)?.message;
    return `rule failed: ${message || ruleInWords(target) || target}`;
  }
  if (kind === 'ungrounded') return `not found on the page (ungrounded): ${target}`;
  return r;
}

/**
 * A review reason code as the queue labels it. The codes are the pipeline's (decision.ts and the
 * model extraction's finish.ts): `low_confidence:<field>`, `low_agreement:<field>`,
 * `validation:<rule>`, `ungrounded:<field>` and `warn_count`; one not known here stays as it is.
 */
export function reasonLabel(r: string): string {
  const [kind, target] = splitReason(r);
  if (kind === 'warn_count') return 'Several rule warnings';
  if (!target) return r;
  if (kind === 'low_confidence') return `Low confidence: ${target}`;
  if (kind === 'low_agreement') return `Engines disagree: ${target}`;
  if (kind === 'validation') {
    // "po_number is required" reads as the failure it is (the field keeps its own spelling); a
    // rule's own name says only which rule.
    return ruleInWords(target) ?? `Rule failed: ${target}`;
  }
  if (kind === 'ungrounded') return `Not found on the page: ${target}`;
  return r;
}

function splitReason(r: string): [string, string] {
  const at = r.indexOf(':');
  return at < 0 ? [r, ''] : [r.slice(0, at), r.slice(at + 1)];
}

/**
 * The lines of a refused save that name a field, by the field they name: the screen's own
 * ("total: … is not a number") and the API's 422 items ("patch.line_items.0.amount: …"). A line
 * naming a whole row or array goes to its first field; lines naming no field are left out.
 */
export function errorsByField(error: string | null | undefined, paths: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!error) return out;
  for (const line of error.split('\n')) {
    const m = /^([^\s:]+): (.+)$/.exec(line);
    if (!m) continue;
    const path = m[1]!.replace(/^patch\./, '').replace(/\.(\d+)(?=\.|$)/g, '[$1]');
    const hit = paths.find((p) => p === path) ?? paths.find((p) => p.startsWith(`${path}.`) || p.startsWith(`${path}[`));
    if (hit) (out[hit] ??= []).push(m[2]!);
  }
  return out;
}
