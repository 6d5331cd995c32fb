// A document whose canonical result is over QUIRE_MAX_RESULT_MB fails with `resource_limit` before
// anything of it is stored: no result, no artifacts of the run; a document within the bound completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;
beforeAll(async () => {
  h = await startHarness({ maxResultMb: 1 }, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

describe('the bound on a job result', () => {
  it('fails a text of 40,000 tiny words (2.7 MB of canonical JSON) with resource_limit and stores nothing of it', async () => {
    const words = Buffer.from(Array.from({ length: 4_000 }, () => 'a b c d e f g h i j').join('\n'));
    const sent = await upload(h, member, { name: 'words.txt', bytes: words });
    expect(sent.status).toBe(202);
    const job = await waitForJob(h, member, sent.body.job_id, undefined, 120_000);
    expect(job).toMatchObject({ status: 'failed', failure_code: 'resource_limit', page_count: 1 });
    expect(job.failure_message).toMatch(/result would be 3 MB of JSON, more than the 1 MB/);
    const row = await h.db.selectFrom('jobs').select(['result', 'attempts']).where('id', '=', sent.body.job_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ result: null, attempts: 1 });
    // The upload is kept (a retry reads it); nothing the run made is.
    expect(await h.db.selectFrom('artifacts').select('kind').where('job_id', '=', sent.body.job_id).execute()).toEqual([{ kind: 'source' }]);
  }, 180_000);

  it('completes a document within it', async () => {
    const sent = await upload(h, member, FILES.invoice);
    expect((await waitForJob(h, member, sent.body.job_id, undefined, 120_000)).status).toBe('completed');
  }, 180_000);
});
