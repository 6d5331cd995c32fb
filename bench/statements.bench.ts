// `npm run bench -- statements [--jobs N]`: what each database statement of a one-page canonical
// job costs, one statement at a time on one connection, through the functions a worker calls:
// PostgreSQL's CPU (the backend's, from /proc), this process's CPU (building the statement,
// the pg protocol, reading the answer) and the wall time of the round trip. The queue's part of
// docs/performance.md ("Ceilings") reads these beside the drain's CPU per job.
// Needs DATABASE_URL naming a PostgreSQL on this machine (its backend's /proc entry is read); a
// scratch database is created and dropped. Writes bench/results/statements-latest.json.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import type { Job } from '../src/db/documents-schema.js';
import { PolicyService } from '../src/domain/policy/policy.service.js';
import { bootstrapPlatform, DEFAULT_TENANT_ID } from '../src/domain/tenants/bootstrap.js';
import { runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { claimJobs } from '../src/queue/claim.js';
import { type NewArtifact, settleRun, startRun } from '../src/queue/lease.js';
import { remoteOcrFor } from '../src/queue/remote-ocr.js';
import { storeAllBytes } from '../src/storage/blob-registry.js';
import { createBlobStore } from '../src/storage/index.js';
import { createScratchDb } from './lib/scratch-db.js';
import { machineFacts, writeLatest } from './lib/results.js';

const at = process.argv.indexOf('--jobs');
const JOBS = at > 0 ? Number(process.argv[at + 1]) : 2000;
/** What the queue bench's worker claims at once with its two threads (workers.ts: loops per thread × threads). */
const CLAIM_BATCH = 4;
const FILE = new URL('../../shared/data/invoice2data/files/camelot-example.pdf', import.meta.url);
const log = (line: string) => process.stderr.write(`${line}\n`);

const scratch = await createScratchDb('quire_statements');
const dataDir = mkdtempSync(path.join(tmpdir(), 'quire-statements-'));
const config = { ...loadConfig({}), dataDir, adminEmail: 'bench-admin@bench.test', adminPassword: 'bench-password-long-enough' };
// One connection, so that one backend serves every statement and its CPU is theirs.
const db = createDb(scratch.url, 1, { preparedStatements: config.dbPreparedStatements });
try {
  await bootstrapPlatform(db, config, pino({ level: 'silent' }));
  const store = createBlobStore(config);
  const {
    rows: [backend],
  } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
  // utime + stime of the backend, in ms (clock ticks of 10 ms: spread over JOBS statements).
  const backendMs = () => {
    const fields = readFileSync(`/proc/${backend!.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };

  // The job's real outputs: its canonical JSON (the result's bulk), its Markdown.
  const canonical = toCanonicalJson(await runCanonical(readFileSync(FILE)));
  const canonicalText = JSON.stringify(canonical);
  const resultText = `{"canonical":${canonicalText}}`;
  const outputs = [Buffer.from(canonicalText), Buffer.from(canonical.markdown)];
  const source = { sha256: 'f'.repeat(64), size: readFileSync(FILE).length };
  await db.insertInto('blobs').values({ sha256: source.sha256, size_bytes: source.size }).execute();
  const queued = JOBS * (1 + CLAIM_BATCH);
  await sql`INSERT INTO jobs (id, tenant_id, status, processing_mode, size_bytes, sha256, original_filename, content_type)
    SELECT 'job_bench_' || lpad(g::text, 7, '0'), ${DEFAULT_TENANT_ID}, 'queued', 'canonical', ${source.size}, ${source.sha256}, 'camelot-example.pdf', 'application/pdf'
      FROM generate_series(1, ${queued}) g`.execute(db);
  await sql`VACUUM ANALYZE jobs`.execute(db);

  const rows: { statement: string; postgres_ms: number; node_ms: number; wall_ms: number; per: string }[] = [];
  const measure = async (statement: string, times: number, per: string, fn: (i: number) => Promise<unknown>) => {
    const pg0 = backendMs();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < times; i++) await fn(i);
    const cpu = process.cpuUsage(cpu0);
    const perJob = (ms: number) => +(ms / JOBS).toFixed(3);
    rows.push({ statement, postgres_ms: perJob(backendMs() - pg0), node_ms: perJob((cpu.user + cpu.system) / 1000), wall_ms: perJob(performance.now() - t0), per });
  };

  const claimed: Job[] = [];
  const policy = new PolicyService(db);
  await measure('claim, one job a statement', JOBS, 'job', async () => claimed.push(...(await claimJobs(db, 'bench-worker', 60, 1))));
  await measure(`claim, ${CLAIM_BATCH} jobs a statement`, JOBS, `job (${CLAIM_BATCH} a statement)`, async (i) => {
    if (i % CLAIM_BATCH === 0) await claimJobs(db, 'bench-worker', 60, CLAIM_BATCH, CLAIM_BATCH);
  });
  await measure('policy in force (policy.current)', JOBS, 'job', () => policy.current(DEFAULT_TENANT_ID));
  await measure('remote OCR endpoint (remoteOcrFor)', JOBS, 'job', () => remoteOcrFor(db, config, DEFAULT_TENANT_ID, false));
  await measure('run start (startRun)', JOBS, 'job', (i) => startRun(db, claimed[i]!.id, 'bench-worker', 60));
  await measure('artifact blobs: hash, register, write (storeAllBytes)', JOBS, 'job', () => storeAllBytes(db, store, outputs));
  const artifacts: NewArtifact[] = [
    { kind: 'canonical_json', page_number: null, filename: 'camelot-example.canonical.json', content_type: 'application/json', size_bytes: outputs[0]!.length, sha256: source.sha256 },
    { kind: 'markdown', page_number: null, filename: 'camelot-example.md', content_type: 'text/markdown; charset=utf-8', size_bytes: outputs[1]!.length, sha256: source.sha256 },
    { kind: 'page_image', page_number: 1, filename: 'camelot-example.page-0001.png', content_type: 'image/png', size_bytes: null, sha256: null, render: { dpi: 100, quarter_turns: 0, width_pt: canonical.pages[0]!.width } },
  ];
  await measure('settle with result and artifacts (settleRun)', JOBS, 'job', (i) =>
    settleRun(db, claimed[i]!, 'bench-worker', { status: 'completed', result: {}, resultText, page_count: 1, pages_processed: 1, classification: null, template_version: null, review_reasons: [], artifacts, reading: null }),
  );
  await measure('SELECT 1 (the round trip alone)', JOBS, 'job', () => sql`SELECT 1`.execute(db));

  const jobRows = rows.filter((r) => !r.statement.startsWith('claim, one') && !r.statement.startsWith('SELECT 1'));
  const total = { postgres_ms: +jobRows.reduce((n, r) => n + r.postgres_ms, 0).toFixed(2), node_ms: +jobRows.reduce((n, r) => n + r.node_ms, 0).toFixed(2) };
  log(`statements of a one-page canonical job, ${JOBS} each, one at a time on one connection (ms a job):`);
  log(`${'statement'.padEnd(56)} ${'postgres'.padStart(9)} ${'node'.padStart(7)} ${'wall'.padStart(7)}`);
  for (const r of rows) log(`${r.statement.padEnd(56)} ${r.postgres_ms.toFixed(3).padStart(9)} ${r.node_ms.toFixed(3).padStart(7)} ${r.wall_ms.toFixed(3).padStart(7)}`);
  log(`a job's statements (claimed ${CLAIM_BATCH} at once): ${total.postgres_ms} ms PostgreSQL, ${total.node_ms} ms this process; result ${resultText.length} characters`);
  writeLatest('statements', { machine: machineFacts(), jobs: JOBS, result_characters: resultText.length, statements: rows, job_total: total });
} finally {
  await db.destroy();
  await scratch.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
