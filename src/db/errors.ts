// PostgreSQL error codes the domain turns into API errors (https://www.postgresql.org/docs/current/errcodes-appendix.html).

/** True for a unique violation (23505), optionally of one named constraint or index. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string } | null;
  return !!e && e.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
