// VAT and tax identifiers: the EU VAT number formats (with the national check digits that
// checksums.ts knows), the UK, Swiss and Norwegian VAT numbers and the Indian GSTIN.
// `tax_id_country_prefix_mode` decides the normalised value:
// - infer: compact, with the country prefix; a number printed without one gets the prefix of the
//   document's country (inferred from IBANs, other tax ids and phone numbers) when its format fits;
// - preserve: compact, with the prefix only when the document prints one;
// - off: the text exactly as printed.
import { vatCheckDigits } from './checksums.js';

export type TaxIdPrefixMode = 'infer' | 'preserve' | 'off';

/** Number part (after the prefix, compacted) by country prefix. */
export const VAT_FORMATS: Record<string, RegExp> = {
  AT: /^U\d{8}$/,
  BE: /^[01]?\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  EL: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^\d{7}[A-W][A-I]?$|^\d[A-Z+*]\d{5}[A-W]$/,
  IT: /^\d{11}$/,
  LT: /^\d{9}$|^\d{12}$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^\d{2,10}$/,
  SE: /^\d{10}01$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
  XI: /^\d{9}$|^\d{12}$/,
  GB: /^\d{9}$|^\d{12}$|^GD\d{3}$|^HA\d{3}$/,
  CHE: /^\d{9}(MWST|TVA|IVA)?$/,
  NO: /^\d{9}(MVA)?$/,
};

const GSTIN = /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/;

export interface TaxIdMatch {
  /** Country prefix as printed (EL for Greece), or null when the number was printed without one. */
  printedPrefix: string | null;
  country: string | null;
  number: string;
  /** Check digits: true valid, null unknown for this country. Invalid numbers are not matches. */
  checked: boolean | null;
  kind: 'vat' | 'gstin';
}

export const compactTaxId = (s: string) => s.replace(/[\s.\-/]/g, '').toUpperCase();

// National VAT labels name their country: a number printed without a prefix after one is tried
// as that country's first (an Italian P.IVA can pass the French check digits by chance).
const LABEL_COUNTRIES: [RegExp, string][] = [
  [/p\.?\s?iva|partita\s?iva/i, 'IT'],
  [/\bnip\b/i, 'PL'],
  [/ust[-\s.]?id|umsatzsteuer|steuer[-\s]?nr|steuernummer/i, 'DE'],
  [/n°\s?tva|tva\s?intra/i, 'FR'],
  [/\bbtw\b/i, 'NL'],
  [/\b(?:cif|nif)\b/i, 'ES'],
  [/\bnipc\b/i, 'PT'],
  [/\bi[cč][-\s]?dph\b/i, 'SK'],
  [/\bdi[cč]\b/i, 'CZ'],
  [/\bpvm\b/i, 'LT'],
  [/\bkmkr\b/i, 'EE'],
  [/\bpvn\b/i, 'LV'],
  [/\bddv\b/i, 'SI'],
  [/\boib\b/i, 'HR'],
  [/\bcvr\b|\bmoms/i, 'DK'],
  [/\balv\b/i, 'FI'],
  [/\bafm\b|αφμ/iu, 'GR'],
  [/ad[oó]sz[aá]m/i, 'HU'],
];

/** The country a tax label printed before a number names, if it is a national one. */
export function countryOfTaxLabel(label: string): string | null {
  return LABEL_COUNTRIES.find(([re]) => re.test(label))?.[1] ?? null;
}

/** Reads one candidate token sequence as a tax id, with an optional country to try when it has no prefix. */
export function readTaxId(raw: string, countryHint: string | null = null): TaxIdMatch | null {
  const compact = compactTaxId(raw);
  if (GSTIN.test(compact)) return { printedPrefix: null, country: 'IN', number: compact, checked: null, kind: 'gstin' };
  const prefixed = /^(CHE|[A-Z]{2})(.+)$/.exec(compact);
  if (prefixed) {
    const prefix = prefixed[1]!;
    const format = VAT_FORMATS[prefix === 'GR' ? 'EL' : prefix];
    if (format && format.test(prefixed[2]!)) {
      const country = prefix === 'EL' ? 'GR' : prefix === 'CHE' ? 'CH' : prefix;
      const checked = vatCheckDigits(prefix, prefixed[2]!);
      if (checked === false) return null;
      return { printedPrefix: prefix, country, number: prefixed[2]!, checked, kind: 'vat' };
    }
  }
  if (/^[A-Z]{2}/.test(compact) && !/^U\d/.test(compact)) return null;
  // No prefix: the hinted country first, then any country whose format and check digits both fit.
  const order = countryHint ? [countryHint === 'GR' ? 'EL' : countryHint] : [];
  for (const prefix of order) {
    const format = VAT_FORMATS[prefix];
    if (format?.test(compact)) {
      const checked = vatCheckDigits(prefix, compact);
      if (checked !== false) return { printedPrefix: null, country: prefix === 'EL' ? 'GR' : prefix, number: compact, checked, kind: 'vat' };
    }
  }
  for (const [prefix, format] of Object.entries(VAT_FORMATS)) {
    if (!format.test(compact)) continue;
    if (vatCheckDigits(prefix, compact) === true) return { printedPrefix: null, country: prefix === 'EL' ? 'GR' : prefix, number: compact, checked: true, kind: 'vat' };
  }
  return { printedPrefix: null, country: null, number: compact, checked: null, kind: 'vat' };
}

export function taxIdValue(match: TaxIdMatch, printed: string, mode: TaxIdPrefixMode): string {
  if (mode === 'off') return printed.trim();
  if (match.kind === 'gstin') return match.number;
  const prefixFor = (country: string) => (country === 'GR' ? 'EL' : country === 'CH' ? 'CHE' : country);
  if (match.printedPrefix) return `${match.printedPrefix}${match.number}`;
  if (mode === 'infer' && match.country) return `${prefixFor(match.country)}${match.number}`;
  return match.number;
}

/** Is this a valid VAT number (format and, where known, check digits)? Used by the `checksum` rule. */
export function isValidVat(text: string, countryHint: string | null = null): boolean {
  const m = readTaxId(text, countryHint);
  return !!m && m.country !== null && m.checked !== false;
}
