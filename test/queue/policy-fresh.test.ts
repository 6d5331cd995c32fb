// A job runs under the policy in force when it starts, even when the worker's policy cache has
// not yet seen the change (made by another process, within its poll interval).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;
beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

describe('policy at job start', () => {
  it('applies a lowered pdf_max_pages that the cache has not seen', async () => {
    // Warm the worker's cache with the default cap.
    const warm = await upload(h, member, FILES.multipage);
    expect((await waitForJob(h, member, warm.body.job_id, undefined, 120_000)).status).not.toBe('failed');
    // Another process lowers the cap: the row changes, the version counter this process polls does not.
    await h.db
      .insertInto('tenant_policies')
      .values({ tenant_id: DEFAULT_TENANT_ID, values: JSON.stringify({ pdf_max_pages: 1 }), updated_by: null })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ values: JSON.stringify({ pdf_max_pages: 1 }) }))
      .execute();
    const capped = await upload(h, member, FILES.multipage);
    const job = await waitForJob(h, member, capped.body.job_id, undefined, 120_000);
    expect(job).toMatchObject({ status: 'failed', failure_code: 'page_cap_exceeded' });
  }, 300_000);
});
