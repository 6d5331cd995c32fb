// Draft names through the API: a receipt (its SROIE transcript uploaded as text) that matches no
// template proposes a draft named by its kind and shop; a name a live template or another pending
// draft already has takes the first free "-2", "-3" …, so the draft can be accepted; a name the
// caller gives stays as given, and accepting it while a template has it is 409.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { receiptText } from '../pipeline/sroie.js';

let h: Harness;
let admin: string;
let member: string;

// "SYARIKAT PERNIAGAAN GIN KEE (81109-A) NO 290, JALAN AIR PANAS, …" with a CASH line.
const RECEIPT = '114';
const NAME = 'receipt-syarikat_perniagaan_gin_kee';

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  await h.seedTenant('names');
  admin = (await h.seedUser('names', 'admin')).token!;
  member = (await h.seedUser('names', 'member')).token!;
});

afterAll(async () => {
  await h?.close();
});

async function process(id: string) {
  const res = await upload(h, member, receiptText(id));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const job = await waitForJob(h, member, res.body.job_id);
  expect(job.status).toBe('completed');
  return job;
}

describe('draft names', () => {
  it('a missed receipt proposes a draft named by its kind and shop, clear of names already taken', async () => {
    const first = await process(RECEIPT);
    expect(first.classification).toMatchObject({ matched: false, draft: { created: true } });
    const draft = (await h.request('GET', `/v1/templates/drafts/${first.classification.draft.id}`, { token: member })).body;
    expect(draft.proposed_name).toBe(NAME);
    expect(draft.proposed_description).toMatch(/^Receipts like "SYARIKAT PERNIAGAAN GIN KEE/);

    // The same receipt in a draft made from its job: the pending draft has the name.
    const fromJobs = await h.request('POST', '/v1/templates/drafts', { token: member, body: { job_ids: [first.job_id] } });
    expect(fromJobs.status, JSON.stringify(fromJobs.body)).toBe(201);
    expect(fromJobs.body.proposed_name).toBe(`${NAME}-2`);

    // Accepted, the first draft's name is a template's; the next free one is still -3.
    const accepted = await h.request('POST', `/v1/templates/drafts/${draft.id}/accept`, { token: admin });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const again = await h.request('POST', '/v1/templates/drafts', { token: member, body: { job_ids: [first.job_id] } });
    expect(again.body.proposed_name).toBe(`${NAME}-3`);
    const second = await h.request('POST', `/v1/templates/drafts/${fromJobs.body.id}/accept`, { token: admin });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const names = (await h.request('GET', '/v1/templates', { token: member })).body.items.map((t: { name: string }) => t.name).sort();
    expect(names).toEqual([NAME, `${NAME}-2`]);
  });

  it('a name the caller gives stays as given; accepting it while a template has it is 409', async () => {
    const job = await process('120');
    const given = await h.request('POST', '/v1/templates/drafts', { token: member, body: { job_ids: [job.job_id], name: NAME } });
    expect(given.status, JSON.stringify(given.body)).toBe(201);
    expect(given.body.proposed_name).toBe(NAME);
    const refused = await h.request('POST', `/v1/templates/drafts/${given.body.id}/accept`, { token: admin });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('template_name_taken');
    expect((await h.request('GET', `/v1/templates/drafts/${given.body.id}`, { token: member })).body.status).toBe('pending');
  });

  it('drafts made at the same moment from documents of one shop each get a name of their own', async () => {
    // The shop has a template by now, so the job may wait for review; a draft needs only its reading.
    const uploaded = await upload(h, member, receiptText(RECEIPT));
    const job = await waitForJob(h, member, uploaded.body.job_id);
    const made = await Promise.all(Array.from({ length: 4 }, () => h.request('POST', '/v1/templates/drafts', { token: member, body: { job_ids: [job.job_id] } })));
    for (const res of made) expect(res.status, JSON.stringify(res.body)).toBe(201);
    const names = made.map((res) => res.body.proposed_name as string);
    expect(new Set(names).size, names.join(', ')).toBe(4);
    for (const name of names) expect(name.startsWith(NAME)).toBe(true);
  });
});
