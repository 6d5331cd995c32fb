// Crash safety with the real binary: two `quire worker` processes on the test's PostgreSQL, one is
// SIGKILLed in the middle of a job; the survivor recovers the job (stale lease) and completes it,
// exactly once: one completion, one set of artifacts, and the dead worker never settles anything.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/build.js';
import { type WorkerProcess, exited, killAll, startWorkerProcess, workerStarted } from '../helpers/worker-process.js';
import { FILES, upload, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-crash-'));
let h: Harness;

beforeAll(async () => {
  await ensureBuilt();
  expect(fs.existsSync(path.join(root, 'dist/queue/workers.js'))).toBe(true);
  h = await startHarness({ dataDir });
}, 300_000);

afterAll(async () => {
  killAll();
  await h?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function startWorker(): WorkerProcess {
  return startWorkerProcess({
    DATABASE_URL: h.databaseUrl,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_JOB_LEASE_SECONDS: '2',
    QUIRE_RECOVERY_INTERVAL_SECONDS: '1',
  });
}

it('recovers a job whose worker was killed mid-run and completes it exactly once', async () => {
  const a = startWorker();
  const b = startWorker();
  for (const w of [a, b]) await workerStarted(w);

  const token = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  const res = await upload(h, token, FILES.long, { processing_mode: 'canonical' });
  expect(res.status).toBe(202);
  const jobId = res.body.job_id;

  // Whoever claimed it dies the moment its run started, a pipeline thread reading the file (a
  // 65-page PDF takes seconds): the attempt counts. One killed before its run starts does not.
  const owner = await waitFor(
    'the job to start running',
    async () => {
      const row = await h.db.selectFrom('jobs').select(['lease_owner', 'started_at']).where('id', '=', jobId).executeTakeFirstOrThrow();
      return row.started_at && row.lease_owner;
    },
    30_000,
    10,
  );
  const victim = [a, b].find((w) => owner.includes(`:${w.child.pid}:`))!;
  const survivor = victim === a ? b : a;
  expect(victim).toBeDefined();
  victim.child.kill('SIGKILL');
  await exited(victim.child);
  expect((await h.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status).toBe('processing');

  const job = await waitForJob(h, token, jobId, ['completed', 'failed'], 90_000);
  expect(job).toMatchObject({ status: 'completed', attempts: 2, page_count: 65, pages_processed: 65, failure_code: null });

  const events = await h.db.selectFrom('job_events').select(['kind', 'worker', 'detail']).where('job_id', '=', jobId).orderBy('id').execute();
  expect(events.map((e) => e.kind)).toEqual(['created', 'claimed', 'recovered', 'claimed', 'completed']);
  expect(events[1]!.worker).toBe(owner);
  expect(events[2]!.detail).toMatchObject({ lost_worker: owner, run_started: true });
  expect(events[4]!.worker).toContain(`:${survivor.child.pid}:`);

  const artifacts = await h.db.selectFrom('artifacts').select(['kind', 'page_number']).where('job_id', '=', jobId).execute();
  const count = (kind: string) => artifacts.filter((x) => x.kind === kind).length;
  expect([count('source'), count('canonical_json'), count('markdown'), count('page_image')]).toEqual([1, 1, 1, 65]);
  expect(new Set(artifacts.filter((x) => x.kind === 'page_image').map((x) => x.page_number)).size).toBe(65);
  expect(survivor.output()).toContain('recovered jobs whose worker stopped heartbeating');

  survivor.child.kill('SIGTERM');
  expect(await exited(survivor.child)).toBe(0);
}, 180_000);
