// Text normalisation shared by the recognisers and the label matcher.

// Letters that Unicode does not decompose into a base letter and a mark.
const SPECIAL: Record<string, string> = { ł: 'l', Ł: 'l', ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ı: 'i', ß: 'ss', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe' };
const SPECIAL_RE = /[łŁøØđĐıßæÆœŒ]/g;

/** Lower case without diacritics ("Numéro" → "numero", "März" → "marz", "ogółem" → "ogolem"). */
export function fold(s: string): string {
  return s.replace(SPECIAL_RE, (c) => SPECIAL[c]!).normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/**
 * Folds a string and maps every character of the result back to an index of the original, so a
 * match found in folded text can be reported at its place in the original.
 */
const IDENTITY: number[] = [];
const foldCache = new Map<string, { text: string; map: number[] }>();

export function foldWithMap(s: string): { text: string; map: number[] } {
  const hit = foldCache.get(s);
  if (hit) return hit;
  const folded = foldUncached(s);
  // A small cache: the same lines are folded by the recognisers, the label finder and the line-item reader.
  if (foldCache.size > 5000) foldCache.clear();
  foldCache.set(s, folded);
  return folded;
}

function foldUncached(s: string): { text: string; map: number[] } {
  // Plain ASCII (most text) folds to its lower case, position for position.
  if (/^[\x00-\x7f]*$/.test(s)) {
    while (IDENTITY.length <= s.length) IDENTITY.push(IDENTITY.length);
    return { text: s.toLowerCase(), map: IDENTITY };
  }
  let text = '';
  const map: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const folded = ch.charCodeAt(0) < 128 ? ch.toLowerCase() : (SPECIAL[ch] ?? ch).normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
    for (const c of folded) {
      text += c;
      map.push(i);
    }
  }
  map.push(s.length);
  return { text, map };
}

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Collapses runs of whitespace and trims. */
export const squashSpace = (s: string) => s.replace(/\s+/g, ' ').trim();
