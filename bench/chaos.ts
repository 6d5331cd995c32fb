// `npm run chaos -- [--jobs 200] [--kills 100]`: two `quire worker` processes on a scratch
// PostgreSQL database (DATABASE_URL names the server), jobs submitted through the real API (a
// third in extraction mode under a template that sends them to review), each delivered to a local
// folder, and a random worker SIGKILLed at random moments, then restarted. At the end every job
// must be terminal exactly once: 0 lost, 0 duplicated results and artifacts, at most one open
// review per job, every job delivered once, 0 stuck. Exits non-zero on any loss.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { bootstrapPlatform } from '../src/domain/tenants/bootstrap.js';
import { buildApp } from '../src/http/app.js';
import { DATA } from './lib/hostile-files.js';
import { createScratchDb } from './lib/scratch-db.js';

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '200' }, kills: { type: 'string', default: '100' }, 'deadline-s': { type: 'string', default: '1200' } } });
const jobCount = Number(values.jobs);
const killCount = Number(values.kills);

const scratch = await createScratchDb('quire_chaos');
const dataDir = fs.mkdtempSync('/tmp/quire-chaos-');
const email = 'chaos@quire.test';
const password = 'chaos-password-long-enough';
const config = { ...loadConfig({}), dataDir, adminEmail: email, adminPassword: password, authRateLimitPerIp: 1_000_000 };
const db = createDb(scratch.url, 5);
await bootstrapPlatform(db, config, pino({ level: 'silent' }));
const app = await buildApp({ db, config, version: 'chaos', workerCount: () => 2 });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const login = await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).json();
const auth = { authorization: `Bearer ${login.access_token as string}` };
await fetch(`${base}/v1/admin/tenant-policy/default`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ rate_limit_per_minute: 1_000_000 }) });

