// Deterministic entity recognisers over the canonical document. Every entity is normalised
// (`value`) and located (page + bbox of the words it came from).
import { type CountryCode, findNumbers } from 'libphonenumber-js/max';
import { isValidIban, luhnValid, repairedIban } from './checksums.js';
import { type DateOrder, GUESSED_ORDER_CONFIDENCE, findDates, inferDateOrder } from './dates.js';
import { CARD_LABELS, LABEL_GAP, PHONE_LABELS, REFERENCE_LABELS, TAX_LABELS } from './labels.js';
import { AnchorScan } from './anchors.js';
import { type MoneyHit, findMoney } from './money.js';
import { escapeRegExp, matchesOf } from './normalize.js';
import { findOrganisations } from './organisations.js';
import { countryOfTaxLabel, type TaxIdPrefixMode, compactTaxId, readTaxId, taxIdValue } from './tax-ids.js';
import { type DocInput, type TextLine, locateWithConfidence, textLines } from './text.js';
import type { BBox } from '../canonical/model.js';

export type EntityType =
  | 'date'
  | 'money'
  | 'percentage'
  | 'email'
  | 'phone'
  | 'url'
  | 'iban'
  | 'card_number'
  | 'tax_id'
  | 'postal_code'
  | 'organization'
  | 'invoice_number'
  | 'order_number'
  | 'customer_number'
  | 'reference_number';

export const ENTITY_TYPES: readonly EntityType[] = [
  'date', 'money', 'percentage', 'email', 'phone', 'url', 'iban', 'card_number', 'tax_id', 'postal_code', 'organization',
  'invoice_number', 'order_number', 'customer_number', 'reference_number',
];

/** decisions.md `result.entities[]`. */
export interface Entity {
  type: EntityType;
  text: string;
  value: unknown;
  page: number;
  bbox: BBox;
  confidence: number;
}

export interface EntityOptions {
  taxIdPrefixMode?: TaxIdPrefixMode;
  /** Day/month order for ambiguous numeric dates when the document does not prove one. */
  dateOrder?: DateOrder | null;
}

/** What the document says about itself, read once before recognising (country, currency, date order). */
export interface DocumentHints {
  country: string | null;
  currency: string | null;
  dateOrder: DateOrder | null;
  /** The order an ambiguous date is guessed in when nothing proves one: month-first on an American document. */
  dateOrderGuess: DateOrder | null;
}

interface Hit {
  type: EntityType;
  start: number;
  end: number;
  value: unknown;
  confidence: number;
}

// Higher wins an overlap between two value entities (an IBAN is not also a phone number).
const PRIORITY: Partial<Record<EntityType, number>> = {
  email: 10, url: 9, iban: 9, tax_id: 8, card_number: 7, date: 6, percentage: 5, money: 4, phone: 3, postal_code: 2,
};
// Label-led and name entities may overlap value entities: "Invoice no. 42183017" is both.
const INDEPENDENT = new Set<EntityType>(['organization', 'invoice_number', 'order_number', 'customer_number', 'reference_number']);

const EMAIL = /(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}(?![\w-])/g;
const TLDS = String.raw`com|org|net|de|fr|nl|es|it|eu|uk|co\.uk|io|in|my|sg|info|biz|be|at|ch|pl|se|dk|no|fi|pt|ie|us|ca|au`;
const URL_RE = new RegExp(String.raw`\b(?:https?:\/\/|www\.)[^\s<>"'|]+|(?<![@\w.-])(?:[a-z0-9-]+\.)+(?:${TLDS})(?:\/[^\s<>"'|]*)?(?![\w@-])`, 'gi');
// What every URL_RE match holds (a scheme, "www." or a dot before a known domain): most lines with a dot hold none.
const URL_HINT = new RegExp(String.raw`https?:\/\/|www\.|\.(?:${TLDS})`, 'i');
const IBAN_RE = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b/g;
const CARD_RE = /(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])/g;
const PERCENT_RE = /(?<![\d.,])([-+]?\d{1,3}(?:[.,]\d{1,4})?)\s?(?:%|percent\b|pct\b|prozent\b|pour\s?cent\b|por\s?ciento\b)/gi;
// A phone label followed by a number: only such lines (or international numbers) are searched for phone numbers.
const PHONE_FOLLOWED = new RegExp(String.raw`${PHONE_LABELS.source}\s*[:.]?\s*[+(\d]`, 'iu');

