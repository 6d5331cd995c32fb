// `npm run bench` (or `npm run bench -- service`): the service measured through its API, each
// figure next to its anchor measured in the same run on the same machine (docs/performance.md):
//  1. throughput: digital PDFs of pdf-realworld uploaded through the API and processed by all
//     workers, upload to completed, against `pdftotext -bbox-layout` with one process per core;
//     plus the time breakdown of a job (pipeline in the thread, page images, job overhead);
//  2. read path: GET /v1/documents/{job} (1-page and 65-page results) under autocannon, against a
//     bare Fastify + pg route doing a token-hash lookup and a key read of the same row;
//  3. queue: N one-page PDFs queued, then drained by worker processes, against the in-process
//     pipeline's pages/s with the same number of threads; 1 worker process against 2;
//  4. memory: a mixed run (digital PDFs, scanned images read by both OCR engines, PPTX) through
//     one real `quire worker` process, its RSS sampled every 500 ms: peak, median, at the end of
//     the run and once its pipeline threads have ended after their idle spell.
// Needs DATABASE_URL (a PostgreSQL where it may create and drop a scratch database).
// Options: --queue-docs N (default 1000), --memory-docs N (default 200), --seconds S per
// autocannon run (default 8), --warm-passes N after the throughput's first pass (default 3),
// --only throughput,read,queue,memory, --cpu-profile DIR (CPU
// profiles of the service's main thread during the throughput run and each read-path run).
// Results: bench/results/service-latest.json (the parts run replace theirs; the others are kept).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseArgs, promisify } from 'node:util';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { type Config, loadConfig } from '../src/config.js';
import { createDb, type Db, migrateToLatest } from '../src/db/database.js';
import { bootstrapPlatform, DEFAULT_TENANT_ID } from '../src/domain/tenants/bootstrap.js';
import { buildApp } from '../src/http/app.js';
import type { App } from '../src/http/context.js';
import { newId } from '../src/lib/ids.js';
import { hashPassword } from '../src/lib/secrets.js';
import { renderPagePng, runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { Workers } from '../src/queue/workers.js';
import { defaultOcrPagesAtOnce } from '../src/queue/pipeline-pool.js';
import { findNativeTesseract } from '../src/pipeline/ocr/tesseract/index.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA = fileURLToPath(new URL('../../shared/data/', import.meta.url));
const cores = availableParallelism();
const { values: opts } = parseArgs({
  options: { 'queue-docs': { type: 'string', default: '1000' }, 'memory-docs': { type: 'string', default: '200' }, seconds: { type: 'string', default: '8' }, 'warm-passes': { type: 'string', default: '3' }, only: { type: 'string' }, 'cpu-profile': { type: 'string' }, 'memory-threads': { type: 'string' } },
  allowPositionals: true,
});
const warmPassCount = Math.max(1, Number(opts['warm-passes']));
const only = opts.only ? new Set(opts.only.split(',')) : null;
const wants = (part: string) => !only || only.has(part);
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, d = 1) => +n.toFixed(d);
const PASSWORD = 'bench-password-long-enough';

// ---- a scratch database, a tenant user and the app ------------------------------------------------

