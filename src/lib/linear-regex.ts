// Regular expressions written by tenants (template `pattern` rules) run in RE2's linear-time
// engine (re2js, pure JavaScript): matching time grows with the input, never exponentially,
// so no pattern can stall the event loop or a worker's heartbeat. Patterns RE2 cannot run
// (backreferences, lookaround) are refused when the template is saved.
import { RE2JS } from 're2js';

export interface LinearRegex {
  test(text: string): boolean;
}

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };

const cache = new Map<string, LinearRegex>();
const CACHE_LIMIT = 500;

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
  const compiled = RE2JS.compile(pattern, bits);
  const regex: LinearRegex = { test: (text) => compiled.test(text) };
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
