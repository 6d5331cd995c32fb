// A condition that makes the statement's own commit return without waiting for its WAL to reach
// the disk (`synchronous_commit = off` for that one transaction; the server flushes it within a
// fraction of a second anyway). For writes a database crash may lose without harm only: a claim
// or heartbeat lost that way returns its job to the queue. The flush is ordered: any later commit
// that does wait (a settle, an accepted upload) also makes every earlier one durable.
// set_config is volatile, so PostgreSQL evaluates it for each row it considers: a statement that
// changed a row evaluated it, and one that changed nothing has no commit to wait for.
import { sql } from 'kysely';

export const noFlushWait = sql<boolean>`set_config('synchronous_commit', 'off', true) IS NOT NULL`;