interface Service {
  db: Db;
  url: string;
  config: Config;
  app: App;
  baseUrl: string;
  token: string;
  workers: Workers | null;
  /** Sums of the workers' per-stage job timings (the `job settled` log lines), in ms. */
  timings: Record<string, number>;
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Adds a worker's `job settled` log line's stage timings (ms) to `into`; other lines are skipped. */
function addSettledTimings(line: string, into: Record<string, number>): void {
  if (!line.startsWith('{')) return;
  const entry = JSON.parse(line) as { msg?: string; timings_ms?: Record<string, number> };
  if (entry.msg !== 'job settled' || !entry.timings_ms) return;
  for (const [k, v] of Object.entries(entry.timings_ms)) into[k] = (into[k] ?? 0) + v;
}

async function startService(serverUrl: string, workerCount: number): Promise<Service> {
  const name = `quire_bench_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(serverUrl, name);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'quire-bench-'));
  // QUIRE_DB_PREPARED_STATEMENTS=0 measures the service without prepared statements.
  const { dbPreparedStatements } = loadConfig(process.env);
  const config: Config = { ...loadConfig({}), dbPreparedStatements, dataDir, adminEmail: 'bench-admin@bench.test', adminPassword: randomBytes(12).toString('hex') };
  const db = createDb(url, 20, { preparedStatements: dbPreparedStatements });
  await migrateToLatest(db);
  const quiet = pino({ level: 'silent' });
  await bootstrapPlatform(db, config, quiet);
  const email = `bench-${randomBytes(3).toString('hex')}@bench.test`;
  await db.insertInto('users').values({ id: newId('usr'), tenant_id: DEFAULT_TENANT_ID, email, display_name: null, role: 'admin', status: 'active', password_hash: await hashPassword(PASSWORD) }).execute();
  const timings: Record<string, number> = {};
  const settledLines = { write: (line: string) => addSettledTimings(line, timings) };
  const workers = workerCount > 0 ? new Workers({ db, databaseUrl: url, config, log: pino({ level: 'info' }, settledLines), count: workerCount }) : null;
  await workers?.start();
  const app = await buildApp({ db, config, version: 'bench', workerCount: () => workers?.size ?? 0 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const login = await fetch(`${baseUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  const token = ((await login.json()) as { access_token: string }).access_token;
  // The bench sends far more than the default 1,200 requests a minute; a tenant's rate limit is the
  // platform admin's to set (docs/policy.md).
  const platform = await fetch(`${baseUrl}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: config.adminEmail, password: config.adminPassword }) });
  await raiseRateLimit(baseUrl, ((await platform.json()) as { access_token: string }).access_token);
  return {
    db,
    url,
    config,
    app,
    baseUrl,
    token,
    workers,
    timings,
    close: async () => {
      await workers?.stop(0);
      await app.close();
      await db.destroy();
      await admin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function raiseRateLimit(baseUrl: string, token: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rate_limit_per_minute: 10_000_000 }),
  });
  if (!res.ok) throw new Error(`could not raise the rate limit: ${res.status} ${await res.text()}`);
}

async function upload(s: Service, file: string, fields: Record<string, string> = { processing_mode: 'canonical' }): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(readFileSync(file))]), path.basename(file));
  const res = await fetch(`${s.baseUrl}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${s.token}` }, body: form });
  const body = (await res.json()) as { job_id: string };
  if (res.status !== 202) throw new Error(`upload of ${file} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.job_id;
}

async function until(what: string, probe: () => Promise<boolean>, ms: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function counts(db: Db): Promise<Record<string, number>> {
  const rows = await db.selectFrom('jobs').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

const TERMINAL = ['completed', 'needs_review', 'rejected', 'failed'];
const terminal = (c: Record<string, number>) => TERMINAL.reduce((n, s) => n + (c[s] ?? 0), 0);

// ---- 1. throughput end to end ------------------------------------------------------------------

/** Digital PDFs of pdf-realworld: read without failing and with a text layer on every page. */
async function digitalCorpus(): Promise<{ files: string[]; pages: number; pipelineSeconds: number; imageSeconds: number; markdownSeconds: number }> {
  const dir = path.join(DATA, 'pdf-realworld/pdfs');
  const files: string[] = [];
  let pages = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.pdf')).sort()) {
    try {
      const doc = await runCanonical(readFileSync(path.join(dir, f)), { pdfMaxPages: 200 });
      if (doc.pages.length && doc.pages.every((p) => p.source === 'text_layer')) files.push(path.join(dir, f));
    } catch {
      // a document meant to fail (encrypted, empty, not a PDF) is not part of the throughput corpus
    }
  }
  // Timed second pass, one core, warm: the pipeline alone; then what drawing every page image cost.
  let pipelineSeconds = 0;
  let imageSeconds = 0;
  let markdownSeconds = 0;
  for (const f of files) {
    const bytes = readFileSync(f);
    let t = performance.now();
    const doc = await runCanonical(bytes, { pdfMaxPages: 200 });
    pipelineSeconds += (performance.now() - t) / 1000;
    t = performance.now();
    toCanonicalJson(doc);
    markdownSeconds += (performance.now() - t) / 1000;
    pages += doc.pages.length;
    t = performance.now();
    for (const p of doc.pages) await renderPagePng(bytes, p.page_number, { dpi: 100, widthPt: p.width });
    imageSeconds += (performance.now() - t) / 1000;
  }
  return { files, pages, pipelineSeconds, imageSeconds, markdownSeconds };
}

/**
 * The anchor: `pdftotext -bbox-layout` over the corpus, `processes` at a time, in seconds (the
 * fastest of three runs). The processes are started by xargs under one small shell, not by this
 * process: a fork of the bench process, which holds the corpus's pipeline results, took longer
 * than pdftotext itself (1.6 s against 0.5 s for the corpus when it held 600 MB). A missing
 * pdftotext is an error: a failed spawn is fast, and would be timed as a fast anchor.
 */
async function pdftotext(files: string[], processes: number): Promise<{ seconds: number; runs_s: number[]; failed: string[] }> {
  try {
    await run('pdftotext', ['-v']);
  } catch {
    throw new Error('the throughput anchor needs pdftotext on PATH (Debian: apt-get install poppler-utils)');
  }
  // Untimed: which files pdftotext cannot read (they still count in the anchor's work as tried),
  // and the files in the page cache for the timed runs.
  const failed: string[] = [];
  for (const f of files) await run('pdftotext', ['-q', '-bbox-layout', f, '-'], { maxBuffer: 1 << 28 }).catch(() => failed.push(path.basename(f)));
  const script = `printf '%s\\0' "$@" | xargs -0 -P ${processes} -I{} pdftotext -q -bbox-layout {} - > /dev/null; true`;
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await run('sh', ['-c', script, 'sh', ...files]);
    runs.push((performance.now() - started) / 1000);
  }
  return { seconds: Math.min(...runs), runs_s: runs.map((r) => round(r, 3)), failed };
}

/** CPU seconds so far of the whole machine, busy and idle (all cores, from /proc/stat). */
function machineCpu(): { busy: number; idle: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return { busy: (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100, idle: (f[3]! + f[4]!) / 100 };
}

/** One timed pass of the corpus through the API and the worker process: upload to completed. */
async function throughputPass(s: Service, worker: ChildProcess, files: string[], profile: string | null) {
  await s.db.deleteFrom('jobs').execute();
  for (const k of Object.keys(s.timings)) delete s.timings[k];
  const machine0 = machineCpu();
  const worker0 = workerCpu(worker.pid!);
  const api0 = process.cpuUsage();
  const started = performance.now();
  const startedAt = Date.now();
  let uploadsSeconds = 0;
  const body = async () => {
    await Promise.all(files.map((f) => upload(s, f)));
    uploadsSeconds = (performance.now() - started) / 1000;
    // Polled every 100 ms, not faster: the poll shares the two cores with what it measures. The
    // pass ends at the last job's finished_at (the same clock), not when a poll notices it.
    await until('all jobs', async () => terminal(await counts(s.db)) >= files.length, 600_000, 100);
  };
  await (profile ? profiled(profile, body) : body());
  const polledSeconds = (performance.now() - started) / 1000;
  const machine1 = machineCpu();
  const worker1 = workerCpu(worker.pid!);
  const api1 = process.cpuUsage();
  const jobs = await s.db.selectFrom('jobs').select(['status', 'pages_processed', 'created_at', 'started_at', 'finished_at']).execute();
  const pages = jobs.reduce((n, j) => n + (j.pages_processed ?? 0), 0);
  const lastFinished = Math.max(...jobs.map((j) => j.finished_at?.getTime() ?? 0));
  const seconds = lastFinished > startedAt ? (lastFinished - startedAt) / 1000 : polledSeconds;
  const inWorker = jobs.reduce((n, j) => n + (j.finished_at && j.started_at ? j.finished_at.getTime() - j.started_at.getTime() : 0), 0) / 1000;
  const waiting = jobs.reduce((n, j) => n + (j.started_at ? j.started_at.getTime() - j.created_at.getTime() : 0), 0) / 1000;
  const workerThreads = worker1.threads - worker0.threads;
  const workerMain = worker1.main - worker0.main;
  const api = (api1.user + api1.system - api0.user - api0.system) / 1e6;
  const machineBusy = machine1.busy - machine0.busy;
  return {
    pages,
    seconds,
    pages_per_s: round(pages / seconds),
    statuses: Object.fromEntries(TERMINAL.map((st) => [st, jobs.filter((j) => j.status === st).length])),
    inWorker,
    waiting,
    uploadsSeconds,
    stages: { ...s.timings },
    // Where the machine's CPU went during the pass (core-seconds; `cores` × wall is all there is).
    cpu_core_s: {
      // Counted up to the poll that saw the last job finish.
      available: round(cores * polledSeconds, 2),
      machine_busy: round(machineBusy, 2),
      worker_pipeline_threads: round(workerThreads, 2),
      worker_event_loop: round(workerMain, 2),
      api_process: round(api, 2),
      postgres_and_rest: round(machineBusy - workerThreads - workerMain - api, 2),
    },
  };
}

async function throughput(serverUrl: string) {
  const corpus = await digitalCorpus();
  log(`throughput corpus: ${corpus.files.length} digital PDFs of pdf-realworld, ${corpus.pages} pages`);
  // The API in this process, the workers in a `quire worker` process of their own (one thread
  // per core): this process also ran the corpus through the pipeline above, and that memory,
  // counted against a worker's process mark, would end its pipeline threads mid-run.
  const s = await startService(serverUrl, 0);
  const worker = workerProcess(s, cores, { LOG_LEVEL: 'info' }, (line) => addSettledTimings(line, s.timings));
  try {
    // Warm-up: every pipeline thread starts and compiles its WebAssembly before the timed run.
    await Promise.all(corpus.files.slice(0, cores * 2).map((f) => upload(s, f)));
    await until('warm-up jobs', async () => terminal(await counts(s.db)) >= cores * 2, 120_000);
    // Timed passes over the same files. The first meets threads whose JavaScript is not yet
    // optimised (each thread is its own V8 isolate and optimises the parsers and layout code on
    // its own: the pipeline's first pass costs about twice a warm one). Each thread sees about
    // half the files a pass, and its CPU per pass keeps falling until the third or fourth:
    // `--warm-passes` (3) passes follow the first, and the ratio is the last one's, the steady
    // state of a worker that has been busy for a while. Every pass's ratio is kept.
    const first = await throughputPass(s, worker, corpus.files, null);
    const warmPasses: Awaited<ReturnType<typeof throughputPass>>[] = [];
    for (let i = 0; i < warmPassCount; i++) warmPasses.push(await throughputPass(s, worker, corpus.files, i === warmPassCount - 1 ? 'throughput-main-thread' : null));
    const warm = warmPasses.at(-1)!;
    const poppler = await pdftotext(corpus.files, cores);
    const popplerPps = corpus.pages / poppler.seconds;
    const breakdown = {
      // Sums over all jobs, in seconds of one thread (the worker runs `cores` of them at once).
      pipeline_parse_layout_tables_s: round(corpus.pipelineSeconds, 2),
      canonical_json_and_markdown_s: round(corpus.markdownSeconds, 3),
      job_in_worker_s: round(warm.inWorker, 2),
      job_overhead_s: round(warm.inWorker - corpus.pipelineSeconds, 2),
      page_images_if_drawn_for_every_page_s: round(corpus.imageSeconds, 2),
      queue_wait_total_s: round(warm.waiting, 2),
      // Wall clock: every upload answered 202, and the whole run.
      uploads_wall_s: round(warm.uploadsSeconds, 2),
      run_wall_s: round(warm.seconds, 2),
      // The same jobs by stage as the workers timed them (ms summed over jobs).
      worker_stages_ms: warm.stages,
      cpu_core_s: warm.cpu_core_s,
    };
    const out = {
      files: corpus.files.length,
      pages: warm.pages,
      statuses: warm.statuses,
      quire_pages_per_s: warm.pages_per_s,
      first_pass_pages_per_s: first.pages_per_s,
      first_pass_cpu_core_s: first.cpu_core_s,
      pdftotext_pages_per_s: round(popplerPps),
      pdftotext_runs_s: poppler.runs_s,
      pdftotext_failed_files: poppler.failed,
      ratio: round(warm.pages_per_s / popplerPps, 3),
      first_pass_ratio: round(first.pages_per_s / popplerPps, 3),
      warm_pass_ratios: warmPasses.map((p) => round(p.pages_per_s / popplerPps, 3)),
      warm_pass_pipeline_thread_core_s: warmPasses.map((p) => p.cpu_core_s.worker_pipeline_threads),
      goal: 0.25,
      stretch: 0.5,
      in_process_one_core_pages_per_s: round(corpus.pages / corpus.pipelineSeconds),
      breakdown,
    };
    log(`1. throughput: quire ${out.quire_pages_per_s} pages/s end to end (${cores} workers, warm) vs pdftotext ${out.pdftotext_pages_per_s} (${cores} processes): ratio ${out.ratio} (goal 0.25, stretch 0.5); first pass ${out.first_pass_pages_per_s} pages/s, ratio ${out.first_pass_ratio}`);
    log(`   CPU, core-seconds: warm ${JSON.stringify(warm.cpu_core_s)}; first pass ${JSON.stringify(first.cpu_core_s)}`);
    if (warmPasses.length > 1) log(`   warm passes in order: ratios ${out.warm_pass_ratios.join(', ')}; pipeline threads' core-seconds ${out.warm_pass_pipeline_thread_core_s.join(', ')}`);
    log(`   breakdown: ${JSON.stringify(breakdown)}`);
    return out;
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => (worker.exitCode !== null ? r(null) : worker.once('exit', r)));
    await s.close();
  }
}

// ---- 2. read path --------------------------------------------------------------------------------

interface Cannon {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
}

async function cannon(url: string, token: string, seconds: number): Promise<Cannon> {
  const bin = path.join(ROOT, 'node_modules/autocannon/autocannon.js');
  // A separate process, so the load generator does not share the server's event loop.
  const { stdout } = await run(process.execPath, [bin, '-c', '20', '-d', String(seconds), '-j', '-H', `authorization=Bearer ${token}`, url], { maxBuffer: 1 << 26 });
  const r = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
  return { requests_per_s: round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/** The anchor: Fastify + pg, a session token-hash lookup and a read of the job row by key, nothing else. */
async function bareRoute(url: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const app = Fastify();
  app.get<{ Params: { id: string } }>('/bare/:id', async (request, reply) => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const session = await pool.query('SELECT s.user_id, u.tenant_id FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = $1 AND s.revoked_at IS NULL', [createHash('sha256').update(token).digest('hex')]);
    if (!session.rows[0]) return reply.status(401).send({ detail: 'no' });
    const job = await pool.query('SELECT id, status, result::text AS result FROM jobs WHERE tenant_id = $1 AND id = $2', [session.rows[0].tenant_id, request.params.id]);
    if (!job.rows[0]) return reply.status(404).send({ detail: 'no' });
    return reply.type('application/json').send(`{"job_id":"${job.rows[0].id}","status":"${job.rows[0].status}","result":${job.rows[0].result ?? 'null'}}`);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, close: async () => (await app.close(), await pool.end()) };
}

/** With --cpu-profile DIR, a V8 CPU profile of this process (the API under load) while `fn` runs. */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!opts['cpu-profile']) return fn();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(opts['cpu-profile'], { recursive: true });
    const file = path.join(opts['cpu-profile'], `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    log(`CPU profile: ${file} (open in Chrome DevTools or speedscope)`);
  }
}

async function readPath(serverUrl: string, seconds: number) {
  const s = await startService(serverUrl, cores);
  const bare = await bareRoute(s.url);
  try {
    const small = await upload(s, path.join(DATA, 'invoice2data/files/camelot-example.pdf'));
    const large = await upload(s, path.join(DATA, 'pdf-realworld/pdfs/chelsea_pdta.pdf'));
    await until('read-path jobs', async () => terminal(await counts(s.db)) >= 2, 120_000);
    await s.workers?.stop(0);
    const out: Record<string, unknown> = {};
    for (const [label, id] of [['one_page', small], ['sixty_five_pages', large]] as const) {
      const quire = await profiled(`read-path-${label}`, () => cannon(`${s.baseUrl}/v1/documents/${id}`, s.token, seconds));
      const anchor = await cannon(`${bare.baseUrl}/bare/${id}`, s.token, seconds);
      const ratio = round(quire.requests_per_s / anchor.requests_per_s, 3);
      out[label] = { quire, bare_fastify_pg: anchor, ratio, goal: 0.5, p99_goal_ms: 10 };
      log(`2. read path (${label}): quire ${quire.requests_per_s} req/s p99 ${quire.p99_ms} ms vs bare ${anchor.requests_per_s} req/s p99 ${anchor.p99_ms} ms: ratio ${ratio} (goal 0.5, p99 < 10 ms)`);
    }
    return out;
  } finally {
    await bare.close();
    await s.close();
  }
}

// ---- 3. queue ------------------------------------------------------------------------------------

/**
 * The worker processes run Quire as shipped: compiled to dist/ (what `npm start` runs) and started
 * by bin/quire.js. From the TypeScript sources, every pipeline thread would also carry tsx's
 * loader (a hook thread and the compiled sources of its own), about 50–80 MB of a worker's
 * resident memory and a second of each thread's start-up that no deployment has.
 */
async function buildWorkers(): Promise<void> {
  log('compiling the server to dist/ for the worker processes (tsc -p tsconfig.build.json)');
  await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { cwd: ROOT });
}

function workerProcess(s: Service, concurrency: number, env: Record<string, string> = {}, onLine?: (line: string) => void): ChildProcess {
  // With --cpu-profile, each worker process writes a V8 profile of each of its threads when it exits.
  const profile = opts['cpu-profile'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts['cpu-profile'])] : [];
  const child = spawn(process.execPath, [...profile, path.join(ROOT, 'bin/quire.js'), 'worker', '--concurrency', String(concurrency)], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: s.url, QUIRE_DATA_DIR: s.config.dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', onLine ? 'pipe' : 'ignore', 'inherit'],
  });
  if (onLine && child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
  return child;
}

/** CPU seconds (user + system) of one process or thread, from /proc (0 once it is gone). */
/** The fields of a /proc stat file after the command name (which may hold spaces); null when the process is gone. */
function statFields(statFile: string): string[] | null {
  try {
    const stat = readFileSync(statFile, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function cpuSeconds(statFile: string): number {
  // utime and stime are the 12th and 13th fields after the command name.
  const fields = statFields(statFile);
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : 0;
}

/** A worker process's CPU so far: its main thread (the event loop) and all its other threads. */
function workerCpu(pid: number): { main: number; threads: number } {
  let threads = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) if (Number(tid) !== pid) threads += cpuSeconds(`/proc/${pid}/task/${tid}/stat`);
  } catch {
    // the process has exited
  }
  return { main: cpuSeconds(`/proc/${pid}/task/${pid}/stat`), threads };
}

/** CPU seconds so far of each PostgreSQL backend serving the scratch database (local server only). */
async function backendCpu(s: Service): Promise<Map<number, number>> {
  const { rows } = await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`.execute(s.db);
  return new Map(rows.map((r) => [r.pid, cpuSeconds(`/proc/${r.pid}/stat`)]));
}

/** Documents each anchor thread runs untimed first. */
const ANCHOR_WARM_UP_PER_THREAD = 50;

async function inProcessPagesPerSecond(file: string, threads: number, documents: number): Promise<number> {
  const { Worker } = await import('node:worker_threads');
  const entry = JSON.stringify(new URL('./lib/canonical-worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`;
  const pool = Array.from({ length: threads }, () => new Worker(boot, { eval: true }));
  const drain = async (n: number) => {
    let left = n;
    let pages = 0;
    await Promise.all(
      pool.map(
        (w) =>
          new Promise<void>((resolve) => {
            const next = () => (left-- > 0 ? w.postMessage(file) : (w.off('message', onMessage), resolve()));
            const onMessage = (m: { pages: number }) => ((pages += m.pages), next());
            w.on('message', onMessage);
            next();
          }),
      ),
    );
    return pages;
  };
  // Warmed as far as the drain's timed window is: it opens after a tenth of the jobs, about
  // ANCHOR_WARM_UP_PER_THREAD per thread of 1,000. V8 keeps optimising the parsers and layout code
  // over the first few dozen documents of a thread (timed after only 5 a thread, the anchor read
  // 350 pages/s where it reads 510 warm, on a 2-core AMD EPYC).
  await drain(threads * ANCHOR_WARM_UP_PER_THREAD);
  const started = performance.now();
  const pages = await drain(documents);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pool.map((w) => w.terminate()));
  return pages / seconds;
}

async function drain(serverUrl: string, file: string, documents: number, processes: number, perProcess: number) {
  const s = await startService(serverUrl, 0);
  try {
    // Single uploads, eight at a time, all of the same file: the API's ingest of duplicates.
    let left = documents;
    const uploadsStarted = performance.now();
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (left-- > 0) await upload(s, file);
    }));
    const uploadsPerSecond = documents / ((performance.now() - uploadsStarted) / 1000);
    const queued = (await counts(s.db)).queued ?? 0;
    const started = performance.now();
    // The steady state is timed: from the 10th to the 90th percent of jobs finished. A worker's
    // pipeline threads start on first use and run unoptimised code on their first documents, and
    // the in-process anchor's threads are warmed before it is timed, so the warm-up and the last
    // jobs' tail are left out of both the rate and the per-job figures.
    const from = Math.floor(queued * 0.1);
    const to = Math.ceil(queued * 0.9);
    // The workers' own per-stage timings, from their `claimed` and `job settled` log lines (ms
    // summed over the jobs settled inside the window).
    const stages: Record<string, number> = {};
    let inWindow = false;
    let settledInWindow = 0;
    const onLine = (line: string) => {
      if (!line.startsWith('{') || !inWindow) return;
      const entry = JSON.parse(line) as { msg?: string; claim_ms?: number; timings_ms?: Record<string, number> };
      if (entry.msg === 'claimed' && entry.claim_ms !== undefined) stages.claim = (stages.claim ?? 0) + entry.claim_ms;
      if (entry.msg === 'job settled' && entry.timings_ms) {
        settledInWindow++;
        for (const [k, v] of Object.entries(entry.timings_ms)) stages[k] = (stages[k] ?? 0) + v;
      }
    };
    const children = Array.from({ length: processes }, () => workerProcess(s, perProcess, { LOG_LEVEL: 'info' }, onLine));
    type CpuSnapshot = { at: number; done: number; workers: { main: number; threads: number }[]; backends: Map<number, number> };
    let first: CpuSnapshot | null = null;
    let last: CpuSnapshot | null = null;
    const snapshot = async (done: number): Promise<CpuSnapshot> => ({ at: performance.now(), done, workers: children.map((c) => workerCpu(c.pid!)), backends: await backendCpu(s) });
    try {
      await until(
        'the queue to drain',
        async () => {
          const done = terminal(await counts(s.db));
          if (!first && done >= from) {
            first = await snapshot(done);
            inWindow = true;
          }
          if (first && !last && done >= to) {
            last = await snapshot(done);
            inWindow = false;
          }
          return done >= queued;
        },
        900_000,
        20,
      );
    } finally {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    }
    // Also the whole drain, from the first claim to the last settle (thread start-up included).
    const span = await s.db.selectFrom('jobs').select((eb) => [eb.fn.min('started_at').as('first'), eb.fn.max('finished_at').as('last')]).executeTakeFirst();
    const wholeSeconds = span?.first && span.last ? (new Date(span.last as Date).getTime() - new Date(span.first as Date).getTime()) / 1000 : (performance.now() - started) / 1000;
    const c = await counts(s.db);
    const pages = Number((await s.db.selectFrom('jobs').select((eb) => eb.fn.sum<number>('pages_processed').as('p')).executeTakeFirst())?.p ?? 0);
    const a = first as CpuSnapshot | null;
    const b = last as CpuSnapshot | null;
    const windowJobs = a && b ? b.done - a.done : 0;
    const windowSeconds = a && b ? (b.at - a.at) / 1000 : wholeSeconds;
    const perJob = (ms: number, jobs: number) => round(ms / Math.max(1, jobs), 1);
    // CPU per job in ms: each worker's event loop, its other threads (pipeline, GC, file I/O), and
    // the PostgreSQL backends serving this database. On 2 cores their sum bounds the drain rate.
    const cpu = a && b
      ? {
          worker_main_ms_per_job: perJob(b.workers.reduce((n, w, i) => n + w.main - a.workers[i]!.main, 0) * 1000, windowJobs),
          worker_threads_ms_per_job: perJob(b.workers.reduce((n, w, i) => n + w.threads - a.workers[i]!.threads, 0) * 1000, windowJobs),
          postgres_ms_per_job: perJob([...b.backends].reduce((n, [pid, t]) => n + t - (a.backends.get(pid) ?? 0), 0) * 1000, windowJobs),
        }
      : null;
    const stagesPerJob = Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, perJob(v, settledInWindow)]));
    // One-page documents: pages per second is jobs per second times the average page count.
    const pagesPerJob = pages / Math.max(1, terminal(c));
    return {
      queued,
      uploads_per_s: round(uploadsPerSecond),
      completed: c.completed ?? 0,
      failed: c.failed ?? 0,
      lost: queued - terminal(c),
      seconds: round(windowSeconds, 2),
      pages_per_s: round((windowJobs * pagesPerJob) / windowSeconds),
      whole_drain_seconds: round(wholeSeconds, 2),
      whole_drain_pages_per_s: round(pages / wholeSeconds),
      load_average_1m: round(loadavg()[0], 2),
      stages_ms_per_job: stagesPerJob,
      cpu_per_job: cpu,
    };
  } finally {
    await s.close();
  }
}

