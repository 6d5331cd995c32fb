// Dates in many locales and formats, normalised to ISO 8601 (YYYY-MM-DD).
// - ISO and year-first: 2014-08-03, 2014/08/03, 2014.08.03
// - numeric day/month: 03.08.2014 (dots are always day-first, as everywhere they are used),
//   08/03/2014 and 08-03-14, where the order is resolved by: a part over 12, else the order the
//   rest of the document proves (another unambiguous date), else the caller's hint; unresolved, it
//   is guessed (month-first where the document reads as American, `guess`, else day-first as in
//   most of the world) and reported as `ambiguous`.
// - month names in English, German, French, Spanish, Dutch and Italian, in both orders:
//   "7. Mai 2014", "02 Juillet 2015", "3 de marzo de 2023", "August 3, 2014", "03-Aug-2014",
//   "Mar-04-2024".
import { fold, matchesOf } from './normalize.js';

export type DateOrder = 'dmy' | 'mdy';

export interface DateHit {
  start: number;
  end: number;
  /** YYYY-MM-DD */
  value: string;
  /** The day/month order was a guess. */
  ambiguous: boolean;
  /** For a guessed order: the date the other order reads. */
  otherOrder?: string;
}

/**
 * What a date whose day/month order was a guess is held at: below the default review floor, so a
 * person confirms it (the date entity, the embedded extractor and the model path alike).
 */
export const GUESSED_ORDER_CONFIDENCE = 0.6;

