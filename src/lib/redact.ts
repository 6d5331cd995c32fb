// Secrets never reach the audit trail or an error answer: any key that names one is replaced,
// at any depth, and very long values are cut.
const SECRET_KEY = /pass(word)?|secret|token|credential|api_?key|authorization|private_?key|service_account/i;

/** Whether a field of this name holds a secret (a password, token, key or credentials). */
export const namesSecret = (key: string): boolean => SECRET_KEY.test(key);

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[key] = namesSecret(key) ? '[redacted]' : redact(inner, depth + 1);
    }
    return out;
  }
  if (typeof value === 'string' && value.length > 2000) return `${value.slice(0, 2000)}…`;
  return value;
}
