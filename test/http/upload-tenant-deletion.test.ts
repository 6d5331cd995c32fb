// An upload and the deletion of its tenant, interleaved at the two moments that matter. The
// upload is held at a chosen step by a row lock that a separate connection takes (a blob row it
// must register, an Idempotency-Key it must claim), and let go once the deletion has committed
// or is seen waiting; each step is waited for by looking at pg_stat_activity, never by time.
// - Deletion commits while the upload is between its authentication and its transaction: the
//   upload is refused as its credentials now are (401; 404 for a platform admin acting in the
//   tenant), and leaves no job and no batch.
// - Deletion starts while the upload's transaction is open: the deletion waits for it, and then
//   cancels the job it accepted with the tenant's other queued work.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_DELETED_JOB } from '../../src/domain/tenants/tenant-work.js';
import { CANCELLED_MESSAGE } from '../../src/queue/lease.js';
import { FILES, upload, uploadBatch, waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let root: string;
const tokens: Record<string, string> = {};
const TENANTS = ['races-single', 'races-deleting', 'races-open', 'races-batch', 'races-retry'];

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  for (const tenant of TENANTS) {
    await h.seedTenant(tenant);
    tokens[tenant] = (await h.seedUser(tenant, 'member')).token!;
  }
});
afterAll(() => h?.close());

/** A separate connection holding row locks in an open transaction, until released. */
interface Holder {
  pid: number;
  release(): Promise<void>;
}
let holders: pg.Client[] = [];
afterEach(async () => {
  for (const client of holders) await client.end().catch(() => undefined);
  holders = [];
});

async function hold(statement: string, params: unknown[]): Promise<Holder> {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  holders.push(client);
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  await client.query('BEGIN');
  await client.query(statement, params);
  return { pid, release: async () => void (await client.query('ROLLBACK')) };
}

/** Holds the blobs row of the file's content: an upload of it waits where it registers the file. */
function holdBlob(file: string): Promise<Holder> {
  const bytes = fs.readFileSync(file);
  return hold('INSERT INTO blobs (sha256, size_bytes) VALUES ($1, $2)', [createHash('sha256').update(bytes).digest('hex'), bytes.length]);
}

/** Holds the tenant's user rows: a deletion of the tenant waits where it deletes them, its work already ended. */
function holdUsers(tenant: string): Promise<Holder> {
  return hold('SELECT id FROM users WHERE tenant_id = $1 FOR UPDATE', [tenant]);
}

/** Holds an Idempotency-Key of the tenant: an upload with it waits where it claims the key, inside its transaction. */
function holdKey(tenant: string, key: string): Promise<Holder> {
  return hold(`INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash, resource_id) VALUES ($1, 'documents', $2, 'held', 'held')`, [tenant, key]);
}

/** Whether some session of this database waits for a lock the holder has. */
async function waitsOn(holder: Holder): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND ${holder.pid}::int = ANY(pg_blocking_pids(pid))`.execute(h.db);
  return rows[0]!.n > 0;
}

/** Whether some session of this database waits for a lock that another session than the holder has. */
async function waitsOnOther(holder: Holder): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0 AND NOT (${holder.pid}::int = ANY(pg_blocking_pids(pid)))`.execute(h.db);
  return rows[0]!.n > 0;
}

async function deleteTenant(tenant: string) {
  return h.request('DELETE', `/v1/platform/tenants/${tenant}`, { token: root });
}

const jobsOf = (tenant: string) => h.db.selectFrom('jobs').select(['id', 'status', 'failure_code', 'failure_message']).where('tenant_id', '=', tenant).execute();

