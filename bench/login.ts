// `npx tsx bench/login.ts [--n 60]`: sign-in timing for a real account with a wrong password
// against an unknown address, on the real server over loopback. Attempts alternate so load and
// warm-up fall on both alike; each attempt uses a fresh address so no lockout interferes.
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { bootstrapPlatform, DEFAULT_TENANT_ID } from '../src/domain/tenants/bootstrap.js';
import { buildApp } from '../src/http/app.js';
import { newId } from '../src/lib/ids.js';
import { hashPassword } from '../src/lib/secrets.js';
import { createScratchDb, median, percentile } from './lib/scratch-db.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '60' } } });
const n = Number(values.n);

const scratch = await createScratchDb('quire_bench_login');
const db = createDb(scratch.url, 5);
const config = { ...loadConfig({}), authRateLimitPerIp: 1_000_000, loginRateLimitPerAccount: 1_000_000, adminEmail: 'root@bench.test', adminPassword: 'bench-admin-password' };
await bootstrapPlatform(db, config, pino({ level: 'silent' }));
const app = await buildApp({ db, config, version: 'bench', workerCount: () => 0 });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as { port: number }).port;

const hash = await hashPassword('the-right-password-123');
const emails: string[] = [];
for (let i = 0; i < n; i++) {
  const email = `real-${i}@bench.test`;
  emails.push(email);
  await db.insertInto('users').values({ id: newId('usr'), tenant_id: DEFAULT_TENANT_ID, email, role: 'member', status: 'active', password_hash: hash } as never).execute();
}

async function timed(email: string): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a-wrong-password-456' }),
  });
  await res.text();
  if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

// Warm up both paths (decoy hash, JIT, pool connections).
for (let i = 0; i < 5; i++) await timed(`warm-${i}@nowhere.test`);
const real: number[] = [];
const unknown: number[] = [];
for (let i = 0; i < n; i++) {
  real.push(await timed(emails[i]!));
  unknown.push(await timed(`unknown-${i}@nowhere.test`));
}
const row = (name: string, xs: number[]) => `${name.padEnd(24)} median ${median(xs).toFixed(2)} ms  p90 ${percentile(xs, 90).toFixed(2)} ms`;
process.stdout.write(`sign-in timing, n = ${n} each\n${row('real, wrong password', real)}\n${row('unknown address', unknown)}\n`);
process.stdout.write(`difference of medians: ${(median(real) - median(unknown)).toFixed(2)} ms\n`);
await app.close();
await db.destroy();
await scratch.drop();
