// The forge without a model. Iteration 1 infers a candidate from the samples:
// - the schema their key-values, tables and identifiers share (fields in at least half of them);
// - each field of the expected outputs, labelled by the printed key whose value equals the
//   expected value on the most samples;
// - the rules that hold on every sample: required, pattern (the value's shape), date, IBAN
//   checksum, and `a + b = c` between amounts.
// Each later iteration refines the last one: the next label for an expected field that disagreed,
// without the fields most samples leave empty and without the rules that failed on a sample.
import { proposeDraft, commonSchema } from '../classify/draft-schema.js';
import { runEntities } from '../extract/index.js';
import { isCurrencyWord } from '../entities/money.js';
import { isPaymentLabel } from '../extract/receipt-total.js';
import { foldLabel } from '../classify/fingerprint.js';
import { type Evaluation, type ForgeCandidate, type ForgeSample, amountOf, datesOf, evaluate, sameValue } from './score.js';
import type { ForgeProposer, Proposal, ProposerContext } from './proposer.js';

type Props = Record<string, Record<string, unknown>>;

const isEmpty = (v: unknown) => v === null || v === undefined || v === '';

// A field whose name says it holds an identifier keeps its digits as text ("12345").
const ID_NAME = /(^|_)(id|ids|no|nr|num|number|code|ref|reference|phone|tel|fax|zip|postcode|postal|account|iban|bic|swift|vat|tin|gst|sku|ean|barcode|serial)($|_)/i;
// A whole number as a count prints it: no leading zero, no separator, at most six digits.
const INTEGER_TEXT = /^\s*-?(?:0|[1-9]\d{0,5})\s*$/;

/**
 * The JSON Schema type of an expected field, in the shapes templates use: what every non-empty
 * expected value is. Values written as the document prints them ("55.10", "RM 1,234.50",
 * "12/03/2018") are amounts and dates all the same, so the template extracts a number or a date
 * (normalised, and checked by the `date` and arithmetic rules) rather than the text around it.
 * One value of another kind keeps the field a string.
 */
export function typeOfExpected(field: string, values: unknown[]): Record<string, unknown> {
  const given = values.filter((v) => !isEmpty(v) && typeof v !== 'object');
  if (!given.length) return { type: 'string' };
  if (given.every((v) => typeof v === 'number')) return { type: 'number' };
  if (given.every((v) => typeof v === 'string' && datesOf(v).length > 0)) return { type: 'string', format: 'date' };
  // Digits after a leading zero ("0042") are a code, whatever the field's name.
  if (given.some((v) => typeof v === 'string' && (/(^|[^\d.,])0\d/.test(v) || ID_NAME.test(field)))) return { type: 'string' };
  if (given.every((v) => typeof v === 'string' && INTEGER_TEXT.test(v))) return { type: 'integer' };
  if (given.every((v) => typeof v === 'number' || amountOf(v) !== null)) return { type: 'number' };
  return { type: 'string' };
}

/** Printed labels whose value is the expected one, best first (how many samples agree). */
export function labelOptions(field: string, samples: ForgeSample[]): string[] {
  const votes = new Map<string, number>();
  for (const s of samples) {
    const want = s.expected?.[field];
    if (want === undefined || want === null || typeof want === 'object') continue;
    const seen = new Set<string>();
    const paired = new Set<string>();
    for (const page of s.canonical.pages) {
      for (const kv of page.key_values) {
        // (?<!…): the strip starts where a run starts, not at each of its characters (quadratic).
        const label = kv.key.replace(/(?<![:\s])[:\s]+$/, '').trim();
        if (label && !seen.has(label) && sameValue(want, kv.value)) {
          seen.add(label);
          paired.add(label);
        }
      }
    }
    for (const line of s.canonical.text.split('\n')) {
      const at = line.indexOf(String(want));
      if (at <= 0) continue;
      const label = labelBefore(line.slice(0, at));
      if (label && !seen.has(label)) seen.add(label);
    }
    // A label the layout paired with the value counts more than text found before it on a line.
    for (const label of seen) votes.set(label, (votes.get(label) ?? 0) + (paired.has(label) ? 1.5 : 1));
  }
  // A payment line (CASH, CHANGE, VISA …) prints the total's amount whenever the total was paid
  // exactly, but it labels the amount tendered: it comes after every other label, unless the
  // field wanted is itself a payment ("cash", "change").
  const payment = (label: string) => !isPaymentLabel(field.replace(/_/g, ' ')) && isPaymentLabel(label);
  return [...votes]
    .sort((a, b) => Number(payment(a[0])) - Number(payment(b[0])) || b[1] - a[1] || a[0].length - b[0].length)
    .map(([label]) => label);
}

const MAX_LABEL_WORDS = 6;
/** Separators between a label and what follows it ("TOTAL : RM", "GST:RM", "NO#"). */
const isSeparator = (ch: string) => ch === ':' || ch === '#' || /\s/.test(ch);