const post = async (url: string, body: unknown) => {
  const res = await fetch(`${base}${url}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string };
};
// Results land in <data dir>/connections/chaos; the template's required reference is on none of
// the files, so its jobs end needs_review with one open review each.
const destination = await post('/v1/admin/connections', { name: 'chaos-folder', protocol: 'local', direction: 'destination', config: { path: 'chaos' }, credentials: {} });
const template = await post('/v1/templates', {
  name: 'chaos-review',
  json_schema: { type: 'object', properties: { purchase_order_reference: { type: 'string' } }, required: ['purchase_order_reference'] },
});

const files = ['invoice2data/files/camelot-example.pdf', 'pdf-realworld/pdfs/issue-53-example.pdf', 'pptx-python-pptx/files/prs-notes.pptx'].map((f) => path.join(DATA, f));
for (let i = 0; i < jobCount; i++) {
  const file = files[i % files.length]!;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fs.readFileSync(file))]), path.basename(file));
  const mode = (['canonical', 'entities', 'extraction'] as const)[i % 3]!;
  form.append('processing_mode', mode);
  if (mode === 'extraction') form.append('template_id', template.id);
  form.append('destination_connection_id', destination.id);
  const res = await fetch(`${base}/v1/documents`, { method: 'POST', headers: auth, body: form });
  if (res.status !== 202) throw new Error(`upload ${i} answered ${res.status}: ${await res.text()}`);
}

const env = { ...process.env, DATABASE_URL: scratch.url, QUIRE_DATA_DIR: dataDir, QUIRE_JOB_LEASE_SECONDS: '4', QUIRE_RECOVERY_INTERVAL_SECONDS: '2', LOG_LEVEL: 'warn' };
const entry = path.join(import.meta.dirname, 'lib/worker-main.ts');
const spawnWorker = (): ChildProcess => spawn(process.execPath, ['--import', 'tsx', entry, '--concurrency', '1'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
const workers: ChildProcess[] = [spawnWorker(), spawnWorker()];

const terminal = async () => {
  const { rows } = await sql<{ open: number }>`
    SELECT (SELECT count(*) FROM jobs WHERE status IN ('queued', 'processing'))
         + (SELECT count(*) FROM deliveries WHERE status IN ('pending', 'delivering'))::int AS open`.execute(db);
  return Number(rows[0]!.open) === 0;
};

const started = Date.now();
let kills = 0;
while (kills < killCount && !(await terminal())) {
  await new Promise((r) => setTimeout(r, 3_000 + Math.random() * 5_000));
  const i = Math.floor(Math.random() * workers.length);
  workers[i]!.kill('SIGKILL');
  workers[i] = spawnWorker();
  kills++;
}
const deadline = started + Number(values['deadline-s']) * 1000;
while (!(await terminal()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1_000));
for (const w of workers) w.kill('SIGTERM');

const jobs = await db.selectFrom('jobs').select(['id', 'status', 'result', 'failure_code', 'attempts']).execute();
const stuck = jobs.filter((j) => ['queued', 'processing'].includes(j.status)).length;
const lostResults = jobs.filter((j) => j.status === 'completed' && !j.result).length;
const { rows: dupArtifacts } = await sql<{ n: number }>`
  SELECT count(*)::int AS n FROM (SELECT job_id, kind, page_number FROM artifacts GROUP BY 1, 2, 3 HAVING count(*) > 1) d`.execute(db);
const { rows: dupReviews } = await sql<{ n: number }>`
  SELECT count(*)::int AS n FROM (SELECT job_id FROM reviews WHERE status IN ('pending', 'in_review') GROUP BY 1 HAVING count(*) > 1) d`.execute(db);
const { rows: dupDeliveries } = await sql<{ n: number }>`
  SELECT count(*)::int AS n FROM (SELECT job_id FROM deliveries WHERE kind = 'job' GROUP BY 1 HAVING count(*) > 1) d`.execute(db);
const { rows: undelivered } = await sql<{ n: number }>`
  SELECT count(*)::int AS n FROM jobs j
   WHERE j.status NOT IN ('queued', 'processing')
     AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.job_id = j.id AND d.kind = 'job' AND d.status = 'delivered')`.execute(db);
const folder = path.join(dataDir, 'connections', 'chaos');
const missingFiles = jobs.filter((j) => !['queued', 'processing'].includes(j.status) && !fs.existsSync(path.join(folder, `${j.id}.json`))).length;
const { rows: openReviews } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM reviews WHERE status IN ('pending', 'in_review')`.execute(db);
const byStatus = jobs.reduce<Record<string, number>>((acc, j) => ((acc[`${j.status}${j.failure_code ? `:${j.failure_code}` : ''}`] = (acc[`${j.status}${j.failure_code ? `:${j.failure_code}` : ''}`] ?? 0) + 1), acc), {});
const lost = jobCount - jobs.length;
const losses = stuck + lostResults + dupArtifacts[0]!.n + dupReviews[0]!.n + lost + dupDeliveries[0]!.n + undelivered[0]!.n + missingFiles;
process.stdout.write(
  [
    `chaos: ${jobCount} jobs, 2 workers, ${kills} SIGKILLs, ${Math.round((Date.now() - started) / 1000)} s`,
    `jobs by outcome: ${JSON.stringify(byStatus)}; attempts max ${Math.max(...jobs.map((j) => j.attempts))}`,
    `lost jobs ${lost}, stuck ${stuck}, completed without result ${lostResults}, duplicated artifacts ${dupArtifacts[0]!.n}, jobs with more than one open review ${dupReviews[0]!.n}`,
    `open reviews ${openReviews[0]!.n} (one per needs_review job at most)`,
    `deliveries: jobs not delivered ${undelivered[0]!.n}, result files missing ${missingFiles}, jobs delivered under more than one delivery ${dupDeliveries[0]!.n}`,
  ].join('\n') + '\n',
);
await app.close();
await db.destroy();
await scratch.drop();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(losses > 0 ? 1 : 0);