async function queue(serverUrl: string, documents: number) {
  const file = path.join(DATA, 'invoice2data/files/camelot-example.pdf');
  const threads = cores;
  // The anchor just before and just after the drain, averaged: on a shared machine the load drifts.
  const before = await inProcessPagesPerSecond(file, threads, Math.min(documents, 400));
  const oneByTwo = await drain(serverUrl, file, documents, 1, threads);
  const after = await inProcessPagesPerSecond(file, threads, Math.min(documents, 400));
  const inProcess = (before + after) / 2;
  const ratio = round(oneByTwo.pages_per_s / inProcess, 3);
  log(`3. queue: ${documents} one-page PDFs drained at ${oneByTwo.pages_per_s} pages/s (1 process × ${threads} threads) vs in-process ${round(inProcess)} pages/s (${threads} threads; ${round(before)} before, ${round(after)} after): ratio ${ratio} (goal 0.8), lost ${oneByTwo.lost}, load ${oneByTwo.load_average_1m}; uploaded at ${oneByTwo.uploads_per_s}/s (8 at once); whole drain with thread start-up ${oneByTwo.whole_drain_pages_per_s} pages/s`);
  log(`   per job: stages ${JSON.stringify(oneByTwo.stages_ms_per_job)}, CPU ${JSON.stringify(oneByTwo.cpu_per_job)}`);
  const one = await drain(serverUrl, file, documents, 1, 1);
  const two = await drain(serverUrl, file, documents, 2, 1);
  const scaling = round(two.pages_per_s / one.pages_per_s, 2);
  log(`   worker processes: 1 → ${one.pages_per_s} pages/s, 2 → ${two.pages_per_s} pages/s: ${scaling}× (goal 1.8×), lost ${one.lost + two.lost}, load ${two.load_average_1m}`);
  log(`   per job, 1 process × 1 thread: CPU ${JSON.stringify(one.cpu_per_job)}; 2 processes: CPU ${JSON.stringify(two.cpu_per_job)}`);
  return { documents, in_process_pages_per_s: round(inProcess), in_process_before_after: [round(before), round(after)], threads, drained: oneByTwo, ratio, goal: 0.8, one_process: one, two_processes: two, scaling, scaling_goal: 1.8 };
}

