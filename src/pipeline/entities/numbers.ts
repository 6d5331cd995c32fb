// Numbers as printed on documents: 1.234,56 (most of Europe), 1,234.56 (English), 1 234,56
// (French), 1'234.56 and 1’234.56 (Swiss), 1,25,000.00 (Indian lakh grouping: two-digit groups before the last
// three digits), -9,32 and (9.32) negatives. The decimal separator is the last of two different
// separators; a lone separator followed by exactly three digits is a thousands separator unless
// the integer part is 0 ("0,125").

/** The integer part of a grouped number: thousands (1,234,567) or lakh (12,34,567) groups. */
function groupedInteger(int: string, sep: string): boolean {
  const groups = int.split(sep);
  if (groups.length === 1) return /^\d+$/.test(int);
  const last = groups[groups.length - 1]!;
  if (!/^\d{3}$/.test(last)) return false;
  const head = groups.slice(0, -1);
  if (/^\d{1,3}$/.test(head[0]!) && head.slice(1).every((g) => /^\d{3}$/.test(g))) return true;
  // Lakh and crore: "1,25,000", "11,80,000", "1,00,00,000" (commas only).
  return sep === ',' && /^\d{1,2}$/.test(head[0]!) && head.slice(1).every((g) => /^\d{2}$/.test(g));
}

export function parseNumber(raw: string): number | null {
  let s = raw.trim().replace(/[\u2212\u2013]/g, '-');
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  if (s.startsWith('-')) {
    negative = !negative;
    s = s.slice(1).trim();
  } else if (s.endsWith('-')) {
    negative = !negative;
    s = s.slice(0, -1).trim();
  } else if (s.startsWith('+')) s = s.slice(1).trim();
  s = s.replace(/[\s\u00a0\u202f'\u2019]/g, '');
  if (!/^\d[\d.,]*$/.test(s) && !/^[.,]\d+$/.test(s)) return null;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let normal: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    const int = s.slice(0, s.lastIndexOf(decimal));
    const frac = s.slice(s.lastIndexOf(decimal) + 1);
    if (!groupedInteger(int, thousands)) return null;
    normal = `${int.split(thousands).join('')}.${frac}`;
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const parts = s.split(sep);
    if (parts.length > 2) {
      // 1.234.567, 12,34,567 — only grouping separators.
      if (!groupedInteger(s, sep)) return null;
      normal = parts.join('');
    } else {
      const [int, frac] = parts as [string, string];
      if (frac.length === 3 && int !== '0' && int !== '') normal = int + frac;
      else normal = `${int || '0'}.${frac}`;
    }
  } else {
    normal = s;
  }
  if (!/^\d+(\.\d+)?$/.test(normal)) return null;
  const value = Number(normal);
  if (!Number.isFinite(value)) return null;
  return negative ? -value : value;
}

/**
 * A number token inside text (digits with separators, optional sign). OCR often reads a space
 * beside the decimal point of an amount ("49. 40", "41 .95", "28 . 90"): a point with one space
 * on either side or both, then exactly two digits that nothing continues, is read as one amount.
 * A token is never a prefix of a longer grouped number: "1,25,000.00" is one token (lakh
 * grouping), not "1,25" followed by more, so a plain number may not stop before a separator
 * that digits follow, nor start inside one ("05.2018" of "12.05.2018").
 */
export const NUMBER_SOURCE = String.raw`(?<!\d|\d[.,'\u2019])(?:(?:[-\u2212]\s?)?\d+(?:\. | \. ?)\d{2}(?![\d.,]| [.,]\s?\d)|(?:[-\u2212]\s?)?\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,4})?(?![\d]|[.,'\u2019]\d)|(?:[-\u2212]\s?)?\d{1,3}(?:[.,\s'\u2019\u00a0\u202f]\d{3})+(?:[.,]\d{1,4})?(?!\d)|(?:[-\u2212]\s?)?\d+(?:[.,]\d{1,4})?(?![\d]|[.,'\u2019]\d))`;