/**
 * The label without the currencies printed after it, before its value ("TOTAL : RM", "TOTAL INCL.
 * GST:RM", "TOTAL THB", "TOTAL€"), and without the separators it ends with. Walked back from the
 * end by position, each character looked at once or twice: a regex with a lazy head, run again
 * for each word taken off, was quadratic in a long run of separators or of currencies.
 */
function withoutTrailingCurrency(label: string): string {
  let end = label.length;
  for (;;) {
    while (end > 0 && isSeparator(label[end - 1]!)) end--;
    let wordStart = end;
    while (wordStart > 0 && !isSeparator(label[wordStart - 1]!)) wordStart--;
    let headEnd = wordStart;
    while (headEnd > 0 && isSeparator(label[headEnd - 1]!)) headEnd--;
    const word = label.slice(wordStart, end);
    if (headEnd > 0) {
      // The last word after a separator: "GST:RM" → "GST" and "RM".
      if (!isCurrencyWord(word)) return label.slice(0, end);
      end = headEnd;
      continue;
    }
    // One word left. A currency alone ("RM" above its amount) labels nothing.
    if (isCurrencyWord(word)) return '';
    // A symbol set close to it goes ("TOTAL€" → "TOTAL"), unless separators stand before the word.
    const symbols = wordStart === 0 ? /(?<!\p{Sc})\p{Sc}+$/u.exec(word) : null;
    if (!symbols || symbols.index === 0) return label.slice(0, end);
    end = wordStart + symbols.index;
  }
}

/**
 * The label printed just before a value on a line of text, without a currency: the text itself
 * when it is a few words, else the words after its last figure (the value of the line before, in
 * text that runs lines together): "… ROUNDING : -0.02 TOTAL : RM" → "TOTAL". More than a few
 * words even then is no label.
 */
function labelBefore(text: string): string | null {
  const words = (text.split(/\s{2,}/).pop() ?? '').split(/\s+/).filter(Boolean);
  // A short label keeps its own figures ("VAT 23%"); a longer run is cut after its last figure.
  let after = words.length;
  if (words.length > MAX_LABEL_WORDS) while (after > 0 && !/\d/.test(words[after - 1]!)) after--;
  else after = 0;
  const label = withoutTrailingCurrency(words.slice(after).join(' ')).trim();
  if (!/\p{L}{2}/u.test(label) || label.split(' ').length > MAX_LABEL_WORDS) return null;
  return label;
}

/** "F 1234K20/1234/12" → "^[A-Z] \d{4}[A-Z]\d{2}/\d{4}/\d{2}$" when every sample has that shape. */
export function shapePattern(values: string[]): string | null {
  const shapeOf = (v: string) =>
    v.replace(/[A-Z]/g, 'A').replace(/[a-z]/g, 'a').replace(/\d/g, '9');
  const shapes = new Set(values.map(shapeOf));
  if (shapes.size !== 1) return null;
  const shape = [...shapes][0]!;
  if (shape.length > 60 || !/[A9]/.test(shape)) return null;
  const cls: Record<string, string> = { A: '[A-Z]', a: '[a-z]', '9': '\\d' };
  let out = '';
  for (const run of shape.match(/(.)\1*/g) ?? []) {
    const c = run[0]!;
    const unit = cls[c] ?? c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    out += run.length > 1 ? `${unit}{${run.length}}` : unit;
  }
  return `^${out}$`;
}

export function inferRules(schema: Record<string, unknown>, data: Record<string, unknown>[]): Record<string, unknown>[] {
  const props = (schema.properties ?? {}) as Props;
  const rules: Record<string, unknown>[] = [];
  const numeric: string[] = [];
  for (const [name, def] of Object.entries(props)) {
    if (def.type === 'array' || def.type === 'object') continue;
    const values = data.map((d) => d[name]);
    if (!values.length || values.some(isEmpty)) continue;
    rules.push({ kind: 'required', field: name, severity: 'warn', message: `${name} is on every sample.` });
    if (def.format === 'date') rules.push({ kind: 'date', field: name, severity: 'warn', message: `${name} is a date.` });
    else if ((def.type === 'number' || def.type === 'integer') && values.every((v) => typeof v === 'number')) numeric.push(name);
    else if (values.every((v) => typeof v === 'string')) {
      const pattern = shapePattern(values as string[]);
      if (pattern) rules.push({ kind: 'pattern', field: name, params: { pattern }, severity: 'warn', message: `${name} has the shape every sample has.` });
    }
    if (/iban/i.test(name)) rules.push({ kind: 'checksum', field: name, params: { algorithm: 'iban' }, severity: 'warn', message: `${name} is a valid IBAN.` });
  }
  const nums = numeric.slice(0, 8);
  for (const c of nums) {
    for (const a of nums) {
      for (const b of nums) {
        if (a >= b || a === c || b === c) continue;
        if (data.every((d) => Math.abs((d[a] as number) + (d[b] as number) - (d[c] as number)) <= 0.02)) {
          rules.push({ kind: 'arithmetic', params: { expression: `${a} + ${b} = ${c}`, tolerance: 0.02 }, severity: 'warn', message: `${a} + ${b} = ${c} on every sample.` });
        }
      }
    }
  }
  return rules;
}