describe('an upload racing the deletion of its tenant', () => {
  it('is refused with 401, leaving no job, when the deletion commits after the upload was authenticated', async () => {
    const tenant = 'races-single';
    const blob = await holdBlob(FILES.invoice);
    const uploading = upload(h, tokens[tenant]!, FILES.invoice, { processing_mode: 'canonical' });
    await waitFor('the upload to wait at its file registration', () => waitsOn(blob));

    expect((await deleteTenant(tenant)).status).toBe(204);
    await blob.release();

    const res = await uploading;
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthorized', detail: 'Your tenant was deleted.' });
    expect(await jobsOf(tenant)).toEqual([]);
  });

  it('waits for a deletion in progress when its transaction starts, then is refused with 401, leaving no job', async () => {
    const tenant = 'races-deleting';
    const users = await holdUsers(tenant);
    let deleted = false;
    const deleting = deleteTenant(tenant).finally(() => {
      deleted = true;
    });
    await waitFor('the deletion to wait at the tenant\'s users, its queued jobs already cancelled', () => waitsOn(users));
    expect(deleted).toBe(false);

    let answered = false;
    const uploading = upload(h, tokens[tenant]!, FILES.bol, { processing_mode: 'canonical' }).finally(() => {
      answered = true;
    });
    await waitFor('the upload to wait for the deletion, or to be answered', async () => answered || (await waitsOnOther(users)));
    await users.release();

    expect((await deleting).status).toBe(204);
    const res = await uploading;
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthorized', detail: 'Your tenant was deleted.' });
    expect(await jobsOf(tenant)).toEqual([]);
  });

  it('is accepted and then cancelled by a deletion that starts while its transaction is open', async () => {
    const tenant = 'races-open';
    const key = await holdKey(tenant, 'races-open-key');
    const uploading = upload(h, tokens[tenant]!, FILES.bol, { processing_mode: 'canonical' }, { 'idempotency-key': 'races-open-key' });
    await waitFor('the upload to wait at its Idempotency-Key, its transaction open', () => waitsOn(key));

    let deleted = false;
    const deleting = deleteTenant(tenant).finally(() => {
      deleted = true;
    });
    await waitFor('the deletion to wait for the upload, or to end', async () => deleted || (await waitsOnOther(key)));
    await key.release();

    const res = await uploading;
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect((await deleting).status).toBe(204);
    expect(await jobsOf(tenant)).toEqual([{ id: res.body.job_id, status: 'failed', failure_code: 'cancelled', failure_message: TENANT_DELETED_JOB }]);
  });

  it('a retry waits for a deletion in progress, then is refused with 401, leaving the job failed', async () => {
    const tenant = 'races-retry';
    const submitted = await upload(h, tokens[tenant]!, FILES.notes, { processing_mode: 'canonical' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const jobId = submitted.body.job_id;
    expect((await h.request('POST', `/v1/documents/${jobId}/cancel`, { token: tokens[tenant] })).status).toBe(200);

    const users = await holdUsers(tenant);
    let deleted = false;
    const deleting = deleteTenant(tenant).finally(() => {
      deleted = true;
    });
    await waitFor('the deletion to wait at the tenant\'s users, its queued jobs already cancelled', () => waitsOn(users));
    expect(deleted).toBe(false);

    let answered = false;
    const retrying = h.request('POST', `/v1/documents/${jobId}/retry`, { token: tokens[tenant] }).finally(() => {
      answered = true;
    });
    await waitFor('the retry to wait for the deletion, or to be answered', async () => answered || (await waitsOnOther(users)));
    await users.release();

    expect((await deleting).status).toBe(204);
    const res = await retrying;
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect(await jobsOf(tenant)).toEqual([{ id: jobId, status: 'failed', failure_code: 'cancelled', failure_message: CANCELLED_MESSAGE }]);
  });

  it('refuses a batch of a platform admin acting in the tenant with 404, leaving no batch and no job', async () => {
    const tenant = 'races-batch';
    const blob = await holdBlob(FILES.multipage);
    const uploading = uploadBatch(h, root, [FILES.multipage, FILES.invoice], { processing_mode: 'canonical' }, { 'x-tenant-id': tenant });
    await waitFor('the batch to wait at its first file registration', () => waitsOn(blob));

    expect((await deleteTenant(tenant)).status).toBe(204);
    await blob.release();

    const res = await uploading;
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
    expect(await jobsOf(tenant)).toEqual([]);
    expect(await h.db.selectFrom('batches').select('id').where('tenant_id', '=', tenant).execute()).toEqual([]);
  });
});
