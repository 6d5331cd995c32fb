// Secrets never reach the audit trail or an error answer: any key that names one is replaced,
// at any depth, and very long values are cut.
// A name is judged by its last word or two ("new_password", "session_token", "secret_access_key",
// "x-api-key"), so counts and ids that merely mention one stay readable ("max_tokens",
// "forge_monthly_token_quota", "api_key_id").
// A map of HTTP headers (a webhook's `config.headers`) keeps its names and loses every value:
// custom headers carry a receiver's key under any name ("X-Team-Auth", "X-Signature").
const SECRET_LAST_WORD = new Set(['password', 'passwd', 'passphrase', 'secret', 'token', 'credential', 'credentials', 'authorization', 'apikey']);
const SECRET_LAST_TWO = new Set(['api key', 'private key', 'access key', 'secret key']);

/** What stands where a secret was. */
export const REDACTED = '[redacted]';

/** Whether a field of this name holds a secret (a password, token, key, credentials, a service account). */
export function namesSecret(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words.at(-1) ?? '';
  if (SECRET_LAST_WORD.has(last) || SECRET_LAST_TWO.has(words.slice(-2).join(' '))) return true;
  return words.join(' ').includes('service account');
}

function isHeaderMap(key: string, value: unknown): value is Record<string, unknown> {
  return key.toLowerCase() === 'headers' && !!value && typeof value === 'object' && !Array.isArray(value);
}

function hideHeaderValues(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[key] = namesSecret(key) ? REDACTED : isHeaderMap(key, inner) ? hideHeaderValues(inner) : redact(inner, depth + 1);
    }
    return out;
  }
  if (typeof value === 'string' && value.length > 2000) return `${value.slice(0, 2000)}…`;
  return value;
}

/**
 * A log line's fields with the value of every secret-named key replaced, at any depth. Only plain
 * objects and arrays are walked: an Error or a request is left to its serialiser, which reads it
 * after this. Nothing is copied when nothing is secret.
 */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactPlain(fields, 0) as Record<string, unknown>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function redactPlain(value: unknown, depth: number): unknown {
  if (depth > 8) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((inner, i) => {
      const next = redactPlain(inner, depth + 1);
      if (next !== inner) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | null = null;
  for (const [key, inner] of Object.entries(value)) {
    const next = namesSecret(key) ? REDACTED : redactPlain(inner, depth + 1);
    if (next !== inner) (out ??= { ...value })[key] = next;
  }
  return out ?? value;
}