// ---- 4. worker memory over a mixed run ----------------------------------------------------------

/** Digital PDFs, scanned images (OCR by both engines under the default `confidence_based`) and PPTX, interleaved. */
function mixedCorpus(documents: number): string[] {
  const list = (dir: string, ext: RegExp, maxBytes: number) =>
    readdirSync(path.join(DATA, dir))
      .filter((f) => ext.test(f))
      .sort()
      .map((f) => path.join(DATA, dir, f))
      .filter((f) => statSync(f).size < maxBytes);
  const kinds = [
    list('pdf-realworld/pdfs', /\.pdf$/i, 2_000_000),
    [...list('funsd/images', /\.png$/i, 2_000_000), ...list('sroie/img', /\.jpg$/i, 2_000_000)],
    list('pptx-python-pptx/files', /\.pptx$/i, 2_000_000),
  ];
  return Array.from({ length: documents }, (_, i) => {
    const files = kinds[i % kinds.length]!;
    return files[Math.floor(i / kinds.length) % files.length]!;
  });
}

function vmRssBytes(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Resident memory of a process and every process below it. A worker reads pages with the native
 * `tesseract` binary when it is on PATH, in a child process per page: that memory is the worker's too.
 */
function treeRssBytes(pid: number): number | null {
  const own = vmRssBytes(pid);
  if (own === null) return null;
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // The parent pid is the second field after the command name; a process that ended meanwhile is skipped.
    const fields = statFields(`/proc/${entry}/stat`);
    if (fields) parents.set(Number(entry), Number(fields[1]));
  }
  let total = own;
  const below = [pid];
  while (below.length) {
    const parent = below.pop()!;
    for (const [child, ppid] of parents) if (ppid === parent) below.push(child), (total += vmRssBytes(child) ?? 0);
  }
  return total;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function memory(serverUrl: string, documents: number, threads: number) {
  const idleSeconds = 10;
  const s = await startService(serverUrl, 0);
  try {
    const files = mixedCorpus(documents);
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = next++; i < files.length; i = next++) await upload(s, files[i]!);
    }));
    const child = workerProcess(s, threads, { QUIRE_PIPELINE_IDLE_SECONDS: String(idleSeconds) });
    const samples: number[] = [];
    const sampledAt: number[] = [];
    const sampler = setInterval(() => {
      const rss = child.pid ? treeRssBytes(child.pid) : null;
      if (rss !== null) samples.push(rss), sampledAt.push(Date.now());
    }, 500);
    const started = performance.now();
    try {
      await until('the mixed run to finish', async () => terminal(await counts(s.db)) >= documents, 3_600_000, 500);
      const seconds = (performance.now() - started) / 1000;
      const atEnd = samples.at(-1) ?? 0;
      // The pipeline threads end after their idle spell; the process is then back at rest.
      await new Promise((r) => setTimeout(r, (idleSeconds + 15) * 1000));
      const idle = treeRssBytes(child.pid!) ?? 0;
      const sorted = [...samples].sort((a, b) => a - b);
      const c = await counts(s.db);
      // The jobs claimed at the three highest samples: what the peak is made of. A claim sets
      // started_at, so a job still waiting in the worker's claim buffer is listed too.
      const ran = await s.db.selectFrom('jobs').select(['original_filename as filename', 'page_count', 'started_at', 'finished_at', sql<boolean>`result->'engine'->'ocr' is not null`.as('ocr')]).execute();
      const atPeak = samples
        .map((rss, i) => ({ rss, at: sampledAt[i]! }))
        .sort((a, b) => b.rss - a.rss)
        .slice(0, 3)
        .map(({ rss, at }) => ({
          rss_mb: mib(rss),
          claimed: ran.filter((j) => j.started_at && j.started_at.getTime() <= at && (!j.finished_at || j.finished_at.getTime() >= at)).map((j) => `${j.filename} (${j.page_count ?? '?'} p${j.ocr ? ', OCR' : ''})`),
        }));
      const ocrJobs = await s.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where(sql`result->'engine'->'ocr'`, 'is not', null).executeTakeFirst();
      const out = {
        documents,
        mix: { pdf: files.filter((f) => f.endsWith('.pdf')).length, scanned_images: files.filter((f) => /\.(png|jpe?g)$/i.test(f)).length, pptx: files.filter((f) => f.endsWith('.pptx')).length },
        jobs_with_ocr: Number(ocrJobs?.n ?? 0),
        statuses: Object.fromEntries(TERMINAL.map((st) => [st, c[st] ?? 0])),
        failure_codes: Object.fromEntries(
          (await s.db.selectFrom('jobs').select(['failure_code', (eb) => eb.fn.countAll<number>().as('n')]).where('status', '=', 'failed').groupBy('failure_code').execute()).map((r) => [r.failure_code ?? 'none', Number(r.n)]),
        ),
        worker_threads: threads,
        // glibc settings from the environment; the worker applies its own for those left null
        // (docs/performance.md, "Worker memory").
        malloc_env: Object.fromEntries(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_'].map((k) => [k, process.env[k] ?? null])),
        tesseract_backend: findNativeTesseract() ? 'native' : 'wasm',
        ocr_pages_at_once: Number(process.env.QUIRE_OCR_PAGES_AT_ONCE ?? 0) || defaultOcrPagesAtOnce(threads),
        seconds: round(seconds),
        samples: samples.length,
        peak_rss_mb: mib(sorted.at(-1) ?? 0),
        p50_rss_mb: mib(quantile(sorted, 0.5)),
        p90_rss_mb: mib(quantile(sorted, 0.9)),
        rss_at_end_mb: mib(atEnd),
        idle_rss_mb: mib(idle),
        idle_after_s: idleSeconds,
        at_peak: atPeak,
        goal_peak_mb: 800,
        measured_at: new Date().toISOString(),
        load_average_1m: round(loadavg()[0], 2),
      };
      log(`4. memory: ${documents} mixed documents through one worker (${threads} thread${threads === 1 ? '' : 's'}) in ${out.seconds} s: RSS peak ${out.peak_rss_mb} MB, p50 ${out.p50_rss_mb} MB, p90 ${out.p90_rss_mb} MB, at the end ${out.rss_at_end_mb} MB, idle ${out.idle_rss_mb} MB (goal: peak ≤ 800 MB)`);
      log(`   at the highest samples: ${JSON.stringify(atPeak)}`);
      return out;
    } finally {
      clearInterval(sampler);
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    }
  } finally {
    await s.close();
  }
}

// ---- main ----------------------------------------------------------------------------------------

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL is required: the bench creates and drops a scratch database there');
  log(`service bench: ${cores} cores (${cpus()[0]?.model ?? 'unknown cpu'}), load ${loadavg()[0].toFixed(2)}`);
  const result: Record<string, unknown> = { at: new Date().toISOString() };
  if (wants('throughput') || wants('queue') || wants('memory')) await buildWorkers();
  if (wants('throughput')) result.throughput = await throughput(serverUrl);
  if (wants('read')) result.read_path = await readPath(serverUrl, Number(opts.seconds));
  if (wants('queue')) result.queue = await queue(serverUrl, Number(opts['queue-docs']));
  if (wants('memory')) result.memory = await memory(serverUrl, Number(opts['memory-docs']), Number(opts['memory-threads'] ?? cores));
  // A shared machine skews every number; the 1-minute load at the end says how much.
  result.machine = { cores, cpu: cpus()[0]?.model, node: process.version, load_average_1m: round(loadavg()[0], 2) };
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL('service-latest.json', dir);
  // A part not run this time keeps its last figures.
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(file, `${JSON.stringify({ ...previous, ...result }, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
process.exit(0);
