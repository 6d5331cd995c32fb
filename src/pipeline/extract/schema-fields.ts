// The fields of a template's JSON schema, walked into a tree the extractor fills: scalar fields
// (nested objects flattened into dotted paths), arrays of objects (line items) and arrays of scalars.
import { AnchorScan, anchorTest } from '../entities/anchors.js';
import { escapeRegExp, fold } from '../entities/normalize.js';
import { compileLinear } from '../../lib/linear-regex.js';
import { PROTOTYPE_KEYS } from './paths.js';
import { COLUMN_CONCEPTS, CONCEPTS, type Concept } from './vocabulary.js';

export type ScalarType = 'string' | 'number' | 'integer' | 'boolean' | 'date';

export interface FieldSpec {
  /** Dotted path in `extraction.data` ("vendor.name", "lines"). */
  path: string;
  key: string;
  kind: 'scalar' | 'array_of_objects' | 'array_of_scalars';
  type: ScalarType;
  format?: string;
  enum?: unknown[];
  /**
   * A string field's JSON Schema `pattern`, unanchored: the value is the first text of that shape.
   * A tenant wrote it, so it runs in the linear-time engine (lib/linear-regex.ts, which keeps the
   * compiled form): the spec holds its source, as field specs travel between threads.
   */
  pattern?: string;
  /** Labels to look for, folded, with how much a match on each is worth (1 = the field's own words). */
  labels: { text: string; weight: number }[];
  concept: Concept | null;
  /** The concept's vague labels (vocabulary.ts) that are not the field's own words: a value under one of them stays below the review floor. */
  vagueLabels?: string[];
  /**
   * What a numeric field's name means when read as text ("vat": the tax amount, or the VAT id):
   * the stand-in when nothing of its own concept is printed.
   */
  otherMeaning?: Concept;
  required: boolean;
  /** Columns of an array of objects. */
  columns?: FieldSpec[];
}

type Json = Record<string, unknown>;

/** "amount_untaxed" → "amount untaxed"; "invoiceNumber" → "invoice number". */
export function humanise(key: string): string {
  return fold(key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' ')).replace(/\s+/g, ' ').trim();
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Folded label text: punctuation becomes spaces ("N° de TVA" → "n de tva"). Every table cell and
 * key of a document is read as one: plain ASCII (where folding is lower-casing, and the letters
 * and numbers are a-z and 0-9) takes a shorter path to the same text.
 */
