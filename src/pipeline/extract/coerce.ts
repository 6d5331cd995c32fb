// Reading a field's value out of the text that follows its label (or a table cell, or a
// key-value pair's value), by the field's type: where the value starts and ends in that text, and
// its normalised form.
import { type DateHit, type DateOrder, findDates } from '../entities/dates.js';
import { bracketed, currencyCode, findMoney } from '../entities/money.js';
import { matchesOf } from '../entities/normalize.js';
import { NUMBER_SOURCE, parseNumber } from '../entities/numbers.js';
import { isValidIban } from '../entities/checksums.js';
import { type TaxIdPrefixMode, readTaxId, taxIdValue } from '../entities/tax-ids.js';
import type { FieldSpec } from './schema-fields.js';
import { compileLinear } from '../../lib/linear-regex.js';

export interface Coerced {
  value: unknown;
  /** Character range of the value in the text it was read from. */
  start: number;
  end: number;
  /** How cleanly the text read as the type (1 = exactly; lower when the value had to be picked out). */
  fit: number;
}

export interface CoerceContext {
  dateOrder: DateOrder | null;
  /** How an ambiguous date is guessed when nothing proves the order (recognize.ts DocumentHints). */
  dateOrderGuess: DateOrder | null;
  currency: string | null;
  country: string | null;
  taxIdPrefixMode: TaxIdPrefixMode;
}

