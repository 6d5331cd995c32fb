// The `idn-hostname` format: a host name whose labels may be Unicode (RFC 5890–5893). The
// platform's IDNA (node:url domainToASCII: UTS #46 on ICU, with its Bidi and joiner checks)
// turns each label into its ASCII form or refuses it; the ASCII form must then be a host name,
// and the contextual rules IDNA leaves to the registry (RFC 5892 appendix A) are checked here.
import { domainToASCII, domainToUnicode } from 'node:url';

// A host name is at most 253 characters in ASCII, and a Unicode label is never longer in code
// points than its ASCII form (two UTF-16 units at most each): longer text is refused before any
// conversion looks at it.
const MAX_LENGTH = 253;
const MAX_TEXT_LENGTH = 2 * (MAX_LENGTH + 1);
// Separators UTS #46 reads as ".": full stop, ideographic, fullwidth and halfwidth.
const SEPARATORS = /[.\u3002\uff0e\uff61]/u;
// ASCII beyond letters, digits, "-" and the dot is never part of a host name (domainToASCII
// would read "%41" as "A" and "[::1]" as an address).
const FOREIGN_ASCII = /[\x00-\x2c\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/;
const ASCII = /^[\x00-\x7f]*$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const LEADING_MARK = /^\p{M}/u;
// RFC 5892 §2.6: characters IDNA2008 disallows by exception, which UTS #46 lets through.
const DISALLOWED_EXCEPTIONS = /[\u0640\u07fa\u302e\u302f\u3031-\u3035\u303b]/;
// RFC 5891 §4.2.3.1, on a label's Unicode form: no hyphen first or last, none in both the third and fourth place.
const BAD_HYPHENS = /^-|-$|^[^]{2}--/u;

/** RFC 5892 appendix A.3–A.9: characters valid only beside certain others. */
function contextOk(label: string): boolean {
  const chars = [...label];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const prev = chars[i - 1] ?? '';
    const next = chars[i + 1] ?? '';
    if (c === '\u00b7' && !(prev === 'l' && next === 'l')) return false; // MIDDLE DOT
    if (c === '\u0375' && !/\p{Script=Greek}/u.test(next)) return false; // GREEK KERAIA
    if ((c === '\u05f3' || c === '\u05f4') && !/\p{Script=Hebrew}/u.test(prev)) return false; // GERESH, GERSHAYIM
  }
  if (label.includes('\u30fb') && !/[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(label.replace(/\u30fb/g, ''))) return false;
  if (/[\u0660-\u0669]/.test(label) && /[\u06f0-\u06f9]/.test(label)) return false; // the two Arabic digit sets never mix
  return true;
}

/** A host name, its labels ASCII or Unicode; one trailing dot (the root) is allowed. */
export function isIdnHostname(text: string): boolean {
  if (!text || text.length > MAX_TEXT_LENGTH || FOREIGN_ASCII.test(text)) return false;
  const labels = text.split(SEPARATORS);
  if (labels.length > 1 && labels[labels.length - 1] === '') labels.pop();
  let asciiLength = labels.length - 1;
  for (const label of labels) {
    if (!label || LEADING_MARK.test(label) || DISALLOWED_EXCEPTIONS.test(label) || !contextOk(label)) return false;
    // An ASCII label is its own ASCII form (IDNA would read "255" alone as an IPv4 number).
    const ascii = ASCII.test(label) ? label.toLowerCase() : domainToASCII(label);
    if (!LDH_LABEL.test(ascii) || (ascii.startsWith('xn--') && !domainToASCII(ascii))) return false;
    // An A-label ("xn--…") is checked as the Unicode label it stands for.
    const unicode = ascii.startsWith('xn--') ? domainToUnicode(ascii) : ascii;
    if (BAD_HYPHENS.test(unicode) || (unicode !== ascii && (LEADING_MARK.test(unicode) || DISALLOWED_EXCEPTIONS.test(unicode) || !contextOk(unicode)))) return false;
    asciiLength += ascii.length;
  }
  return asciiLength <= MAX_LENGTH;
}
