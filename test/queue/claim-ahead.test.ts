// Claiming several jobs at once when the queue is deep, and the process's buffer of jobs claimed
// ahead: their leases are heartbeated, a cancel reaches them, and at shutdown they go back to the
// queue as if never claimed. On the real PostgreSQL.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/documents.js';
import { newId } from '../../src/lib/ids.js';
import { claimJobs } from '../../src/queue/claim.js';
import { ClaimBuffer } from '../../src/queue/claim-buffer.js';
import { recoverStale } from '../../src/queue/recover.js';
import { startRun } from '../../src/queue/lease.js';
import { findBatch, insertBatch, refreshBatch } from '../../src/domain/batches/batches.repository.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const SHA = 'b'.repeat(64);
const quiet = pino({ level: 'silent' });

/** `n` queued jobs, created in order (one statement each, so their created_at order is theirs). */
async function queued(n: number, batchId: string | null = null): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId('job');
    await h.db
      .insertInto('jobs')
      .values({ id, tenant_id: DEFAULT_TENANT_ID, batch_id: batchId, status: 'queued', processing_mode: 'canonical', size_bytes: 1, sha256: SHA, metadata: '{}' } as never)
      .execute();
    ids.push(id);
  }
  return ids;
}

async function drain(): Promise<void> {
  await h.db.updateTable('jobs').set({ status: 'failed', finished_at: new Date(), lease_owner: null, lease_expires_at: null }).where('status', 'in', ['queued', 'processing']).execute();
}

const rows = (ids: string[]) => h.db.selectFrom('jobs').selectAll().where('id', 'in', ids).orderBy('created_at').execute();

describe('claiming several jobs in one statement', () => {
  it('takes one while the queue is shallow and several, in queue order, once it is deep', async () => {
    await drain();
    const few = await queued(3);
    const one = await claimJobs(h.db, 'w', 30, 4, 8);
    expect(one.map((j) => j.id)).toEqual([few[0]]);
    const more = await queued(8);
    const four = await claimJobs(h.db, 'w', 30, 4, 8);
    expect(four.map((j) => j.id)).toEqual([...few.slice(1), more[0], more[1]]);
    for (const job of await rows(four.map((j) => j.id))) expect(job).toMatchObject({ status: 'processing', lease_owner: 'w', attempts: 1 });
    const events = await h.db.selectFrom('job_events').select(['job_id', 'kind', 'worker']).where('job_id', 'in', four.map((j) => j.id)).execute();
    expect(events.filter((e) => e.kind === 'claimed' && e.worker === 'w')).toHaveLength(4);
  });

  it('moves every claimed job of a batch between its counts', async () => {
    await drain();
    const batchId = newId('bat');
    await h.db.transaction().execute(async (tx) => {
      await insertBatch(tx, { id: batchId, tenant_id: DEFAULT_TENANT_ID, name: null, template_id: null, processing_mode: 'canonical', page_range: null, page_cap_policy: 'fail', destination_connection_id: null, destination_config: null, created_by: null });
    });
    await queued(10, batchId);
    await h.db.transaction().execute((tx) => refreshBatch(tx, DEFAULT_TENANT_ID, batchId));
    expect(await claimJobs(h.db, 'w', 30, 4, 8)).toHaveLength(4);
    expect(await findBatch(h.db, DEFAULT_TENANT_ID, batchId)).toMatchObject({ status: 'processing', counts: { total: 10, queued: 6, processing: 4 } });
  });
});

