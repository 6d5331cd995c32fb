// What suspending and activating a tenant does to the work it has in the queues. No workers run
// here: the test claims as a worker would, so every state is looked at exactly when it matters.
// - Suspended: its queued jobs leave the claim's way (marked tenant_paused, out of the claim's
//   index), including jobs that enter the queue while it is suspended; activated, they are taken
//   again in queue order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJob } from '../../src/queue/claim.js';
import { FILES, upload } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let root: string;
const admins: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  for (const tenant of ['initech', 'globex']) {
    await h.seedTenant(tenant);
    admins[tenant] = (await h.seedUser(tenant, 'admin')).token!;
  }
});
afterAll(() => h?.close());

async function submit(tenant: string, file: string, fields: Record<string, string> = {}): Promise<string> {
  const res = await upload(h, admins[tenant]!, file, { processing_mode: 'canonical', ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.job_id;
}

async function tenantAction(tenant: string, action: 'suspend' | 'activate') {
  const res = await h.request('POST', `/v1/platform/tenants/${tenant}/${action}`, { token: root });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const job = (id: string) => h.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const paused = async (ids: string[]) => (await h.db.selectFrom('jobs').select(['id', 'tenant_paused']).where('id', 'in', ids).orderBy('id').execute()).map((r) => r.tenant_paused);
/** Claims until the queue has nothing more for a worker, answering the jobs in the order taken. */
async function claimAll(): Promise<string[]> {
  const taken: string[] = [];
  for (let next = await claimJob(h.db, 'w', 60); next; next = await claimJob(h.db, 'w', 60)) taken.push(next.id);
  return taken;
}

describe('a suspended tenant', () => {
  it('has its queued jobs kept out of the claim, also those queued while it is suspended, and taken in order once activated', async () => {
    const first = await submit('initech', FILES.invoice);
    const second = await submit('initech', FILES.bol);
    await tenantAction('initech', 'suspend');
    expect(await paused([first, second])).toEqual([true, true]);
    // A platform admin may still submit in a suspended tenant: the job waits with the others.
    const third = await upload(h, root, FILES.multipage, { processing_mode: 'canonical' }, { 'x-tenant-id': 'initech' });
    expect(third.status, JSON.stringify(third.body)).toBe(202);
    expect(await paused([third.body.job_id])).toEqual([true]);
    const other = await submit('globex', FILES.invoice);
    expect(await paused([other])).toEqual([false]);
    expect(await claimAll()).toEqual([other]);
    expect((await job(first)).status).toBe('queued');

    await tenantAction('initech', 'activate');
    expect(await paused([first, second, third.body.job_id])).toEqual([false, false, false]);
    expect(await claimAll()).toEqual([first, second, third.body.job_id]);
  });
});