export function labelText(s: string): string {
  if (ASCII.test(s)) return s.toLowerCase().replace(/[^a-z0-9#%]+/g, ' ').trim();
  return fold(s).replace(/[^\p{L}\p{N}#%]+/gu, ' ').replace(/\s+/g, ' ').trim();
}

function resolve(schema: unknown, root: Json, depth = 0): Json {
  let s = (schema && typeof schema === 'object' ? schema : {}) as Json;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/') && depth < 8) {
    let target: unknown = root;
    for (const part of s.$ref.slice(2).split('/')) target = (target as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return resolve(target, root, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) {
      const branch = (s[key] as Json[]).find((b) => b && b.type !== 'null');
      if (branch) s = { ...s, ...resolve(branch, root, depth + 1) };
    }
  }
  return s;
}

function typeOf(s: Json): string {
  const t = s.type;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') as string | undefined) ?? 'string';
  if (typeof t === 'string') return t;
  if (s.properties) return 'object';
  if (s.items) return 'array';
  return 'string';
}

const kindFits = (concept: Concept, type: ScalarType) => {
  switch (concept.kind) {
    case 'money':
    case 'number':
    case 'percent':
      return type === 'number' || type === 'integer' || type === 'string';
    case 'date':
      return type === 'date' || type === 'string';
    default:
      return type === 'string' || type === 'integer';
  }
};

// A numeric field prefers a numeric concept and a text field a text one ("vat": an amount or an id).
const kindPrefers = (concept: Concept, type: ScalarType) =>
  (type === 'number' || type === 'integer') === (concept.kind === 'money' || concept.kind === 'number' || concept.kind === 'percent');

// Token sets of phrases and concept names, built once each: conceptOf compares every phrase of
// every field with every name of every concept.
const tokenSets = new Map<string, Set<string>>();

function tokens(s: string): Set<string> {
  let set = tokenSets.get(s);
  if (!set) {
    set = new Set(s.split(' ').filter(Boolean));
    if (tokenSets.size > 5000) tokenSets.clear();
    tokenSets.set(s, set);
  }
  return set;
}

/** The concept a field means, from its phrases (humanised name, with parent, title, aliases). */
export function conceptOf(phrases: string[], type: ScalarType, pool: Concept[] = CONCEPTS): Concept | null {
  let best: { concept: Concept; score: number } | null = null;
  for (const concept of pool) {
    if (!kindFits(concept, type)) continue;
    for (const phrase of phrases) {
      for (const name of concept.names) {
        let score = 0;
        if (phrase === name) score = 1;
        else {
          const a = tokens(phrase);
          const b = tokens(name);
          let common = 0;
          for (const t of a) if (b.has(t)) common++;
          if (common === b.size && b.size >= 2) score = 0.8;
          else score = (common / Math.max(a.size, b.size)) * 0.7;
        }
        if (kindPrefers(concept, type)) score += 0.05;
        if (!best || score > best.score) best = { concept, score };
      }
    }
  }
  return best && best.score >= 0.5 ? best.concept : null;
}

function scalarType(s: Json, key: string): ScalarType {
  const t = typeOf(s);
  if (t === 'number' || t === 'integer' || t === 'boolean') return t;
  if (s.format === 'date' || s.format === 'date-time') return 'date';
  if (t === 'string' && /(^|[_\s-])(date|datum|fecha)($|[_\s-])|^date|date$/i.test(key) && s.format === undefined && !s.enum) return 'date';
  return 'string';
}

function labelsFor(key: string, s: Json, parentPhrase: string | null, concept: Concept | null): FieldSpec['labels'] {
  const out: FieldSpec['labels'] = [];
  const add = (text: string, weight: number) => {
    const t = labelText(text);
    if (t && t.length >= 2 && !out.some((l) => l.text === t)) out.push({ text: t, weight });
  };
  const aliases = Array.isArray(s['x-aliases']) ? (s['x-aliases'] as unknown[]).filter((a): a is string => typeof a === 'string') : [];
  for (const a of aliases) add(a, 1);
  if (typeof s.title === 'string') add(s.title, 1);
  if (parentPhrase) add(`${parentPhrase} ${humanise(key)}`, 1);
  add(humanise(key), concept ? 0.9 : 1);
  if (typeof s.description === 'string' && s.description.split(/\s+/).length <= 4) add(s.description, 0.9);
  for (const label of concept?.labels ?? []) add(label, label.split(' ').length > 1 ? 0.95 : 0.85);
  return out;
}

function phrasesOf(key: string, s: Json, parentPhrase: string | null): string[] {
  const out = [humanise(key)];
  if (parentPhrase) out.unshift(`${parentPhrase} ${humanise(key)}`);
  if (typeof s.title === 'string') out.unshift(labelText(s.title));
  for (const a of Array.isArray(s['x-aliases']) ? (s['x-aliases'] as unknown[]) : []) if (typeof a === 'string') out.unshift(labelText(a));
  return out;
}

function otherMeaningOf(concept: Concept | null, phrases: string[], type: ScalarType, column: boolean): { otherMeaning?: Concept } {
  if (column || !concept || (type !== 'number' && type !== 'integer')) return {};
  const other = conceptOf(phrases, 'string');
  return other && other.id !== concept.id && other.kind === 'id' ? { otherMeaning: other } : {};
}

function vagueLabelsOf(concept: Concept | null, phrases: string[]): { vagueLabels?: string[] } {
  const vague = (concept?.vague ?? []).filter((l) => !phrases.includes(l));
  return vague.length ? { vagueLabels: vague } : {};
}

function valuePattern(s: Json): { pattern?: string } {
  if (typeof s.pattern !== 'string' || typeOf(s) !== 'string') return {};
  const pattern = s.pattern.replace(/^\^/, '').replace(/\$$/, '');
  try {
    compileLinear(pattern, 'u');
    return { pattern };
  } catch {
    return {};
  }
}

/**
 * How far the fields of a schema go. A `$ref` can point back at a schema it is inside (a tree of
 * nodes), which has no end, and a few `$ref`s can multiply into more fields than any document has:
 * the walk stops there, and a template with such a schema is refused (template-check.ts).
 */
export const MAX_FIELD_DEPTH = 16;
export const MAX_FIELDS = 2_000;

interface WalkBudget {
  fields: number;
  /** Set when the walk stopped at a limit: the schema's fields go on past what was read. */
  cut: boolean;
}

function walk(properties: Json, required: string[], root: Json, prefix: string, parentPhrase: string | null, out: FieldSpec[], budget: WalkBudget, columns = false, depth = 0): void {
  for (const [key, raw] of Object.entries(properties)) {
    // A prototype key never names a field (templates refuse one; a stored or inline one is skipped).
    if (PROTOTYPE_KEYS.has(key)) continue;
    if (depth >= MAX_FIELD_DEPTH || budget.fields >= MAX_FIELDS) {
      budget.cut = true;
      return;
    }
    budget.fields++;
    const s = resolve(raw, root);
    const path = prefix ? `${prefix}.${key}` : key;
    const t = typeOf(s);
    if (t === 'object' && s.properties && typeof s.properties === 'object') {
      walk(s.properties as Json, (s.required as string[]) ?? [], root, path, humanise(key), out, budget, columns, depth + 1);
      continue;
    }
    if (t === 'array') {
      const item = resolve(s.items, root);
      if (typeOf(item) === 'object' && item.properties && typeof item.properties === 'object' && !columns) {
        const cols: FieldSpec[] = [];
        walk(item.properties as Json, (item.required as string[]) ?? [], root, '', null, cols, budget, true, depth + 1);
        out.push({ path, key, kind: 'array_of_objects', type: 'string', labels: labelsFor(key, s, parentPhrase, null), concept: null, required: required.includes(key), columns: cols });
        continue;
      }
      const type = scalarType(item, key);
      const phrases = phrasesOf(key, s, parentPhrase);
      const concept = conceptOf(phrases, type);
      out.push({ path, key, kind: 'array_of_scalars', type, ...(item.format ? { format: String(item.format) } : {}), labels: labelsFor(key, s, parentPhrase, concept), concept, required: required.includes(key) });
      continue;
    }
    const type = scalarType(s, key);
    const phrases = phrasesOf(key, s, parentPhrase);
    const concept = conceptOf(phrases, type, columns ? COLUMN_CONCEPTS : CONCEPTS);
    out.push({
      path,
      key,
      kind: 'scalar',
      type,
      ...(typeof s.format === 'string' ? { format: s.format } : {}),
      ...(Array.isArray(s.enum) ? { enum: s.enum } : {}),
      ...valuePattern(s),
      labels: labelsFor(key, s, parentPhrase, concept),
      concept,
      ...vagueLabelsOf(concept, phrases),
      ...otherMeaningOf(concept, phrases, type, !!columns),
      required: required.includes(key),
    });
  }
}

const fieldCache = new WeakMap<object, FieldSpec[]>();

// A job reads its template from the database, so the same schema arrives as a new object every
// time: the fields (and what is compiled from them and cached with them: label regexes) are also
// kept by the schema's JSON text, for the templates most recently used.
const fieldsByJson = new Map<string, FieldSpec[]>();
const FIELDS_BY_JSON_SIZE = 64;

/** Every field of a template's JSON schema (an object schema; anything else has no fields). Cached per schema object and per JSON text: treat both as read-only. */
export function schemaFields(schema: Record<string, unknown>): FieldSpec[] {
  const cached = fieldCache.get(schema);
  if (cached) return cached;
  const json = jsonOf(schema);
  let fields = json === null ? undefined : fieldsByJson.get(json);
  if (fields) fieldsByJson.delete(json!); // re-inserted below as the most recently used
  fields ??= walkSchema(schema);
  if (json !== null) {
    fieldsByJson.set(json, fields);
    if (fieldsByJson.size > FIELDS_BY_JSON_SIZE) fieldsByJson.delete(fieldsByJson.keys().next().value!);
  }
  fieldCache.set(schema, fields);
  return fields;
}

function jsonOf(schema: Record<string, unknown>): string | null {
  try {
    return JSON.stringify(schema);
  } catch {
    return null; // not JSON (a cycle): cached per object only
  }
}

function walkSchema(schema: Record<string, unknown>, budget: WalkBudget = { fields: 0, cut: false }): FieldSpec[] {
  const root = resolve(schema, schema);
  const out: FieldSpec[] = [];
  if (root.properties && typeof root.properties === 'object') walk(root.properties as Json, (root.required as string[]) ?? [], schema, '', null, out, budget);
  return out;
}

/** Whether the schema's fields go deeper than MAX_FIELD_DEPTH or number more than MAX_FIELDS (a `$ref` cycle does both). */
export function fieldsBeyondLimits(schema: Record<string, unknown>): boolean {
  const budget = { fields: 0, cut: false };
  walkSchema(schema, budget);
  return budget.cut;
}

interface Matcher {
  exact: Map<string, number>;
  /** Every label of the field as a whole-word alternation, longest first; the group index names the label. */
  re: RegExp;
  labels: FieldSpec['labels'];
}

const matchers = new WeakMap<FieldSpec, Matcher>();

function matcherOf(spec: FieldSpec): Matcher {
  let m = matchers.get(spec);
  if (!m) {
    const labels = [...spec.labels].sort((a, b) => b.text.length - a.text.length);
    const alt = labels.map((l) => `(${l.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`).join('|');
    m = { exact: new Map(spec.labels.map((l) => [l.text, l.weight])), re: new RegExp(String.raw`(?:^|\s)(?:${alt || '(?!)'})(?=\s|$)`, 'g'), labels };
    matchers.set(spec, m);
  }
  return m;
}

/**
 * How well a short text (a key of a key-value pair, a table cell; at most 80 characters, longer
 * ones are no label) reads as one of the field's labels, given as label text (`k` = labelText of
 * it, which callers read once for all fields): the label's weight when it is exactly a label, less
 * the more other words surround it, 0 when no label is in it. `base` and `span` set how much the
 * surrounding words cost.
 */
export function labelTextSimilarity(spec: FieldSpec, k: string, base = 0.6, span = 0.3): number {
  if (!k) return 0;
  const m = matcherOf(spec);
  const exact = m.exact.get(k);
  if (exact !== undefined) return exact;
  let best = 0;
  m.re.lastIndex = 0;
  for (let hit = m.re.exec(k); hit; hit = m.re.exec(k)) {
    const which = hit.slice(1).findIndex((g) => g !== undefined);
    const label = m.labels[which];
    if (label) best = Math.max(best, label.weight * (base + span * (label.text.length / k.length)));
    if (hit[0].length === 0) m.re.lastIndex++;
  }
  return best;
}

/**
 * Whether a label text (labelText) may read as a label of any of the fields (labelTextSimilarity
 * above 0 for one of them), in one test: labels and label texts are words joined by single
 * spaces, and a label covers whole words, so one of the labels' first words must be a word of it.
 */
export function labelWordTest(fields: FieldSpec[]): (k: string) => boolean {
  const words = [...new Set(fields.flatMap((f) => f.labels.map((l) => l.text.split(' ')[0]!)))].sort((a, b) => b.length - a.length);
  if (!words.length) return () => false;
  const re = new RegExp(String.raw`(?:^|\s)(?:${words.map(escapeRegExp).join('|')})(?=\s|$)`);
  return (k) => re.test(k);
}

interface Searcher {
  re: RegExp;
  /** The labels longest first, in the order of the regex's groups. */
  labels: FieldSpec['labels'];
  /** Whether a text may hold one of the labels (the regex runs only then). */
  mayHold: (folded: string) => boolean;
}

const searchers = new WeakMap<FieldSpec, Searcher>();
// What a label found by matchLabelIn may not touch (its pattern's look-behind and look-ahead).
const SEARCH_BOUNDS = { before: /[\p{L}\d]/u, after: /[\p{L}\d]/u };
const groupScans = new WeakMap<FieldSpec[], AnchorScan>();

/** For several fields at once, in one scan: whether each may have a label in a folded text (matchLabelIn finds none where not). */
export function labelsMayBeIn(specs: FieldSpec[], folded: string): boolean[] {
  let scan = groupScans.get(specs);
  if (!scan) {
    scan = new AnchorScan(specs.map((f) => f.labels.map((l) => l.text)), SEARCH_BOUNDS);
    groupScans.set(specs, scan);
  }
  return scan.scan(folded);
}

function searcherOf(spec: FieldSpec): Searcher {
  let s = searchers.get(spec);
  if (!s) {
    const labels = [...spec.labels].sort((a, b) => b.text.length - a.text.length);
    const alt = labels.map((l) => `(${l.text.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(String.raw`[\s.\-]*`)})`).join('|');
    s = { re: new RegExp(String.raw`(?<![\p{L}\d])(?:${alt || '(?!)'})(?![\p{L}\d])`, 'u'), labels, mayHold: anchorTest(labels.map((l) => l.text), SEARCH_BOUNDS) };
    searchers.set(spec, s);
  }
  return s;
}

/** The first of the field's labels in folded text (words may be joined by spaces, dots or dashes): where and how long, or null. */
export function matchLabelIn(spec: FieldSpec, folded: string): { index: number; length: number; weight: number } | null {
  const { re, labels, mayHold } = searcherOf(spec);
  if (!mayHold(folded)) return null;
  const m = re.exec(folded);
  if (!m) return null;
  const which = m.slice(1).findIndex((g) => g !== undefined);
  return { index: m.index, length: m[0].length, weight: labels[which]?.weight ?? 1 };
}

/** Where one of the field's labels first appears in folded text, or -1. */
export function findLabelIn(spec: FieldSpec, folded: string): number {
  return matchLabelIn(spec, folded)?.index ?? -1;
}