const MONTHS: Record<string, number> = {};
const names: [number, string[]][] = [
  [1, ['january', 'jan', 'januar', 'janner', 'janvier', 'janv', 'enero', 'ene', 'januari', 'gennaio', 'gen']],
  [2, ['february', 'feb', 'febr', 'februar', 'fevrier', 'fevr', 'fev', 'febrero', 'februari', 'febbraio']],
  [3, ['march', 'mar', 'marz', 'maerz', 'mars', 'marzo', 'maart', 'mrt', 'mär']],
  [4, ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile']],
  [5, ['may', 'mai', 'mayo', 'mei', 'maggio', 'mag']],
  [6, ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu']],
  [7, ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug']],
  [8, ['august', 'aug', 'aout', 'agosto', 'ago', 'augustus']],
  [9, ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'set', 'settembre']],
  [10, ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott']],
  [11, ['november', 'nov', 'novembre', 'noviembre']],
  [12, ['december', 'dec', 'dezember', 'dez', 'decembre', 'diciembre', 'dic', 'dicembre']],
];
for (const [n, list] of names) for (const name of list) MONTHS[fold(name)] = n;

// Longest names first so "juillet" wins over "juil" and "jul".
const MONTH_ALT = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');

const DAY = String.raw`(?:3[01]|[12]\d|0?[1-9])`;
const ORD = String.raw`(?:st|nd|rd|th|er|e|º|°)?`;
const YEAR = String.raw`(\d{4}|'?\d{2})`;

// Patterns run over folded text (lower case, no accents), which keeps positions for ASCII dates.
// A month name needs its first three letters: a text without any is not searched for named months.
const MONTH_HINT = new RegExp([...new Set(Object.keys(MONTHS).map((name) => name.slice(0, 3)))].join('|'));

const PATTERNS: { re: RegExp; named?: true; parts: (m: RegExpExecArray) => { y: string; m: string | number; d: string; order?: 'numeric' } }[] = [
  // 2014-08-03, 2014/08/03, 2014.08.03 (year first is never ambiguous)
  { re: /(?<![\d.,])(\d{4})([-/.])(1[0-2]|0?[1-9])\2(3[01]|[12]\d|0?[1-9])(?![\d])/g, parts: (m) => ({ y: m[1]!, m: m[3]!, d: m[4]! }) },
  // 03.08.2014, 08/03/2014, 08-03-14
  { re: /(?<![\d.,/-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d]|[.,]\d)/g, parts: (m) => ({ y: m[4]!, m: m[3]!, d: m[1]!, order: 'numeric' }) },
  // 7. Mai 2014, 02 Juillet 2015, 3 de marzo de 2023, 1er juillet 2015, 03-Aug-2014, 3rd of May 2014
  // (not "1 - July 31, 2014": a spaced dash is a range, and "31" before ", 2014" is a day)
  {
    re: new RegExp(String.raw`(?<![\p{L}\d])(${DAY})${ORD}\.?(?:\s*(?:de|of)\s+|[\-/]|\s+)(${MONTH_ALT})\.?(?:\s*(?:de|del)\s+|[\s\-/,]+)${YEAR}(?!\d)(?!\s*,\s*\d{4})`, 'gu'),
    named: true,
    parts: (m) => ({ y: m[3]!, m: MONTHS[m[2]!]!, d: m[1]! }),
  },
  // Mar-04-2024, Mar/04/2024, Mar.04.24 (month name, day, year with one separator)
  {
    re: new RegExp(String.raw`(?<![\p{L}])(${MONTH_ALT})([-/.])(${DAY})\2${YEAR}(?![\d]|[.,]\d)`, 'gu'),
    named: true,
    parts: (m) => ({ y: m[4]!, m: MONTHS[m[1]!]!, d: m[3]! }),
  },
  // August 3, 2014 / Aug 3rd 2014 / August 3 , 2014
  // (The comma takes the spaces after it: \s*,?\s* split a run of spaces quadratically.)
  {
    re: new RegExp(String.raw`(?<![\p{L}])(${MONTH_ALT})\.?\s+(${DAY})(?!\d)${ORD}\s*(?:,\s*)?${YEAR}(?!\d)`, 'gu'),
    named: true,
    parts: (m) => ({ y: m[3]!, m: MONTHS[m[1]!]!, d: m[2]! }),
  },
];

function fullYear(y: string): number {
  const digits = y.replace("'", '');
  if (digits.length === 4) return Number(digits);
  const n = Number(digits);
  return n < 70 ? 2000 + n : 1900 + n;
}

export function isoDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || year < 1900 || year > 2200) return null;
  // Every month has a 28th: only later days need the calendar.
  if (!(Number.isInteger(year) && Number.isInteger(month) && Number.isInteger(day) && day <= 28)) {
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCMonth() !== month - 1) return null;
  }
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const SLASH_DATE = /(?<![\d.,])(\d{1,2})[/-](\d{1,2})[/-](?:\d{4}|\d{2})(?!\d)/g;

/**
 * The day/month order of slash and dash dates that a set of texts proves: a first part over 12
 * proves day-first, a second part over 12 proves month-first. null when nothing proves either.
 */
export function inferDateOrder(texts: Iterable<string>): DateOrder | null {
  let dmy = 0;
  let mdy = 0;
  for (const text of texts) {
    for (const m of matchesOf(SLASH_DATE, text)) {
      const a = Number(m[1]);
      const b = Number(m[2]);
      if (a > 12 && b <= 12) dmy++;
      else if (b > 12 && a <= 12) mdy++;
    }
  }
  if (dmy === mdy) return null;
  return dmy > mdy ? 'dmy' : 'mdy';
}

/**
 * A month name OCR read with a look-alike digit ("10 0CT 2017", "N0V", "JU1") becomes the name,
 * letter for letter (positions stay): no word of letters and a 0 or 1 means anything else.
 */
function monthLookalikes(subject: string): string {
  // A look-alike month has a letter beside a 0 or 1: most lines with digits have none.
  if (!/[a-z][01]|[01][a-z]/.test(subject)) return subject;
  return subject.replace(/(?<![\p{L}\d])(?=[a-z01]*[a-z])(?=[a-z01]*[01])[a-z01]{3,9}(?![\p{L}\d])/gu, (word) => {
    for (const one of ['l', 'i']) {
      const letters = word.replace(/0/g, 'o').replace(/1/g, one);
      if (MONTHS[letters] !== undefined) return letters;
    }
    return word;
  });
}

/** Every date in `text`, left to right, without overlaps. */
export function findDates(text: string, order: DateOrder | null = null, guess: DateOrder | null = null): DateHit[] {
  // Every pattern needs a digit, and folding makes none.
  if (!/\d/.test(text)) return [];
  const folded = fold(text);
  // Folding may change length (rare ligatures); positions are then approximate, so fall back to
  // the original text for matching.
  const subject = monthLookalikes(folded.length === text.length ? folded : text.toLowerCase());
  const hits: DateHit[] = [];
  const months = MONTH_HINT.test(subject);
  for (const { re, named, parts } of PATTERNS) {
    if (named && !months) continue;
    re.lastIndex = 0;
    for (let m = re.exec(subject); m; m = re.exec(subject)) {
      const start = m.index;
      const end = start + m[0].length;
      if (hits.some((h) => h.start < end && start < h.end)) continue;
      const p = parts(m);
      const year = fullYear(p.y);
      let ambiguous = false;
      let otherOrder: string | null = null;
      let value: string | null;
      if (p.order === 'numeric') {
        const first = Number(p.d);
        const second = Number(p.m);
        const sep = m[2];
        let dayFirst: boolean;
        if (first > 12) dayFirst = true;
        else if (second > 12) dayFirst = false;
        else if (sep === '.' || first === second) dayFirst = true;
        else {
          dayFirst = (order ?? guess) !== 'mdy';
          ambiguous = order === null;
        }
        value = dayFirst ? isoDate(year, second, first) : isoDate(year, first, second);
        if (ambiguous) otherOrder = dayFirst ? isoDate(year, first, second) : isoDate(year, second, first);
      } else {
        value = isoDate(year, Number(p.m), Number(p.d));
      }
      if (value) hits.push({ start, end, value, ambiguous, ...(otherOrder ? { otherOrder } : {}) });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

/** The date a short value stands for ("19 april 2014" → "2014-04-19"), or null. */
export function parseDate(text: string, order: DateOrder | null = null, guess: DateOrder | null = null): string | null {
  return findDates(text, order, guess)[0]?.value ?? null;
}

/**
 * Whether `value` is read from a date in `text` whose day/month order nothing proves, in either
 * order ("03/04/2024" with no date over 12 in the document is 3 April or 4 March): such a value
 * is held at GUESSED_ORDER_CONFIDENCE, whoever read it.
 */
export function orderGuessed(text: string, value: unknown, order: DateOrder | null, guess: DateOrder | null): boolean {
  if (typeof value !== 'string') return false;
  return findDates(text, order, guess).some((d) => d.ambiguous && (d.value === value || d.otherOrder === value));
}
