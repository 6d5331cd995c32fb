// SQL for sign-in failures, keyed by the SHA-256 of the lower-cased email address.
import type { Db, Tx } from '../../db/database.js';
import type { LoginFailuresTable } from '../../db/reliability-schema.js';
import type { Selectable } from 'kysely';
import { sha256 } from '../../lib/secrets.js';

export type LoginFailures = Selectable<LoginFailuresTable>;

const keyOf = (email: string) => sha256(email.trim().toLowerCase());

export function findLoginFailures(db: Db | Tx, email: string): Promise<LoginFailures | undefined> {
  return db.selectFrom('login_failures').selectAll().where('email_sha256', '=', keyOf(email)).executeTakeFirst();
}

/** Milliseconds the address stays locked, 0 when it is not. */
export function lockedFor(failures: LoginFailures | undefined, now: number): number {
  const until = failures?.locked_until?.getTime() ?? 0;
  return until > now ? until - now : 0;
}

export async function recordLoginFailure(
  db: Db | Tx,
  email: string,
  previous: LoginFailures | undefined,
  now: number,
  limits: { maxFailures: number; windowMs: number; lockMs: number },
): Promise<void> {
  const inWindow = previous !== undefined && now - previous.window_start.getTime() < limits.windowMs;
  const count = inWindow ? previous.failure_count + 1 : 1;
  const row = {
    failure_count: count,
    window_start: inWindow ? previous.window_start : new Date(now),
    locked_until: count >= limits.maxFailures ? new Date(now + limits.lockMs) : null,
  };
  await db
    .insertInto('login_failures')
    .values({ email_sha256: keyOf(email), ...row })
    .onConflict((oc) => oc.column('email_sha256').doUpdateSet(row))
    .execute();
}

export async function clearLoginFailures(db: Db | Tx, email: string): Promise<void> {
  await db.deleteFrom('login_failures').where('email_sha256', '=', keyOf(email)).execute();
}
