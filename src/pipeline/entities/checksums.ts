// Check digits: IBAN (ISO 13616, mod 97), Luhn (payment cards, ISO/IEC 7812) and the national
// VAT number check digits of the EU countries whose algorithm is public and stable.

/** Registered IBAN lengths by country (the SWIFT IBAN registry); others are accepted at 15..34. */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22,
  DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21,
  HU: 28, IE: 22, IL: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24,
  ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24,
  SE: 24, SI: 19, SK: 24, SM: 27, TN: 24, TR: 26, UA: 29, VG: 24, XK: 20,
};

function mod97(digits: string): number {
  let rest = 0;
  for (let i = 0; i < digits.length; i += 7) rest = Number(String(rest) + digits.slice(i, i + 7)) % 97;
  return rest;
}

export function compactIban(text: string): string {
  return text.replace(/[\s-]/g, '').toUpperCase();
}

export function isValidIban(text: string): boolean {
  const iban = compactIban(text);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected !== undefined && iban.length !== expected) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  const digits = rearranged.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return mod97(digits) === 1;
}

/**
 * BBAN formats of the SWIFT IBAN registry (n digits, a capital letters, c either) for the
 * countries whose IBANs Quire meets most; what OCR's letter/digit confusions are checked against.
 */
const BBAN_FORMATS: Record<string, string> = {
  AT: '16n', BE: '12n', BG: '4a6n8c', CH: '5n12c', CY: '8n16c', CZ: '20n', DE: '18n', DK: '14n', EE: '16n', ES: '20n',
  FI: '14n', FR: '10n11c2n', GB: '4a14n', GR: '7n16c', HR: '17n', HU: '24n', IE: '4a14n', IS: '22n', IT: '1a10n12c',
  LI: '5n12c', LT: '16n', LU: '3n13c', LV: '4a13c', MC: '10n11c2n', MT: '4a5n18c', NL: '4a10n', NO: '11n', PL: '24n',
  PT: '21n', RO: '4a16c', SE: '20n', SI: '15n', SK: '20n', SM: '1a10n12c',
};
/** Glyphs OCR reads as their look-alikes. */
const AS_DIGIT: Record<string, string> = { O: '0', Q: '0', D: '0', I: '1', L: '1', Z: '2', S: '5', G: '6', B: '8' };
const AS_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B' };

/**
 * An IBAN whose check digits fail, put right when the only fault is OCR confusing look-alike
 * glyphs (O and 0, I and 1, B and 8…): every position is coerced to the class the country's
 * BBAN format sets for it, and the result is kept only when its check digits then pass. One
 * deterministic candidate, so a wrong IBAN passes by chance only 1 time in 97. Null otherwise.
 */
export function repairedIban(text: string): string | null {
  const iban = compactIban(text);
  if (isValidIban(iban)) return null;
  const format = BBAN_FORMATS[iban.slice(0, 2)];
  if (!format) return null;
  const classes = ['n', 'n', ...[...format.matchAll(/(\d+)([anc])/g)].flatMap(([, n, k]) => new Array<string>(Number(n)).fill(k!))];
  const body = iban.slice(2);
  if (body.length !== classes.length) return null;
  let fixed = iban.slice(0, 2);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    const want = classes[i];
    const coerced = want === 'n' && !/\d/.test(ch) ? AS_DIGIT[ch] : want === 'a' && !/[A-Z]/.test(ch) ? AS_LETTER[ch] : ch;
    if (coerced === undefined) return null;
    fixed += coerced;
  }
  return fixed !== iban && isValidIban(fixed) ? fixed : null;
}