const NUMBER_RE = new RegExp(NUMBER_SOURCE, 'g');
const ID_TOKEN = /[A-Za-z0-9][A-Za-z0-9/_.\-#]*[A-Za-z0-9]|[A-Za-z0-9]/g;
const SPACED_PREFIX = /^\s*[A-Z]{1,3} (?=[A-Z0-9]*\d)[A-Z0-9]+(?:[/-][A-Z0-9]+)+(?![\w/-])/;
// An address starts where its run of local-part characters starts (the first match always does):
// from each character of a long run without an "@", the run was scanned again (quadratic).
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}/;
const URL_RE = /(?:https?:\/\/|www\.)[^\s|]+|(?:[a-z0-9-]+\.)+[a-z]{2,6}(?:\/[^\s|]*)?/i;
const IBAN = /[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?/;
const BIC = /\b[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b/;
const PHONE = /(?:\+|00)?\(?\d[\d\s().\-/]{5,18}\d/;
const TRUE = /^(?:yes|y|true|ja|oui|si|sí|x|✓|✔|1)$/i;
const FALSE = /^(?:no|n|false|nein|non|0)$/i;

/** A phone label before a number: what follows is a phone number. */
const PHONE_LABEL = /\b(?:phone|ph|tel|telephone|telefon|fax|mobile|mob|cell|hp|contact)(?:\s*(?:no|nr|number))?\.?\s*[:#.]?\s*$/i;

/** Where a typed value may start: within this many characters after the label. */
const NEAR = 40;

function leading(text: string): number {
  return text.length - text.trimStart().length;
}

function numeric(spec: FieldSpec, text: string, ctx: CoerceContext, integer: boolean): Coerced | null {
  const money = findMoney(text, ctx.currency).filter((m) => !/^\s*%/.test(text.slice(m.end)));
  const explicit = money.find((m) => m.explicit);
  const kind = spec.concept?.kind;
  if ((kind === 'money' || !kind) && explicit && explicit.start <= NEAR * 2) {
    return { value: integer ? Math.round(explicit.amount) : explicit.amount, start: explicit.start, end: explicit.end, fit: 1 };
  }
  // Dates, and the count of numbers outside them, are read only when a number near the start needs them.
  let dates: DateHit[] | undefined;
  const inDate = (m: RegExpExecArray) => (dates ??= findDates(text, ctx.dateOrder, ctx.dateOrderGuess)).some((d) => d.start < m.index + m[0].length && m.index < d.end);
  let numbersOutsideDates: number | undefined;
  const re = new RegExp(NUMBER_SOURCE, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > NEAR) break;
    if (inDate(m)) continue;
    if (/\d[./-]$/.test(text.slice(0, m.index))) continue;
    const after = text.slice(m.index + m[0].length);
    // A date, a percentage (for a non-percent field) or part of a longer code is not the number.
    if (/^[./-]\d/.test(after) || /^\d/.test(after)) continue;
    if (kind !== 'percent' && /^\s?%/.test(after)) continue;
    if (kind === 'money' && /^\s?(?:x|×|night|nights|pcs|stk|qty)\b/i.test(after)) continue;
    // No amount: a number inside a code ("AAACW8725FSD001"), one after a phone label, or a long
    // run of digits without a separator, shaped like a phone or account number ("8756390642").
    if (kind === 'money' && (/\p{L}$/u.test(text.slice(0, m.index)) && /^\p{L}/u.test(after) || PHONE_LABEL.test(text.slice(0, m.index)) || /^[-\u2212]?\s?\d{10,}$/.test(m[0].trim()))) continue;
    const parsed = parseNumber(m[0]);
    if (parsed === null) continue;
    // "(450.00)": a bracketed amount is negative.
    const value = kind === 'money' && parsed > 0 && bracketed(text, m.index + leading(m[0]), m.index + m[0].length) ? -parsed : parsed;
    if (integer && !Number.isInteger(value)) continue;
    const skipped = text.slice(0, m.index).trim();
    let fit = skipped === '' || /^[^\p{L}\d]*$/u.test(skipped) || currencyCode(skipped) ? 1 : 0.85;
    // An amount without its currency, or one of several numbers in a row, is less certain.
    if (kind === 'money' && !currencyCode(skipped) && !/^\s?[€$£¥₹]|^\s?[A-Z]{3}\b/.test(after)) fit *= 0.92;
    numbersOutsideDates ??= matchesOf(NUMBER_RE, text).filter((n) => !inDate(n)).length;
    if (numbersOutsideDates >= 3) fit *= 0.88;
    return { value, start: m.index + leading(m[0]), end: m.index + m[0].length, fit };
  }
  return null;
}

function firstMatch(text: string, re: RegExp, near = NEAR): { start: number; end: number; text: string } | null {
  const m = re.exec(text);
  if (!m || m.index > near) return null;
  return { start: m.index, end: m.index + m[0].length, text: m[0] };
}

/** A short string value: up to the next column gap (" | "), sentence end or `max` characters. */
function phrase(text: string, max = 120): { start: number; end: number } | null {
  const start = leading(text);
  let end = text.length;
  const stop = /\s\|\s|\s{3,}/.exec(text.slice(start));
  if (stop) end = start + stop.index;
  if (end - start > max) {
    const cut = text.lastIndexOf(' ', start + max);
    end = cut > start ? cut : start + max;
  }
  while (end > start && /[\s,;:|]/.test(text[end - 1]!)) end--;
  return end > start ? { start, end } : null;
}

/** The first `n` runs of non-space characters (as `[...text.matchAll(/\S+/g)].slice(0, n)`). */
function firstTokens(text: string, n: number): RegExpExecArray[] {
  const re = /\S+/g;
  const out: RegExpExecArray[] = [];
  for (let m = re.exec(text); m && out.length < n; m = re.exec(text)) out.push(m);
  return out;
}

export function coerce(spec: FieldSpec, text: string, ctx: CoerceContext): Coerced | null {
  if (!text.trim()) return null;
  const id = spec.concept?.id;
  switch (spec.type) {
    case 'date': {
      const d = findDates(text, ctx.dateOrder, ctx.dateOrderGuess)[0];
      if (!d || d.start > NEAR) return null;
      return { value: d.value, start: d.start, end: d.end, fit: d.ambiguous ? 0.8 : d.start <= 3 ? 1 : 0.9 };
    }
    case 'number':
      return numeric(spec, text, ctx, false);
    case 'integer':
      return numeric(spec, text, ctx, true);
    case 'boolean': {
      const token = /\S+/.exec(text);
      if (!token) return null;
      if (TRUE.test(token[0])) return { value: true, start: token.index, end: token.index + token[0].length, fit: 1 };
      if (FALSE.test(token[0])) return { value: false, start: token.index, end: token.index + token[0].length, fit: 1 };
      return null;
    }
    default:
      break;
  }
  if (spec.enum) {
    const folded = text.toLowerCase();
    for (const option of spec.enum) {
      if (typeof option !== 'string') continue;
      const at = folded.indexOf(option.toLowerCase());
      if (at >= 0 && at <= NEAR) return { value: option, start: at, end: at + option.length, fit: 1 };
    }
    return null;
  }
  if (spec.pattern) {
    // The schema's `pattern` says what the value looks like: the first text after the label of that shape.
    const m = compileLinear(spec.pattern, 'u').find(text);
    return m && m.index <= NEAR ? { value: m.text, start: m.index, end: m.end, fit: 1 } : null;
  }
  if (spec.format === 'email' || id === 'email') {
    const m = firstMatch(text, EMAIL, 80);
    return m ? { value: m.text.toLowerCase(), start: m.start, end: m.end, fit: 1 } : null;
  }
  if (spec.format === 'uri' || spec.format === 'url' || id === 'website') {
    const m = firstMatch(text, URL_RE, 80);
    // (?<!…): the strip starts where a run of punctuation starts, not at each of its characters (quadratic).
    const value = m?.text.replace(/(?<![.,;:)])[.,;:)]+$/, '');
    return m && value !== undefined ? { value, start: m.start, end: m.start + value.length, fit: 1 } : null;
  }
  if (id === 'currency') {
    const money = findMoney(text).find((m) => m.explicit && m.currency);
    if (money) return { value: money.currency, start: money.start, end: money.end, fit: 1 };
    const token = /\S+/.exec(text);
    const code = token ? currencyCode(token[0]) : null;
    return code && token ? { value: code, start: token.index, end: token.index + token[0].length, fit: 1 } : null;
  }
  if (id === 'iban') {
    const m = firstMatch(text, IBAN);
    if (!m) return null;
    return { value: m.text.replace(/\s/g, ''), start: m.start, end: m.end, fit: isValidIban(m.text) ? 1 : 0.6 };
  }
  if (id === 'bic') {
    const m = firstMatch(text, BIC);
    return m ? { value: m.text, start: m.start, end: m.end, fit: 1 } : null;
  }
  if (id === 'tax_id') {
    // The longest run of up to six tokens that reads as a tax id.
    const words = firstTokens(text, 8);
    for (let i = 0; i < Math.min(3, words.length); i++) {
      for (let n = Math.min(6, words.length - i); n >= 1; n--) {
        const start = words[i]!.index!;
        const last = words[i + n - 1]!;
        const end = last.index! + last[0].replace(/[,;.)]+$/, '').length;
        const raw = text.slice(start, end);
        if (!/\d{4}/.test(raw.replace(/[\s.\-/]/g, ''))) continue;
        const match = readTaxId(raw, ctx.country);
        if (match && (match.checked !== false)) return { value: taxIdValue(match, raw, ctx.taxIdPrefixMode), start, end, fit: match.checked ? 1 : 0.85 };
      }
    }
    return null;
  }
  if (id === 'phone') {
    const m = firstMatch(text, PHONE);
    return m ? { value: m.text.trim(), start: m.start, end: m.end, fit: 0.9 } : null;
  }
  if (id === 'postal_code') {
    const m = firstMatch(text, /\b(?:\d{4}\s?[A-Z]{2}|\d{5}(?:-\d{4})?|\d{2}-\d{3}|\d{3}\s?\d{3}|\d{4}|[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2})\b/);
    return m ? { value: m.text, start: m.start, end: m.end, fit: 0.9 } : null;
  }
  if (spec.concept?.kind === 'id' || /(?:^|\s)(?:number|no|nr|id|code|ref|num)$/.test(spec.key.replace(/[_-]/g, ' ').toLowerCase())) {
    // A short capital prefix set apart from a structured number ("F 1234K20/1234/12", "FV 12/2020")
    // belongs to it; where the number starts is then a guess, so the reading stays below the floor.
    const prefixed = SPACED_PREFIX.exec(text);
    if (prefixed && prefixed.index <= NEAR) return { value: prefixed[0].trim(), start: prefixed.index + leading(prefixed[0]), end: prefixed.index + prefixed[0].length, fit: 0.7 };
    ID_TOKEN.lastIndex = 0;
    for (let m = ID_TOKEN.exec(text), n = 0; m && n < 4; m = ID_TOKEN.exec(text), n++) {
      if (m.index > NEAR) break;
      if (/\d/.test(m[0]) || (m[0].length >= 4 && /^[A-Z0-9_\-/]+$/.test(m[0]))) {
        return { value: m[0], start: m.index, end: m.index + m[0].length, fit: n === 0 ? 1 : 0.8 };
      }
    }
    return null;
  }
  if (spec.concept?.kind === 'percent') {
    const m = /(\d{1,3}(?:[.,]\d{1,3})?)\s?%?/.exec(text);
    if (!m || m.index > NEAR) return null;
    return { value: parseNumber(m[1]!), start: m.index, end: m.index + m[0].length, fit: 1 };
  }
  const p = phrase(text);
  if (!p) return null;
  return { value: text.slice(p.start, p.end), start: p.start, end: p.end, fit: 0.9 };
}