// The label patterns are case-insensitive with lower-case sources. On a plain ASCII line (most
// lines) Unicode case folding changes nothing: the same pattern without flags on the line's lower
// case (its folded text) finds the same, several times faster.
const ASCII_TEXT = /^[\x00-\x7f]*$/;
const asciiTwin = (re: RegExp) => ({ re, ascii: new RegExp(re.source) });
const PHONE_FOLLOWED_TEST = asciiTwin(PHONE_FOLLOWED);
const TAX_LABELS_TEST = asciiTwin(TAX_LABELS);
const CARD_LABELS_TEST = asciiTwin(CARD_LABELS);

function hasLabel(line: TextLine, ascii: boolean, test: { re: RegExp; ascii: RegExp }): boolean {
  return ascii ? test.ascii.test(line.folded.text) : test.re.test(line.text);
}

// Words after a number that show it is not a postal code.
const NOT_PLACES = /^(?:IBAN|SWIFT|BIC|TEL|FAX|VAT|EUR|USD|GBP|INR|MYR|RM|Rs|BTW|TVA|MwSt|USt|GST|SST|TAX|Total|TOTAL|Qty|QTY|Pcs|PCS|Units?|Tage|Days|Jours|Euros?)\b/;

const CURRENCY_COUNTRY: Record<string, string> = { INR: 'IN', USD: 'US', GBP: 'GB', MYR: 'MY', PLN: 'PL', CHF: 'CH', SEK: 'SE', DKK: 'DK', NOK: 'NO', JPY: 'JP', AUD: 'AU', CAD: 'CA', SGD: 'SG' };

