// Organisation names recognised by their legal-form suffix ("Coolblue B.V.", "QualityHosting AG",
// "BOOK TA .K (TAMAN DAYA) SDN BHD"): the suffix and the run of name-like words before it.
import { repairLookalikes } from './lookalikes.js';
import { escapeRegExp, matchesOf } from './normalize.js';

const SUFFIXES = [
  'GmbH & Co\\. KG', 'GmbH & Co KG', 'GmbH', 'gGmbH', 'mbH', 'AG', 'KGaA', 'KG', 'OHG', 'e\\.K\\.', 'e\\.V\\.', 'UG',
  'Ltd\\.?', 'Limited', 'LLC', 'L\\.L\\.C\\.', 'LLP', 'PLC', 'plc', 'Inc\\.?', 'Incorporated', 'Corp\\.?', 'Corporation', 'Co\\.,? Ltd\\.?',
  'Pty\\.? Ltd\\.?', 'S/B', 'SDN\\.? 8HD', 'SDN\\.? BH0', 'SDN\\.? BHO', 'Pvt\\.? Ltd\\.?', 'Private Limited', 'Sdn\\.? Bhd\\.?', 'SDN\\.? BHD\\.?', 'Bhd\\.?', 'BHD\\.?', 'Berhad', 'BERHAD',
  'S\\.A\\.S\\.', 'SAS', 'S\\.A\\.R\\.L\\.', 'SARL', 'S\\.à r\\.l\\.', 'Sàrl', 'EURL', 'SNC', 'S\\.A\\.', 'SA', 'S\\.L\\.', 'SL', 'S\\.L\\.U\\.', 'SLU',
  'S\\.p\\.A\\.', 'SpA', 'S\\.r\\.l\\.', 'Srl', 'SRL', 'B\\.V\\.', 'BV', 'N\\.V\\.', 'NV', 'V\\.O\\.F\\.', 'Oy', 'Oyj', 'AB', 'A/S', 'ApS', 'ASA',
  'K\\.K\\.', 'SE', 'sp\\. z o\\.o\\.', 'Sp\\. z o\\.o\\.', 'spółka akcyjna', 'S\\.C\\.', 'Kft\\.?', 'Zrt\\.?', 's\\.r\\.o\\.', 'a\\.s\\.',
  'ENTERPRISE', 'ENTERPRISES', 'TRADING', 'Enterprise', 'Trading',
];

const SUFFIX_RE = new RegExp(String.raw`(?<![\p{L}\d])(?:${SUFFIXES.join('|')})(?![\p{L}\d])`, 'gu');

/** The longest run of a suffix's characters that no "?" makes optional (" Ltd" of the pattern `Co\.,? Ltd\.?`). */
function literalCore(suffix: string): string {
  const runs = [''];
  for (let i = 0; i < suffix.length; i++) {
    const ch = suffix[i] === '\\' ? suffix[++i]! : suffix[i]!;
    if (suffix[i + 1] === '?') {
      i++;
      runs.push('');
    } else runs[runs.length - 1] += ch;
  }
  return runs.reduce((a, b) => (b.length > a.length ? b : a));
}

// Every suffix prints its core: a line without any core holds no suffix, and the (Unicode,
// look-behind) suffix search is not run on it.
const SUFFIX_CORES = new RegExp(SUFFIXES.map((s) => escapeRegExp(literalCore(s))).join('|'));

