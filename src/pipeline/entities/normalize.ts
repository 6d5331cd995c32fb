// Text normalisation shared by the recognisers and the label matcher.

// Letters that Unicode does not decompose into a base letter and a mark.
const SPECIAL: Record<string, string> = { ł: 'l', Ł: 'l', ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ı: 'i', ß: 'ss', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe' };
const SPECIAL_RE = /[łŁøØđĐıßæÆœŒ]/g;

const ASCII = /^[\x00-\x7f]*$/;

/** Lower case without diacritics ("Numéro" → "numero", "März" → "marz", "ogółem" → "ogolem"). */
export function fold(s: string): string {
  // Plain ASCII (most text) has nothing to decompose: its lower case, without normalising.
  if (ASCII.test(s)) return s.toLowerCase();
  return s.replace(SPECIAL_RE, (c) => SPECIAL[c]!).normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

const IDENTITY: number[] = [];

// The folded form of each non-ASCII character met so far (as its code points): few distinct ones recur.
const foldedChars = new Map<string, string[]>();

function foldedChar(ch: string): string[] {
  let folded = foldedChars.get(ch);
  if (!folded) {
    folded = [...(SPECIAL[ch] ?? ch).normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase()];
    if (foldedChars.size > 10000) foldedChars.clear();
    foldedChars.set(ch, folded);
  }
  return folded;
}

/**
 * Folds a string and maps every character of the result back to an index of the original, so a
 * match found in folded text can be reported at its place in the original. (A line's is in its
 * `folded`, text.ts.)
 */
export function foldWithMap(s: string): { text: string; map: number[] } {
  // Plain ASCII (most text) folds to its lower case, position for position.
  if (ASCII.test(s)) {
    while (IDENTITY.length <= s.length) IDENTITY.push(IDENTITY.length);
    return { text: s.toLowerCase(), map: IDENTITY };
  }
  const parts: string[] = [];
  const map: number[] = [];
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) < 128) {
      // A run of ASCII folds to its lower case, position for position.
      let end = i + 1;
      while (end < s.length && s.charCodeAt(end) < 128) end++;
      parts.push(s.slice(i, end).toLowerCase());
      for (; i < end; i++) map.push(i);
      continue;
    }
    for (const c of foldedChar(s[i]!)) {
      parts.push(c);
      map.push(i);
    }
    i++;
  }
  map.push(s.length);
  return { text: parts.join(''), map };
}

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Collapses runs of whitespace and trims. */
export const squashSpace = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Every match of a global regex, as `text.matchAll(re)` gives them, without matchAll's copy of
 * the regex on every call: for the large patterns the recognisers run on every line, the copy
 * costs more than the search. `re` must not be in use by the caller meanwhile.
 */
export function matchesOf(re: RegExp, text: string): readonly RegExpExecArray[] {
  re.lastIndex = 0;
  let m = re.exec(text);
  if (!m) return NO_MATCHES; // most lines: nothing to allocate
  const out: RegExpExecArray[] = [];
  for (; m; m = re.exec(text)) {
    out.push(m);
    if (m[0] === '') re.lastIndex++; // none of the patterns matches empty text; never loop on one that does
  }
  return out;
}

const NO_MATCHES: readonly RegExpExecArray[] = Object.freeze([]);