describe('jobs claimed ahead', () => {
  it('hands them out one by one without another claim, and gives the rest back at shutdown as if never claimed', async () => {
    await drain();
    const ids = await queued(12);
    const buffer = new ClaimBuffer(h.db, 30, 4, quiet);
    const first = (await buffer.take('p:0'))!;
    expect(first.id).toBe(ids[0]);
    expect(buffer.size).toBe(3);
    const second = (await buffer.take('p:1'))!;
    // Claimed by the first loop's claim: the lease is that loop's, whoever runs it.
    expect(second).toMatchObject({ id: ids[1], lease_owner: 'p:0' });
    expect((await rows(ids.slice(4))).every((j) => j.status === 'queued')).toBe(true);

    await buffer.releaseAll();
    expect(buffer.size).toBe(0);
    const back = await rows(ids.slice(2, 4));
    for (const job of back) expect(job).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null });
    const released = await h.db.selectFrom('job_events').select(['job_id', 'detail']).where('kind', '=', 'released').where('job_id', 'in', ids.slice(2, 4)).execute();
    expect(released).toHaveLength(2);
    expect(released[0]!.detail).toMatchObject({ reason: 'worker shutting down' });
    // The two handed out are untouched: their runs settle or release them.
    for (const job of await rows(ids.slice(0, 2))) expect(job).toMatchObject({ status: 'processing', lease_owner: 'p:0' });
  });

  it('heartbeats their leases, passes on a cancel and drops a job whose lease another worker took', async () => {
    await drain();
    const ids = await queued(8);
    const buffer = new ClaimBuffer(h.db, 1, 4, quiet);
    await buffer.take('p:0');
    expect(buffer.size).toBe(3);
    const [, cancelled, stolen] = ids;
    await h.db.updateTable('jobs').set({ cancel_requested: true }).where('id', '=', cancelled!).execute();
    await h.db.updateTable('jobs').set({ lease_owner: 'elsewhere' }).where('id', '=', stolen!).execute();
    const before = (await rows([ids[3]!]))[0]!.lease_expires_at!;
    // The lease is one second: without heartbeats it would lapse; the buffer extends it every 500 ms.
    await waitFor('a heartbeat of the waiting jobs', async () => ((await rows([ids[3]!]))[0]!.lease_expires_at! > before ? true : null), 5_000, 50);
    await waitFor('the stolen job dropped', async () => (buffer.size === 2 ? true : null), 5_000, 50);
    // A cancel by NOTIFY (workers.ts) marks a waiting job at once; one not waiting here is not ours.
    expect(buffer.cancel(ids[3]!)).toBe(true);
    expect(buffer.cancel(stolen!)).toBe(false);
    expect(await buffer.take('p:1')).toMatchObject({ id: cancelled, cancel_requested: true });
    expect(await buffer.take('p:1')).toMatchObject({ id: ids[3], cancel_requested: true });
    await buffer.releaseAll();
    expect((await rows([stolen!]))[0]).toMatchObject({ status: 'processing', lease_owner: 'elsewhere' });
  });

  it('left behind by a process that died, go back to the queue through stale-lease recovery like any claimed job', async () => {
    await drain();
    const ids = await queued(8);
    // A one-second lease, and the process "dies": no heartbeat, no release.
    const jobs = await claimJobs(h.db, 'dead:0', 1, 4, 8);
    expect(jobs).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 1_100));
    await recoverStale(h.db);
    // None of them started running: their claim's attempt is given back.
    for (const job of await rows(ids.slice(0, 4))) expect(job).toMatchObject({ status: 'queued', lease_owner: null, attempts: 0, started_at: null });
    const recovered = await h.db.selectFrom('job_events').select('detail').where('kind', '=', 'recovered').where('job_id', 'in', ids.slice(0, 4)).execute();
    expect(recovered).toHaveLength(4);
    expect(recovered[0]!.detail).toMatchObject({ lost_worker: 'dead:0', run_started: false });
  });

  it('a document that kills its process every time fails worker_lost after max_attempts; the jobs claimed with it never do', async () => {
    await drain();
    const [poison, ...behind] = await queued(8);
    const expire = () => h.db.updateTable('jobs').set({ lease_expires_at: new Date(Date.now() - 1_000) }).where('status', '=', 'processing').execute();
    for (let death = 1; death <= 4; death++) {
      // The process claims the poison document and the jobs behind it, starts the first run (a
      // pipeline thread takes it) and is killed: no heartbeat, no release, no settle.
      const jobs = await claimJobs(h.db, `dead:${death}`, 30, 4, 2);
      const first = jobs.find((j) => j.id === poison);
      if (first) expect((await startRun(h.db, poison!, first.lease_owner!, 30)).held).toBe(true);
      await expire();
      await recoverStale(h.db);
    }
    expect((await rows([poison!]))[0]).toMatchObject({ status: 'failed', failure_code: 'worker_lost', attempts: 3 });
    for (const job of await rows(behind)) {
      expect(job.status).toBe('queued');
      expect(job.failure_code).toBeNull();
      expect(job.attempts).toBe(0);
    }
  });
});