// A word that can be part of a company name: capitalised, a number, an initial, a bracket part or a connector.
const NAME_WORD = /^(?:\.?[\p{Lu}\d(&][\p{L}\d.&()'’,\-+/]*|\p{Ll}{0,3}\.|&|and|und|et|y|of|de|du|des|la|le|van|der|den|von|-)$/u;
const CONNECTORS = new Set(['&', 'and', 'und', 'et', 'y', 'of', 'de', 'du', 'des', 'la', 'le', 'van', 'der', 'den', 'von', '-']);
// Words that end a name to their left: labels and document words, not part of the name.
const STOP = /^(?:invoice|rechnung|facture|factura|factuur|receipt|tax|date|datum|to|from|bill|sold|by|attn|page|seite|tel|fax|vat|btw|tva|no\.?|nr\.?)$/i;
// Articles end a name only in running text ("the Acme Ltd"), not in an all-capitals name ("TASTE OF THE WORLD SDN BHD").
const ARTICLE = /^(?:the|a|an|The|A|An)$/;

export interface OrganisationHit {
  start: number;
  end: number;
  name: string;
  suffix: string;
}

export function findOrganisations(text: string): OrganisationHit[] {
  const hits: OrganisationHit[] = [];
  if (!SUFFIX_CORES.test(text)) return hits;
  for (const m of matchesOf(SUFFIX_RE, text)) {
    const suffixStart = m.index!;
    const end = suffixStart + m[0].length;
    // Walk left over name-like words.
    const before = text.slice(0, suffixStart);
    const words = [...before.matchAll(/\S+/g)];
    let start = suffixStart;
    let taken = 0;
    for (let i = words.length - 1; i >= 0 && taken < 8; i--) {
      const w = words[i]![0];
      const bare = w.replace(/[,:;]$/, '');
      if (bare !== w && taken > 0) break;
      // "Taste Of The World", "Bank of the West": an article after "of" is inside the name.
      const inName = ARTICLE.test(bare) && /^of$/i.test(words[i - 1]?.[0] ?? '');
      if (!NAME_WORD.test(bare) || STOP.test(bare.replace(/\.$/, '')) || (ARTICLE.test(bare) && !inName)) break;
      start = words[i]!.index!;
      taken++;
    }
    // Connectors cannot begin a name.
    while (taken > 0) {
      const first = /^\S+/.exec(text.slice(start))![0];
      if (!CONNECTORS.has(first)) break;
      start += first.length;
      while (text[start] === ' ') start++;
      taken--;
    }
    if (taken === 0) continue;
    const name = text.slice(start, end).replace(/[,;:]$/, '').trim();
    if (name.length < 3) continue;
    if (hits.some((h) => h.start < end && start < h.end)) continue;
    hits.push({ start, end, name, suffix: m[0] });
  }
  return hits;
}

// The match starts where a run of spaces and commas starts (the first match always does): from
// each character of a long run, the run was scanned again, quadratic in its length.
const TRAILING_SUFFIX = new RegExp(String.raw`(?<![\s,])[\s,]*(?<![\p{L}\d])(?:${SUFFIXES.join('|')})\s*$`, 'u');

/** A company name without its trailing legal form ("Free SAS" → "Free"). */
export function withoutLegalForm(name: string): string {
  return name.replace(TRAILING_SUFFIX, '').trim();
}

// Letters OCR reads as digits inside legal forms ("SDN 8HD", "C0. (M)"): a legal form never holds them.
const OCR_LEGAL_FORM: [RegExp, string][] = [

  [/\b([Ss][Dd][Nn]\.?\s?)8(H[D0O])\b/g, '$1B$2'],
  [/\b(SDN\.?\s?BH)[0O]\b/g, '$1D'],
  // The D of "SDN" read as O or I ("SON BHD", "SIN BHD"): nothing else is "S?N BHD".
  [/\bS[O0I]N(\.?\s?BHD)\b/g, 'SDN$1'],
  [/\bC0\.(?=\s|$)/g, 'CO.'],
];

/**
 * A capital I between small letters in a name read by OCR is a small l ("WorId"); CamelCase names
 * ("McIntosh", "LinkedIn", "PayIt") keep theirs.
 */
function ocrLettersFixed(name: string): string {
  return name.replace(/(?<!\bMa?c)(?<=\p{Ll}{2})I(?=\p{Ll})(?![nts]\b)/gu, 'l');
}

/**
 * A name read by OCR: look-alike glyphs put right ("CONFECTI0NERY"), a capital I between small
 * letters read as l, and the spaces OCR lost around a short parenthesis ("BAKERIES(KL)SDN BHD").
 */
export function ocrNameFixed(name: string): string {
  return ocrLettersFixed(repairLookalikes(name))
    .replace(/(?<=\p{L})\((?=[\p{L}\d]{1,4}\))/gu, ' (')
    .replace(/(?<=\([\p{L}\d]{1,4}\))(?=\p{L})/gu, ' ');
}

/** A company name with the OCR misreadings of its legal form put right ("SDN 8HD" → "SDN BHD"). */
export function legalFormOcrFixed(name: string): string {
  return OCR_LEGAL_FORM.reduce((text, [re, by]) => text.replace(re, by), name);
}
