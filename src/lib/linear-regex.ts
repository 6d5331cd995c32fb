// Regular expressions written by tenants (template `pattern` rules, the `pattern` and
// `patternProperties` of a template's JSON schema, classification keywords) run in RE2's
// linear-time engine (re2js, pure JavaScript): matching time grows with the input, never
// exponentially, so no pattern can stall the event loop or a worker's heartbeat. Patterns RE2
// cannot run (backreferences, lookaround) are refused when the template is saved.
import { RE2JS } from 're2js';

export interface LinearRegex {
  test(text: string): boolean;
  /** The first match: where it starts and ends (UTF-16 offsets, like RegExp's index) and its text. */
  find(text: string): { index: number; end: number; text: string } | null;
  /** The first match's groups as RegExp's exec gives them (0: the match; a group that took no part: null), or null. */
  exec(text: string): (string | null)[] | null;
}

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };

const cache = new Map<string, LinearRegex>();
const CACHE_LIMIT = 500;

/**
 * JavaScript's `\uXXXX` and `\u{X…}` escapes (common in JSON Schema patterns) in RE2's spelling,
 * `\x{…}`; every other escape, an escaped backslash included, is left as written.
 */
function re2Escapes(pattern: string): string {
  if (!pattern.includes('\\u')) return pattern;
  return pattern.replace(/\\(?:u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]{1,6})\}|[^])/g, (escape, four?: string, braced?: string) => {
    const hex = four ?? braced;
    return hex ? `\\x{${hex}}` : escape;
  });
}

/** Compiles `pattern` with JavaScript-style flags (i, m, s, u); throws an Error that says why when RE2 cannot. */
export function compileLinear(pattern: string, flags = ''): LinearRegex {
  const key = `${flags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let bits = 0;
  for (const f of flags) {
    const bit = FLAG_BITS[f];
    if (bit === undefined) throw new Error(`unsupported flag '${f}' (use i, m, s or u)`);
    bits |= bit;
  }
  const compiled = RE2JS.compile(re2Escapes(pattern), bits);
  const regex: LinearRegex = {
    test: (text) => compiled.test(text),
    find: (text) => {
      const m = compiled.matcher(text);
      return m.find() ? { index: m.start(), end: m.end(), text: m.group() ?? '' } : null;
    },
    exec: (text) => {
      const m = compiled.matcher(text);
      return m.find() ? Array.from({ length: compiled.groupCount() + 1 }, (_, i) => m.group(i)) : null;
    },
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, regex);
  return regex;
}

/** Why RE2 cannot compile the pattern, or null when it can. */
export function linearRegexProblem(pattern: string, flags = ''): string | null {
  try {
    compileLinear(pattern, flags);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Ajv's regular-expression engine (its `code.regExp` option) on RE2: the `pattern`,
 * `patternProperties` and `propertyNames` of a tenant's JSON schema compile here, so a schema
 * RE2 cannot run fails to compile (a 422 when the template is saved) and none can backtrack.
 */
export const ajvLinearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    const regex = compileLinear(pattern, flags);
    // Ajv keys compiled patterns by their text: two patterns must never share one.
    return { test: (text: string) => regex.test(text), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'ajvLinearRegExp' },
);