export function luhnValid(text: string): boolean {
  const digits = text.replace(/[\s-]/g, '');
  if (!/^\d{2,}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const digitsOf = (s: string) => [...s].map(Number);

/** ISO 7064 MOD 11,10 (Germany, Croatia). */
function iso7064Mod11_10(num: string): boolean {
  const d = digitsOf(num);
  let product = 10;
  for (let i = 0; i < d.length - 1; i++) {
    let sum = (d[i]! + product) % 10;
    if (sum === 0) sum = 10;
    product = (2 * sum) % 11;
  }
  const check = (11 - product) % 10;
  return check === d[d.length - 1];
}

function weighted(num: string, weights: number[]): number {
  return weights.reduce((s, w, i) => s + w * Number(num[i]), 0);
}

/**
 * National check digits of a VAT number (without its country prefix). true: valid; false:
 * invalid; null: no algorithm implemented for the country (the pattern alone decides).
 */
export function vatCheckDigits(country: string, num: string): boolean | null {
  switch (country) {
    case 'DE':
      return /^\d{9}$/.test(num) ? iso7064Mod11_10(num) : false;
    case 'HR':
      return /^\d{11}$/.test(num) ? iso7064Mod11_10(num) : false;
    case 'FR': {
      const m = /^([0-9A-Z]{2})(\d{9})$/.exec(num);
      if (!m) return false;
      if (!/^\d{2}$/.test(m[1]!)) return null; // alphabetic keys (new numbers) have another scheme
      return Number(m[1]) === (12 + 3 * (Number(m[2]) % 97)) % 97;
    }
    case 'NL': {
      const m = /^(\d{9})B(\d{2})$/.exec(num);
      if (!m) return false;
      const base = m[1]!;
      const mod11 = (weighted(base, [9, 8, 7, 6, 5, 4, 3, 2]) - Number(base[8])) % 11 === 0;
      // Since 2020 sole traders get numbers that pass mod 97 over "NL" + the number instead.
      const alt = mod97(`2321${base}11${m[2]}`) === 1;
      return mod11 || alt;
    }
    case 'IT':
      return /^\d{11}$/.test(num) ? luhnValid(num) : false;
    case 'BE': {
      const n = num.length === 9 ? `0${num}` : num;
      if (!/^[01]\d{9}$/.test(n)) return false;
      return 97 - (Number(n.slice(0, 8)) % 97) === Number(n.slice(8));
    }
    case 'AT': {
      const m = /^U(\d{8})$/.exec(num);
      if (!m) return false;
      const d = digitsOf(m[1]!);
      let s = 0;
      for (let i = 0; i < 7; i++) {
        let v = d[i]! * (i % 2 === 0 ? 1 : 2);
        if (v > 9) v = Math.floor(v / 10) + (v % 10);
        s += v;
      }
      return (10 - ((s + 4) % 10)) % 10 === d[7];
    }
    case 'PL':
      if (!/^\d{10}$/.test(num)) return false;
      return weighted(num, [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11 === Number(num[9]);
    case 'DK':
      return /^\d{8}$/.test(num) ? weighted(num, [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0 : false;
    case 'FI': {
      if (!/^\d{8}$/.test(num)) return false;
      const r = weighted(num, [7, 9, 10, 5, 8, 4, 2]) % 11;
      return (r === 0 ? 0 : 11 - r) === Number(num[7]);
    }
    case 'PT': {
      if (!/^\d{9}$/.test(num)) return false;
      const r = 11 - (weighted(num, [9, 8, 7, 6, 5, 4, 3, 2]) % 11);
      return (r >= 10 ? 0 : r) === Number(num[8]);
    }
    case 'CZ': {
      // Legal entities (8 digits, the DIČ's IČO): weights 8…2, (11 − sum mod 11) mod 10. Longer
      // numbers are birth numbers of sole traders, with a scheme of their own.
      if (!/^\d{8,10}$/.test(num)) return false;
      if (num.length > 8) return null;
      return (11 - (weighted(num, [8, 7, 6, 5, 4, 3, 2]) % 11)) % 10 === Number(num[7]);
    }
    case 'SK':
      // IČ DPH: ten digits, the first not 0, the third one of 2 3 4 7 8 9, divisible by 11.
      return /^[1-9]\d[2-47-9]\d{7}$/.test(num) && Number(num) % 11 === 0;
    case 'SE':
      // The organisation number (Luhn) followed by 01.
      return /^\d{10}01$/.test(num) ? luhnValid(num.slice(0, 10)) : false;
    default:
      return null;
  }
}