export class DeterministicProposer implements ForgeProposer {
  readonly name = 'deterministic';
  private labels = new Map<string, { options: string[]; at: number }>();

  async propose(ctx: ProposerContext): Promise<Proposal | null> {
    const candidate = ctx.previous ? this.refine(ctx.samples, ctx.previous.candidate, ctx.previous.evaluation) : this.initial(ctx.samples, ctx.hint);
    if (!candidate) return null;
    return { ...candidate, tokens: 0, dollars: 0 };
  }

  private initial(samples: ForgeSample[], hint: string | null): { candidate: ForgeCandidate; notes: string } {
    const drafts = samples.map((s) => proposeDraft(s.canonical, runEntities(s.canonical, { generic_entities_enabled: true }), null).json_schema);
    const common = commonSchema(drafts, 0.5);
    const props = { ...((common.json_schema.properties ?? {}) as Props) };
    const expectedFields = new Set<string>();
    for (const s of samples) for (const [k, v] of Object.entries(s.expected ?? {})) if (v === null || typeof v !== 'object') expectedFields.add(k);
    const labelled: string[] = [];
    for (const field of expectedFields) {
      const options = labelOptions(field, samples);
      this.labels.set(field, { options, at: 0 });
      const label = options[0];
      // An inferred field printed under the same label gives way to the expected field.
      if (label) for (const [name, def] of Object.entries(props)) if (((def['x-aliases'] as string[] | undefined) ?? []).some((a) => foldLabel(a) === foldLabel(label))) delete props[name];
      props[field] = { ...typeOfExpected(field, samples.map((s) => s.expected?.[field])), ...(label ? { 'x-aliases': [label] } : {}) };
      if (label) labelled.push(`${field} ← "${label}"`);
    }
    const schema = { type: 'object', properties: props };
    const data = evaluate({ json_schema: schema, validation_rules: [], prompt_overlay: '' }, samples).data;
    const rules = inferRules(schema, data);
    return {
      candidate: { json_schema: schema, validation_rules: rules, prompt_overlay: hint ?? '' },
      notes: `Schema from ${samples.length} sample(s): ${common.kept.length} shared field(s) kept, ${common.dropped.length} dropped; ${labelled.length ? `expected fields labelled ${labelled.join(', ')}` : 'no expected outputs'}; ${rules.length} rule(s) hold on every sample.`,
    };
  }

  private refine(samples: ForgeSample[], last: ForgeCandidate, evaluation: Evaluation): { candidate: ForgeCandidate; notes: string } | null {
    const props = { ...((last.json_schema.properties ?? {}) as Props) };
    const changes: string[] = [];
    const disagreeing = new Set(evaluation.disagreements.map((d) => d.field));
    for (const field of disagreeing) {
      const state = this.labels.get(field);
      const wanted = samples.map((x) => x.expected?.[field]).filter((v): v is string => typeof v === 'string');
      const pattern = props[field]?.type === 'string' && !props[field]?.pattern && wanted.length ? shapePattern(wanted) : null;
      if (pattern) {
        // Tighten first: the value's shape, as every expected value has it.
        props[field] = { ...props[field], pattern };
        changes.push(`${field} takes the value of shape ${pattern}`);
      } else if (state && state.at + 1 < state.options.length) {
        state.at++;
        props[field] = { ...props[field], 'x-aliases': [state.options[state.at]!] };
        changes.push(`${field} now labelled "${state.options[state.at]}"`);
      }
    }
    for (const [name, share] of Object.entries(evaluation.coverage)) {
      if (share < 0.5 && !this.labels.has(name) && props[name]) {
        delete props[name];
        changes.push(`dropped ${name} (empty on most samples)`);
      }
    }
    const rules = last.validation_rules.filter((rule, i) => {
      if (!evaluation.failedRules.includes(i)) return true;
      changes.push(`dropped rule ${String(rule.kind)}${rule.field ? ` on ${String(rule.field)}` : ''}`);
      return false;
    });
    const alive = rules.filter((r) => !r.field || props[r.field as string]);
    if (!changes.length) return null;
    return { candidate: { json_schema: { type: 'object', properties: props }, validation_rules: alive, prompt_overlay: last.prompt_overlay }, notes: `Refined: ${changes.join('; ')}.` };
  }
}