// Postal codes by pattern, each with the context that makes it a postal code rather than any number.
// `need` is a quick plain pattern that every match contains: a line without it is not searched.
// `country` lists the countries ("AT|CH|…") where a pattern counts, when it is not everywhere.
const POSTAL: { re: RegExp; need: RegExp; country: string; group: number; onlyIn?: Set<string> }[] = [
  // D-63571 Gelnhausen, F-75008 Paris, 75008 Paris, 81100 JOHOR BAHRU (5 digits before a capitalised place)
  { re: /(?<![\w-])(?:(?:D|F|E|I|DE|FR|ES|IT|A|CH|B|L)-)?(\d{5})(?=\s+\p{Lu}[\p{L}'-]{2,})/gu, need: /\d{5}\s/, country: '', group: 1 },
  // BANDAR BUKIT RAJA, 41050 / SETAPAK, 53200, KUALA LUMPUR (five digits after a place and a comma, ending the line or before the city)
  { re: /(?<=\p{L},\s?)(\d{5})(?=[,.]?\s*$|,\s*\p{Lu})/gu, need: /,\s?\d{5}/, country: '', group: 1 },
  // 3012 CN Rotterdam (NL)
  { re: /(?<![\w-])(\d{4}\s?[A-Z]{2})(?=\s+\p{Lu}[\p{L}'-]{2,})/gu, need: /\d{4}\s?[A-Z]{2}\s/, country: 'NL', group: 1 },
  // CA 94538, WA 98109-5210 (US state + ZIP)
  { re: /(?<=\b[A-Z]{2},?\s)(\d{5}(?:-\d{4})?)(?!\d)/g, need: /[A-Z]{2},?\s\d{5}/, country: 'US', group: 1 },
  // SW1A 1AA, EC1A 1BB (UK)
  { re: /\b([A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2})\b/g, need: /\s\d[A-Z]{2}/, country: 'GB', group: 1 },
  // New Delhi - 110001 (India: six digits after a place name and a dash)
  { re: /(?<=\p{L}\s?[-–]\s?)(\d{6}|\d{3}\s\d{3})(?!\d)/gu, need: /[-–]\s?\d{3}/, country: 'IN', group: 1 },
  // 1010 Wien, 4001 Basel, 1000 Bruxelles (four digits before a capitalised place, where codes have four digits)
  { re: /(?<![\w.,-])(\d{4})(?=\s+\p{Lu}\p{Ll}{2,})/gu, need: /\d{4}\s/, country: 'AT|CH|BE|DK|NO|LU|HU|AU|NZ|ZA|SI|BG|CY|LI', group: 1 },
  // 09-411 Płock (Poland)
  { re: /(?<![\w-])(\d{2}-\d{3})(?=\s+\p{Lu}\p{Ll}{2,})/gu, need: /\d{2}-\d{3}\s/, country: 'PL', group: 1 },
];

for (const p of POSTAL) if (p.country.includes('|')) p.onlyIn = new Set(p.country.split('|'));

// A VAT number with its country prefix (a hint of the document's country).
const PREFIXED_VAT = /(?<![A-Z0-9])(AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|GB)[ ]?[0-9][0-9A-Z .]{7,14}/g;

/**
 * The amounts of every line, without a fallback currency: read once for both the document's hints
 * and the recognisers (which give bare amounts the document's own currency).
 */
function amountsOf(lines: TextLine[]): MoneyHit[][] {
  return lines.map((line) => (/\d/.test(line.text) ? findMoney(line.text) : []));
}

const US_STATE_ZIP = /\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY),?\s\d{5}(?:-\d{4})?(?!\d)/;

function hintsOf(lines: TextLine[], amounts = amountsOf(lines)): DocumentHints {
  const countries = new Map<string, number>();
  const currencies = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);
  lines.forEach((line, i) => {
    if (!/\d/.test(line.text)) return;
    for (const m of matchesOf(IBAN_RE, line.text)) if (isValidIban(m[0])) bump(countries, m[0].slice(0, 2), 3);
    for (const m of matchesOf(PREFIXED_VAT, line.text)) {
      const t = readTaxId(m[0]);
      if (t?.printedPrefix && t.checked) bump(countries, t.country!, 2);
    }
    for (const h of amounts[i]!) if (h.explicit && h.currency) bump(currencies, h.currency);
  });
  const top = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const currency = top(currencies);
  const country = top(countries) ?? (currency ? CURRENCY_COUNTRY[currency] ?? null : null);
  // An American document (a US state and ZIP code, or dollars and no other country's IBAN or VAT
  // id) writes dates month-first: the better guess for "03/04/2024", still only a guess.
  const american = lines.some((l) => US_STATE_ZIP.test(l.text)) || (currency === 'USD' && (top(countries) ?? 'US') === 'US');
  return { country, currency, dateOrder: inferDateOrder(lines.map((l) => l.text)), dateOrderGuess: american ? 'mdy' : null };
}

/** The country, dominant currency and date order of a document. */
export function documentHints(doc: DocInput | TextLine[]): DocumentHints {
  return hintsOf(Array.isArray(doc) ? doc : textLines(doc));
}

function labelRegex(labels: string[]): RegExp {
  const alt = [...labels].sort((a, b) => b.length - a.length).map((l) => l.split(' ').map(escapeRegExp).join(String.raw`[\s.\-_/]*`)).join('|');
  return new RegExp(String.raw`(?<![\p{L}\d])(?:${alt})(?![\p{L}])${LABEL_GAP}([A-Za-z0-9][A-Za-z0-9/_.\-#]*[A-Za-z0-9]|\d)`, 'gu');
}

const REFERENCE_RES = Object.entries(REFERENCE_LABELS).map(([type, labels]) => ({ type: type as EntityType, re: labelRegex(labels) }));
// Which reference labels a line may hold: only their regexes run on it.
const REFERENCE_ANCHORS = new AnchorScan(Object.values(REFERENCE_LABELS), { before: /[\p{L}\d]/u, after: /\p{L}/u });

interface TaxHit {
  start: number;
  end: number;
  value: string;
  confidence: number;
}

/** An upper-case letter or a digit first, after one opening "(" or ":" (as `/^[A-Z0-9]/` after dropping it). */
function startsLikeTaxId(word: string): boolean {
  const c = word.charCodeAt(word[0] === '(' || word[0] === ':' ? 1 : 0);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

/**
 * Tax ids span several words as printed ("DE 232 446 240", "FR 604 219 388 61"): every run of one
 * to six words starting at each word is tried, and the longest run that reads as a tax id wins.
 */
function findTaxIds(line: TextLine, hints: DocumentHints, mode: TaxIdPrefixMode): TaxHit[] {
  const words = line.words;
  const out: TaxHit[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!startsLikeTaxId(words[i]!.text)) continue;
    let best: TaxHit | null = null;
    const start = words[i]!.start + (/^[(:]/.test(words[i]!.text) ? 1 : 0);
    let labelled: boolean | undefined;
    for (let n = 1; n <= 6 && i + n <= words.length; n++) {
      const end = words[i + n - 1]!.end - (/[),.;:]$/.test(words[i + n - 1]!.text) ? 1 : 0);
      const raw = line.text.slice(start, end);
      // A character no tax id holds stays in every longer run: none of them can read as one.
      if (!/^[A-Z0-9 .\-/]+$/.test(raw)) break;
      const compact = compactTaxId(raw);
      if (compact.length > 18) break;
      if (compact.length < 8 || !/\d{5}/.test(compact.replace(/[A-Z]/g, ''))) continue;
      const hasPrefix = /^(?:CHE|[A-Z]{2})\d/.test(compact) || /^(?:CHE|[A-Z]{2})[A-Z0-9]\d{7}/.test(compact);
      labelled ??= TAX_LABELS.test(line.text.slice(Math.max(0, start - 40), start));
      if (!hasPrefix && !labelled && !/^\d{2}[A-Z]{5}\d{4}/.test(compact)) continue;
      const match = readTaxId(raw, (labelled && countryOfTaxLabel(line.text.slice(Math.max(0, start - 24), start))) || hints.country);
      if (!match) continue;
      if (!hasPrefix && match.kind === 'vat' && match.country === null && !labelled) continue;
      if (match.kind === 'vat' && !match.checked && !labelled && !match.printedPrefix) continue;
      const confidence = match.checked ? 0.95 : labelled ? 0.8 : 0.7;
      best = { start, end, value: taxIdValue(match, raw, mode), confidence };
    }
    if (best && !out.some((o) => o.start < best!.end && best!.start < o.end)) {
      out.push(best);
      while (i + 1 < words.length && words[i + 1]!.start < best.end) i++;
    }
  }
  return out;
}

/** Phone numbers in a line: international ones anywhere, national ones right after a phone label. */
function phoneHits(text: string, country: string | null): Hit[] {
  const out: Hit[] = [];
  try {
    for (const found of findNumbers(text, { defaultCountry: (country ?? undefined) as CountryCode | undefined, v2: true })) {
      const international = /^\s*(?:\+|00)/.test(text.slice(found.startsAt, found.endsAt));
      const labelled = PHONE_LABELS.test(text.slice(Math.max(0, found.startsAt - 24), found.startsAt));
      if (!international && !labelled) continue;
      out.push({ type: 'phone', start: found.startsAt, end: found.endsAt, value: found.number.number, confidence: labelled ? 0.9 : 0.7 });
    }
  } catch {
    /* libphonenumber rejects some inputs outright: no phone numbers in this line */
  }
  return out;
}

/** `phones`: the phone numbers of the lines searched so far in this document, by text. */
function recogniseLine(line: TextLine, hints: DocumentHints, options: EntityOptions, amounts: MoneyHit[], phones: Map<string, Hit[]>): Hit[] {
  const text = line.text;
  const hits: Hit[] = [];
  const push = (type: EntityType, start: number, end: number, value: unknown, confidence: number) => hits.push({ type, start, end, value, confidence });

  const digits = /\d/.test(text);
  const ascii = ASCII_TEXT.test(text);
  if (digits) for (const d of findDates(text, hints.dateOrder ?? options.dateOrder ?? null, hints.dateOrderGuess)) push('date', d.start, d.end, d.value, d.ambiguous ? GUESSED_ORDER_CONFIDENCE : 0.95);
  if (digits) for (const m of amounts) {
    push('money', m.start, m.end, { amount: m.amount, currency: m.explicit ? m.currency : hints.currency }, m.explicit ? 0.92 : 0.5);
  }
  if (digits) for (const m of matchesOf(PERCENT_RE, text)) {
    const v = Number(m[1]!.replace(',', '.'));
    if (Number.isFinite(v)) push('percentage', m.index!, m.index! + m[0].length, v, 0.95);
  }
  if (text.includes('@')) for (const m of matchesOf(EMAIL, text)) push('email', m.index!, m.index! + m[0].length, m[0].toLowerCase(), 0.97);
  if (text.includes('.') && URL_HINT.test(text)) for (const m of matchesOf(URL_RE, text)) {
    // (?<!…): the strip starts where a run of punctuation starts, not at each of its characters (quadratic).
    const raw = m[0].replace(/(?<![.,;:)\]])[.,;:)\]]+$/, '');
    push('url', m.index!, m.index! + raw.length, raw, /^https?:|^www\./i.test(raw) ? 0.95 : 0.75);
  }
  if (digits) for (const m of matchesOf(IBAN_RE, text)) {
    if (isValidIban(m[0])) push('iban', m.index!, m.index! + m[0].length, m[0].replace(/\s/g, ''), 0.98);
    else {
      // Read by OCR with a look-alike glyph (RAB0 for RABO): its check digits confirm the repair.
      const repaired = repairedIban(m[0]);
      if (repaired) push('iban', m.index!, m.index! + m[0].length, repaired, 0.9);
    }
  }
  if (/\d{4}/.test(text)) for (const m of matchesOf(CARD_RE, text)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 13 && digits.length <= 19 && /^[3-6]/.test(digits) && luhnValid(digits)) {
      push('card_number', m.index!, m.index! + m[0].length, digits, hasLabel(line, ascii, CARD_LABELS_TEST) ? 0.9 : 0.55);
    }
  }
  // Tax ids: prefixed ones anywhere; unprefixed ones only after a tax label.
  if (/\d{2}/.test(text) && (/[A-Z]{2}[ .-]?\d|\d{2}[A-Z]{5}/.test(text) || hasLabel(line, ascii, TAX_LABELS_TEST))) for (const t of findTaxIds(line, hints, options.taxIdPrefixMode ?? 'infer')) push('tax_id', t.start, t.end, t.value, t.confidence);
  // Phone numbers: lines with an international number or a phone label followed by a number (which
  // needs a digit, "+" or "(": most lines have none). The search is by far the slowest recogniser:
  // a line printed again (a letterhead, a footer on every page) is searched once.
  if (/\+\s?\(?\d|\b00\d/.test(text) || ((digits || /[+(]/.test(text)) && hasLabel(line, ascii, PHONE_FOLLOWED_TEST))) {
    let found = phones.get(text);
    if (!found) {
      found = phoneHits(text, hints.country);
      phones.set(text, found);
    }
    for (const h of found) hits.push({ ...h });
  }
  for (const p of digits ? POSTAL : []) {
    if (p.onlyIn && !p.onlyIn.has(hints.country ?? '')) continue;
    if (!p.need.test(text)) continue;
    for (const m of matchesOf(p.re, text)) {
      const code = m[p.group]!;
      const after = text.slice(m.index! + m[0].length).trimStart().split(/\s/)[0] ?? '';
      if (NOT_PLACES.test(after) || /\b(?:HRB|HRA|KvK|RCS|Nr\.?|No\.?)\s*$/i.test(text.slice(0, m.index!))) continue;
      const start = m.index! + m[0].indexOf(code);
      push('postal_code', start, start + code.length, code.toUpperCase().replace(/\s+/, ' '), 0.6);
    }
  }
  for (const o of findOrganisations(text)) push('organization', o.start, o.end, o.name, 0.75);
  const { text: folded, map } = line.folded;
  const referenceLabels = digits ? REFERENCE_ANCHORS.scan(folded) : [];
  for (let i = 0; i < referenceLabels.length; i++) {
    if (!referenceLabels[i]) continue;
    const { type, re } = REFERENCE_RES[i]!;
    for (const m of matchesOf(re, folded)) {
      const valueFolded = m[1]!;
      if (!/\d/.test(valueFolded)) continue;
      const fStart = m.index! + m[0].length - valueFolded.length;
      const start = map[fStart]!;
      const end = map[fStart + valueFolded.length - 1]! + 1;
      if (hits.some((h) => h.type === type && h.start < end && start < h.end)) continue;
      push(type, start, end, text.slice(start, end), 0.85);
    }
  }
  return resolveOverlaps(hits);
}

function resolveOverlaps(hits: Hit[]): Hit[] {
  const values = hits.filter((h) => !INDEPENDENT.has(h.type));
  values.sort((a, b) => (PRIORITY[b.type] ?? 0) - (PRIORITY[a.type] ?? 0) || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Hit[] = [];
  for (const h of values) if (!kept.some((k) => k.start < h.end && h.start < k.end)) kept.push(h);
  return [...kept, ...hits.filter((h) => INDEPENDENT.has(h.type))].sort((a, b) => a.start - b.start || a.end - b.end);
}

export interface LocatedEntity extends Entity {
  /** The line it was found on and its character range (for the extractor; not serialised). */
  line: TextLine;
  start: number;
  end: number;
}

/** Every entity of the document, in reading order, with the line each came from. */
export function recogniseLines(lines: TextLine[], options: EntityOptions = {}, hints?: DocumentHints): LocatedEntity[] {
  const amounts = amountsOf(lines);
  return locatedEntities(lines, options, hints ?? hintsOf(lines, amounts), amounts);
}

/** The document's hints (documentHints) and its entities (recogniseLines), reading each line's amounts once for both. */
export function recogniseDocument(lines: TextLine[], options: EntityOptions = {}): { hints: DocumentHints; entities: LocatedEntity[] } {
  const amounts = amountsOf(lines);
  const hints = hintsOf(lines, amounts);
  return { hints, entities: locatedEntities(lines, options, hints, amounts) };
}

function locatedEntities(lines: TextLine[], options: EntityOptions, hints: DocumentHints, amounts: MoneyHit[][]): LocatedEntity[] {
  const out: LocatedEntity[] = [];
  const phones = new Map<string, Hit[]>();
  lines.forEach((line, i) => {
    for (const hit of recogniseLine(line, hints, options, amounts[i]!, phones)) {
      const { evidence: where, confidence: wordConfidence } = locateWithConfidence(line, hit.start, hit.end);
      const confidence = Math.round(hit.confidence * wordConfidence * 1000) / 1000;
      out.push({ type: hit.type, text: where.text, value: hit.value, page: where.page, bbox: where.bbox, confidence, line, start: hit.start, end: hit.end });
    }
  });
  return out;
}

/** decisions.md `result.entities`: every entity of the document, normalised and located. */
export function recogniseEntities(doc: DocInput, options: EntityOptions = {}): Entity[] {
  return recogniseLines(textLines(doc), options).map(publicEntity);
}

export function publicEntity(e: Entity): Entity {
  return { type: e.type, text: e.text, value: e.value, page: e.page, bbox: e.bbox, confidence: e.confidence };
}

