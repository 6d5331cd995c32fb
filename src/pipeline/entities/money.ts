// Money amounts with their currency, from symbols (€ $ £ ¥ ₹ …) and ISO codes (EUR, USD, RM …)
// before or after the number, in any of the number formats of numbers.ts. An amount printed
// without a currency but with exactly two decimals is reported too, with lower confidence and the
// document's dominant currency (when there is one).
import { escapeRegExp, matchesOf } from './normalize.js';
import { NUMBER_SOURCE, parseNumber } from './numbers.js';

export interface MoneyHit {
  start: number;
  end: number;
  amount: number;
  currency: string | null;
  /** A currency symbol or code was printed next to the amount. */
  explicit: boolean;
}

export const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  $: 'USD',
  US$: 'USD',
  'A$': 'AUD',
  'C$': 'CAD',
  'S$': 'SGD',
  'HK$': 'HKD',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  Rs: 'INR',
  'Rs.': 'INR',
  '₩': 'KRW',
  '₺': 'TRY',
  '₽': 'RUB',
  zł: 'PLN',
  RM: 'MYR',
  Fr: 'CHF',
  'Fr.': 'CHF',
  kr: 'SEK',
  Kč: 'CZK',
  R$: 'BRL',
  Rp: 'IDR',
  '฿': 'THB',
  '₱': 'PHP',
  '₫': 'VND',
  '₪': 'ILS',
  '₦': 'NGN',
  '₴': 'UAH',
};

/**
 * The codes recognised when printed beside an amount: the ones documents print. Not every ISO
 * code, because some are words printed on receipts ("CUP 2.50", "ALL 5.00", "TOP 10").
 */
export const CODES = [
  'EUR', 'USD', 'GBP', 'INR', 'JPY', 'CHF', 'PLN', 'SEK', 'NOK', 'DKK', 'CAD', 'AUD', 'NZD', 'CNY', 'RMB', 'HKD', 'SGD', 'MYR',
  'IDR', 'THB', 'ZAR', 'BRL', 'MXN', 'RUB', 'TRY', 'CZK', 'HUF', 'RON', 'BGN', 'AED', 'SAR', 'KRW', 'PHP', 'VND', 'ILS', 'EGP',
  'NGN', 'KES', 'ARS', 'CLP', 'COP', 'PEN', 'TWD', 'PKR', 'BDT', 'LKR', 'QAR', 'KWD', 'ISK', 'UAH',
];

const CODE_ALIAS: Record<string, string> = { RMB: 'CNY' };
/** Every ISO 4217 code (the list the runtime's Intl keeps): a code given on its own is known whatever it is. */
const ISO_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
/** Symbols and printed codes by lower case: labels are compared folded ("TOTAL : RM" → "rm"). */
const PRINTED_LOWER: ReadonlySet<string> = new Set([...Object.keys(SYMBOLS), ...CODES].map((t) => t.toLowerCase()));

const symbolAlt = Object.keys(SYMBOLS)
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|');
const codeAlt = CODES.join('|');
const CUR = String.raw`(?:${symbolAlt})|(?<![A-Za-z])(?:${codeAlt})(?![A-Za-z])`;
/** A currency as printed beside an amount (symbol or code), for patterns of other modules; case-insensitive under the `i` flag. */
export const CURRENCY_SOURCE = String.raw`(?:${CUR}|\p{Sc})`;

const BEFORE = new RegExp(String.raw`(${CUR})\s?(${NUMBER_SOURCE})`, 'g');
const AFTER = new RegExp(String.raw`(?<![\w.,])(${NUMBER_SOURCE})\s?(${CUR})`, 'g');
const BARE = /(?<![\w.,/-])-?\d{1,3}(?:[.,\s]\d{3})*(?:[.,]|\. | \. ?)\d{2}(?![\d.,%]|\s?%| [.,]\s?\d)/g;

/** ISO 4217 code of a symbol or code as printed ("€" → EUR, "Rs." → INR, "usd" → USD). */
export function currencyCode(token: string): string | null {
  const t = token.trim();
  if (SYMBOLS[t]) return SYMBOLS[t]!;
  const upper = t.toUpperCase();
  if (CODES.includes(upper)) return CODE_ALIAS[upper] ?? upper;
  // Other ISO codes in capitals only: in lower case several are words ("all", "cup", "top").
  return t === upper && ISO_CODES.has(upper) ? upper : null;
}

/** A word that is a currency printed beside an amount, in any case: "RM", "usd", "€", "thb", "Rp". */
export const isCurrencyWord = (word: string): boolean => PRINTED_LOWER.has(word.trim().toLowerCase()) || /^\p{Sc}+$/u.test(word.trim());

// "$" alone could be any dollar; USD is the common reading and what invoices overwhelmingly mean.
function symbolCurrency(token: string): string | null {
  return currencyCode(token);
}

/** The range stands in brackets of its own: "(450.00)" (not "(incl. 20.00 VAT)"). */
export function bracketed(text: string, start: number, end: number): boolean {
  return text[start - 1] === '(' && text[end] === ')';
}

/** Every amount in `text`; `fallbackCurrency` is given to bare two-decimal amounts. */
export function findMoney(text: string, fallbackCurrency: string | null = null): MoneyHit[] {
  const hits: MoneyHit[] = [];
  const add = (start: number, end: number, numberText: string, currency: string | null, explicit: boolean) => {
    if (hits.some((h) => h.start < end && start < h.end)) return;
    const amount = parseNumber(numberText);
    if (amount === null) return;
    // An amount in brackets is negative, as accountants print it: "(450.00)", "(EUR 1,200.00)".
    const negated = bracketed(text, start, end) && amount > 0;
    if (negated) hits.push({ start: start - 1, end: end + 1, amount: -amount, currency, explicit });
    else hits.push({ start, end, amount, currency, explicit });
  };
  for (const m of matchesOf(BEFORE, text)) {
    add(m.index!, m.index! + m[0].length, m[2]!, symbolCurrency(m[1]!), true);
  }
  for (const m of matchesOf(AFTER, text)) {
    add(m.index!, m.index! + m[0].length, m[1]!, symbolCurrency(m[2]!), true);
  }
  for (const m of matchesOf(BARE, text)) {
    add(m.index!, m.index! + m[0].length, m[0], fallbackCurrency, false);
  }
  return hits.sort((a, b) => a.start - b.start);
}

/** The first amount of a short value, with or without currency ("€ 717,97" → 717.97). */
export function parseAmount(text: string): { amount: number; currency: string | null } | null {
  const money = findMoney(text).find((h) => h.explicit) ?? findMoney(text)[0];
  if (money) return { amount: money.amount, currency: money.currency };
  const m = new RegExp(NUMBER_SOURCE).exec(text);
  if (!m) return null;
  const amount = parseNumber(m[0]);
  return amount === null ? null : { amount, currency: null };
}
