// `npm run soak -- --minutes M [--concurrency C]`: the real server with two in-process workers on
// a scratch database (DATABASE_URL names the PostgreSQL server), under mixed API and upload load
// on loopback. Reports the error rate (5xx and transport errors), p50/p99 latency per kind, and
// RSS over time. Exits non-zero when any request errs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { PolicyService } from '../src/domain/policy/policy.service.js';
import { bootstrapPlatform } from '../src/domain/tenants/bootstrap.js';
import { buildApp } from '../src/http/app.js';
import { Workers } from '../src/queue/workers.js';
import { DATA } from './lib/hostile-files.js';
import { createScratchDb, percentile } from './lib/scratch-db.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '6' } } });
const durationMs = Number(values.minutes) * 60_000;
const concurrency = Number(values.concurrency);

const scratch = await createScratchDb('quire_soak');
const db = createDb(scratch.url, 10);
const email = 'soak@quire.test';
const password = 'soak-password-long-enough';
const config = { ...loadConfig({}), dataDir: `/tmp/quire-soak-${process.pid}`, adminEmail: email, adminPassword: password, authRateLimitPerIp: 1_000_000 };
const log = pino({ level: 'silent' });
await bootstrapPlatform(db, config, log);
const policy = new PolicyService(db);
const workers = new Workers({ db, databaseUrl: scratch.url, config, log, count: 2, pollMaxMs: 1_000, policy });
await workers.start();
const app = await buildApp({ db, config, version: 'soak', workerCount: () => workers.size, policy });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

const login = await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).json();
const auth = { authorization: `Bearer ${login.access_token as string}` };
await fetch(`${base}/v1/admin/tenant-policy/default`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ rate_limit_per_minute: 1_000_000 }) });
const pdf = readFileSync(path.join(DATA, 'invoice2data/files/camelot-example.pdf'));

type Kind = 'me' | 'list' | 'health' | 'upload' | 'job';
const latencies: Record<Kind, number[]> = { me: [], list: [], health: [], upload: [], job: [] };
let requests = 0;
let errors = 0;
const errorSamples: string[] = [];
const jobIds: string[] = [];

async function call(kind: Kind, url: string, init: RequestInit = {}): Promise<void> {
  const t = performance.now();
  try {
    const res = await fetch(`${base}${url}`, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });
    const text = await res.text();
    requests++;
    if (res.status >= 500) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(`${kind} ${res.status} ${text.slice(0, 200)}`);
    } else if (kind === 'upload' && res.status === 202) jobIds.push(JSON.parse(text).job_id);
  } catch (err) {
    requests++;
    errors++;
    if (errorSamples.length < 5) errorSamples.push(`${kind} ${(err as Error).message}`);
  }
  latencies[kind].push(performance.now() - t);
}

function next(): Promise<void> {
  const r = Math.random();
  if (r < 0.05) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pdf)]), 'invoice.pdf');
    form.append('processing_mode', 'canonical');
    return call('upload', '/v1/documents', { method: 'POST', body: form });
  }
  if (r < 0.3 && jobIds.length) return call('job', `/v1/documents/${jobIds[Math.floor(Math.random() * jobIds.length)]}`);
  if (r < 0.55) return call('list', '/v1/documents?limit=20');
  if (r < 0.8) return call('me', '/v1/me');
  return call('health', '/v1/health');
}

const rssSeries: string[] = [];
const started = Date.now();
const sampler = setInterval(() => rssSeries.push(`${Math.round((Date.now() - started) / 1000)}s:${Math.round(process.memoryUsage().rss / 1024 / 1024)}MB`), 30_000);
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() - started < durationMs) await next();
  }),
);
clearInterval(sampler);
const queued = await db.selectFrom('jobs').select(['status']).execute();
const byStatus = queued.reduce<Record<string, number>>((acc, j) => ((acc[j.status] = (acc[j.status] ?? 0) + 1), acc), {});

const row = (k: Kind) => `${k.padEnd(7)} n=${String(latencies[k].length).padStart(6)}  p50 ${percentile(latencies[k], 50).toFixed(1)} ms  p99 ${percentile(latencies[k], 99).toFixed(1)} ms`;
process.stdout.write(
  [
    `soak: ${values.minutes} min, concurrency ${concurrency}, ${requests} requests (${(requests / (durationMs / 1000)).toFixed(1)}/s), errors ${errors} (${((errors / Math.max(1, requests)) * 100).toFixed(3)} %)`,
    ...(['me', 'list', 'job', 'health', 'upload'] as Kind[]).map(row),
    `jobs by status at the end: ${JSON.stringify(byStatus)}`,
    `RSS over time: ${rssSeries.join(' ')}`,
    ...errorSamples.map((s) => `error sample: ${s}`),
  ].join('\n') + '\n',
);
await app.close();
await workers.stop();
await policy.stop();
await db.destroy();
await scratch.drop();
process.exit(errors > 0 ? 1 : 0);
