// Classification and drafts through the API: real invoices processed by in-process workers,
// exemplars learned from completed jobs, drafts proposed on a miss, accepted into templates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentOfJob } from '../../src/domain/classification/classification.service.js';
import { prepareDocument } from '../../src/pipeline/classify/index.js';
import { proposeOnMiss } from '../../src/domain/drafts/drafts.service.js';
import { data, postForm, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

const COOLBLUE_1 = data('invoice2data/compare/coolblue1.pdf');
const COOLBLUE_2 = data('invoice2data/compare/coolblue2.pdf');
const AZURE = data('invoice2data/compare/AzureInterior.pdf');
const AMAZON = data('invoice2data/compare/AmazonWebServices.pdf');
const FLIPKART = data('invoice2data/compare/FlipkartInvoice.pdf');

const SCHEMA = { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number', 'x-aliases': ['amount', 'total amount'] } } };

let h: Harness;
let member: string;
let admin: string;
let other: string;

async function template(name: string, token = admin): Promise<string> {
  const res = await h.request('POST', '/v1/templates', { token, body: { name, json_schema: SCHEMA } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function process(file: string, fields: Record<string, string> = {}, token = member) {
  const res = await upload(h, token, file, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, token, res.body.job_id);
}

const classify = (file: string, token = member) => postForm(h, '/v1/templates/classify', token, [{ field: 'file', file }]);

async function setPolicy(body: Record<string, unknown>) {
  const res = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = await h.adminToken();
  await h.seedTenant('other');
  other = (await h.seedUser('other', 'admin')).token!;
});

afterAll(async () => {
  await h?.close();
});

describe('classify', () => {
  let coolblue: string;
  let azure: string;

  beforeAll(async () => {
    coolblue = await template('coolblue');
    azure = await template('azure');
    await template('amazon');
    // Learning from use: jobs completed under a template become its exemplars.
    for (const [file, id] of [[COOLBLUE_1, coolblue], [AZURE, azure]] as const) {
      const job = await process(file, { template_id: id });
      expect(job.status).not.toBe('failed');
      if (job.status === 'needs_review') {
        const review = (await h.request('GET', `/v1/reviews?job_id=${job.job_id}`, { token: member })).body.items[0];
        expect((await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { token: member, body: {} })).status).toBe(200);
      }
    }
  });

  it('ranks the right template first for an unseen document of a known sender, with evidence and the threshold', async () => {
    const res = await classify(COOLBLUE_2);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ matched: true, template_id: coolblue, version: 1 });
    expect(res.body.threshold).toBeGreaterThan(0);
    expect(res.body.score).toBeGreaterThanOrEqual(res.body.threshold);
    const [first, second] = res.body.candidates;
    expect(first).toMatchObject({ template_id: coolblue, name: 'coolblue', version: 1 });
    expect(first.score).toBeGreaterThan(second.score);
    expect(first.evidence.exemplars).toBe(1);
    expect(first.evidence.keywords.length).toBeGreaterThan(0);
    expect(res.body.candidates).toHaveLength(3);
  });

  it('classifies an existing job by job_id, and a job without template_id runs with the winner', async () => {
    const job = await process(COOLBLUE_2);
    expect(job.classification).toMatchObject({ matched: true, template_id: coolblue });
    expect(job.result.extraction.template_id).toBe(coolblue);
    // The documents list filtered by template finds the job the template was chosen for.
    const listed = await h.request('GET', `/v1/documents?template_id=${coolblue}`, { token: member });
    expect(listed.body.items.map((j: { job_id: string }) => j.job_id)).toContain(job.job_id);
    const res = await h.request('POST', '/v1/templates/classify', { token: member, body: { job_id: job.job_id } });
    expect(res.status).toBe(200);
    expect(res.body.template_id).toBe(coolblue);
  });

  it('does not match a document of no known sender, and says why', async () => {
    await setPolicy({ draft_on_miss_enabled: false });
    const res = await classify(FLIPKART);
    expect(res.status).toBe(200);
    expect(res.body, JSON.stringify(res.body.candidates.map((c: { name: string; score: number; evidence: unknown }) => [c.name, c.score, c.evidence]))).toMatchObject({ matched: false, template_id: null, version: null });
    // method says who decided (the embedded ranking), reason_code why nothing matched.
    expect(res.body).toMatchObject({ method: 'embedded', reason_code: expect.stringMatching(/^(below_threshold|ambiguous)$/) });
    expect(res.body.reason).toMatch(/threshold|margin/);
    await setPolicy({ draft_on_miss_enabled: null });
  });

  it('inactive templates are not candidates; auto_classify_enabled off falls back to default_template_id', async () => {
    expect((await h.request('POST', `/v1/templates/${coolblue}/deactivate`, { token: admin })).status).toBe(200);
    const res = await classify(COOLBLUE_2);
    expect(res.body.candidates.map((c: { template_id: string }) => c.template_id)).not.toContain(coolblue);
    expect((await h.request('POST', `/v1/templates/${coolblue}/activate`, { token: admin })).status).toBe(200);

    await setPolicy({ auto_classify_enabled: false, default_template_id: azure });
    const job = await process(COOLBLUE_2);
    expect(job.classification).toMatchObject({ matched: false, method: 'default_template_id', reason_code: 'auto_classify_disabled', applied_template_id: azure });
    expect(job.result.extraction.template_id).toBe(azure);
    await setPolicy({ auto_classify_enabled: null, default_template_id: null });
  });

  it("the tenant's default_template_id cannot be deleted (409), so jobs without a template keep running with it", async () => {
    const fallback = await template('fallback');
    await setPolicy({ auto_classify_enabled: false, default_template_id: fallback });
    const refused = await h.request('DELETE', `/v1/templates/${fallback}`, { token: admin });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ code: 'template_in_use' });
    expect(refused.body.detail).toMatch(/default_template_id/);
    expect((await h.request('GET', `/v1/templates/${fallback}`, { token: member })).status).toBe(200);
    const job = await process(AMAZON);
    expect(job.status).not.toBe('failed');
    expect(job.result.extraction.template_id).toBe(fallback);

    await setPolicy({ auto_classify_enabled: null, default_template_id: null });
    expect((await h.request('DELETE', `/v1/templates/${fallback}`, { token: admin })).status).toBe(204);
  });

  it('answers 422 without a file or job_id, 404 for another tenant\'s job, 401 without a token', async () => {
    const none = await h.request('POST', '/v1/templates/classify', { token: member, body: {} });
    expect(none.status).toBe(422);
    expect(none.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', 'file']);
    for (const job_id of [{ a: 1 }, 5, null, 'x'.repeat(65)]) {
      const bad = await h.request('POST', '/v1/templates/classify', { token: member, body: { job_id } });
      expect(bad.status, JSON.stringify(job_id)).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'job_id']);
    }
    const extra = await h.request('POST', '/v1/templates/classify', { token: member, body: { job_id: 'job_x', mode: 'fast' } });
    expect(extra.body.detail[0]).toMatchObject({ loc: ['body', 'mode'], type: 'extra_forbidden' });
    const job = await process(AMAZON, { processing_mode: 'canonical' });
    const cross = await h.request('POST', '/v1/templates/classify', { token: other, body: { job_id: job.job_id } });
    expect(cross.status).toBe(404);
    expect((await h.request('POST', '/v1/templates/classify', { body: { job_id: job.job_id } })).status).toBe(401);
  });
});

describe('drafts', () => {
  let tenantAdmin: string;
  let tenantMember: string;

  beforeAll(async () => {
    // A tenant of its own, without templates: every document misses.
    await h.seedTenant('drafts');
    tenantAdmin = (await h.seedUser('drafts', 'admin')).token!;
    tenantMember = (await h.seedUser('drafts', 'member')).token!;
  });

  let draftId: string;
  let firstJob: string;
  let azureDraftId: string;

  it('an unmatched document proposes a draft; a second similar one raises auto_seen_count', async () => {
    const job = await process(COOLBLUE_1, {}, tenantMember);
    firstJob = job.job_id;
    expect(job.status).toBe('completed');
    expect(job.classification).toMatchObject({ matched: false, draft: { created: true, auto_seen_count: 1 } });
    draftId = job.classification.draft.id;
    const draft = (await h.request('GET', `/v1/templates/drafts/${draftId}`, { token: tenantMember })).body;
    // Required fields always; optional ones only with a value (interface.md types them string, not null).
    expect(Object.keys(draft).sort()).toEqual(
      ['auto_seen_count', 'created_at', 'drafter_notes', 'field_examples', 'id', 'json_schema', 'proposed_by', 'proposed_description', 'proposed_from_job_ids', 'proposed_name', 'status', 'tenant_id', 'validation_rules'].sort(),
    );
    expect(Object.values(draft)).not.toContain(null);
    expect(draft).toMatchObject({ tenant_id: 'drafts', status: 'pending', auto_seen_count: 1, proposed_from_job_ids: [job.job_id] });
    expect(draft.proposed_name).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
    const names = Object.keys(draft.json_schema.properties);
    expect(names.length).toBeGreaterThan(3);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);

    const second = await process(COOLBLUE_2, {}, tenantMember);
    expect(second.classification).toMatchObject({ matched: false, draft: { id: draftId, created: false, auto_seen_count: 2 } });
    expect(second.classification.draft.similarity).toBeGreaterThanOrEqual(0.6);
    const after = (await h.request('GET', `/v1/templates/drafts/${draftId}`, { token: tenantMember })).body;
    expect(after).toMatchObject({ auto_seen_count: 2, proposed_from_job_ids: [job.job_id, second.job_id] });

    // A different document proposes a draft of its own.
    const azure = await process(AZURE, {}, tenantMember);
    expect(azure.classification.draft).toMatchObject({ created: true });
    expect(azure.classification.draft.id).not.toBe(draftId);
    azureDraftId = azure.classification.draft.id;
    const list = await h.request('GET', '/v1/templates/drafts?status=pending', { token: tenantMember });
    expect(list.body.items).toHaveLength(2);
    expect((await h.request('GET', '/v1/templates/drafts', { token: member })).body.items.map((d: { id: string }) => d.id)).not.toContain(draftId);
    expect((await h.request('GET', `/v1/templates/drafts/${draftId}`, { token: member })).status).toBe(404);
  });

  it('patch edits a pending draft; accept needs an admin, creates template version 1, and the next such document classifies to it', async () => {
    const patched = await h.request('PATCH', `/v1/templates/drafts/${draftId}`, { token: tenantMember, body: { proposed_name: 'coolblue-invoice', drafter_notes: 'checked' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ proposed_name: 'coolblue-invoice', drafter_notes: 'checked' });
    const bad = await h.request('PATCH', `/v1/templates/drafts/${draftId}`, { token: tenantMember, body: { proposed_name: 'Not A Name' } });
    expect(bad.status).toBe(422);

    expect((await h.request('POST', `/v1/templates/drafts/${draftId}/accept`, { token: tenantMember })).status).toBe(403);
    const accepted = await h.request('POST', `/v1/templates/drafts/${draftId}/accept`, { token: tenantAdmin });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'accepted', resolved_by: expect.any(String) });
    const templateId = accepted.body.accepted_as_template_id;
    const template = await h.request('GET', `/v1/templates/${templateId}`, { token: tenantMember });
    expect(template.body).toMatchObject({ name: 'coolblue-invoice', version: 1, active: true });
    // The template's audit list names the accept that made it, though it is filed under the draft.
    const audit = await h.request('GET', `/v1/templates/${templateId}/audit`, { token: tenantMember });
    expect(audit.body.items).toEqual([expect.objectContaining({ resource_type: 'template_draft', resource_id: draftId, details: expect.objectContaining({ template_id: templateId }) })]);

    const res = await h.request('POST', '/v1/templates/classify', { token: tenantMember, body: { job_id: firstJob } });
    expect(res.body).toMatchObject({ matched: true, template_id: templateId });
    const again = await process(COOLBLUE_2, {}, tenantMember);
    expect(again.classification).toMatchObject({ matched: true, template_id: templateId });
    expect(again.result.extraction.template_id).toBe(templateId);

    for (const [method, url] of [['POST', `/v1/templates/drafts/${draftId}/accept`], ['PATCH', `/v1/templates/drafts/${draftId}`], ['DELETE', `/v1/templates/drafts/${draftId}`]] as const) {
      const res = await h.request(method, url, { token: tenantAdmin, ...(method === 'PATCH' ? { body: { drafter_notes: 'x' } } : {}) });
      expect(res.status, `${method} ${url}`).toBe(409);
      expect(res.body.code).toBe('draft_not_pending');
    }
  });

  it('create from job ids, reject keeps the record', async () => {
    const created = await h.request('POST', '/v1/templates/drafts', { token: tenantMember, body: { job_ids: [firstJob], hint: 'Coolblue invoices', name: 'from-jobs' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ proposed_name: 'from-jobs', proposed_from_job_ids: [firstJob], proposed_from_hint: 'Coolblue invoices', auto_seen_count: 0, status: 'pending' });
    const rejected = await h.request('DELETE', `/v1/templates/drafts/${created.body.id}`, { token: tenantMember });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', resolved_at: expect.any(String), resolved_by: expect.any(String) });
    expect(rejected.body).not.toHaveProperty('accepted_as_template_id');
    expect((await h.request('GET', `/v1/templates/drafts/${created.body.id}`, { token: tenantMember })).body.status).toBe('rejected');

    expect((await h.request('POST', '/v1/templates/drafts', { token: tenantMember, body: { job_ids: [] } })).status).toBe(422);
    // Each document once: a job named twice, or two jobs of the same file, is 422 naming it, and nothing is created.
    const before = (await h.request('GET', '/v1/templates/drafts', { token: tenantMember })).body.items.length;
    const twice = await h.request('POST', '/v1/templates/drafts', { token: tenantMember, body: { job_ids: [firstJob, firstJob] } });
    expect(twice.status, JSON.stringify(twice.body)).toBe(422);
    expect(twice.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'job_ids', 1], input: firstJob })]);
    const copy = await process(COOLBLUE_1, { processing_mode: 'canonical' }, tenantMember);
    const same = await h.request('POST', '/v1/templates/drafts', { token: tenantMember, body: { job_ids: [firstJob, copy.job_id] } });
    expect(same.status, JSON.stringify(same.body)).toBe(422);
    expect(same.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'job_ids', 1], input: copy.job_id, msg: expect.stringMatching(/same document/) })]);
    expect((await h.request('GET', '/v1/templates/drafts', { token: tenantMember })).body.items).toHaveLength(before);
    const missing = await h.request('POST', '/v1/templates/drafts', { token: other, body: { job_ids: [firstJob] } });
    expect(missing.status).toBe(404);
  });

  it('similar documents missing at the same moment (a batch on several workers) group into one draft', async () => {
    await h.seedTenant('race');
    const raceMember = (await h.seedUser('race', 'member')).token!;
    const job = await process(FLIPKART, { processing_mode: 'canonical' }, raceMember);
    const row = await h.db.selectFrom('jobs').select(['id', 'tenant_id', 'result', 'content_type']).where('id', '=', job.job_id).executeTakeFirstOrThrow();
    const prepared = prepareDocument(documentOfJob(row)!, true);
    const ids = ['job_race_1', 'job_race_2', 'job_race_3', 'job_race_4'];
    const proposed = await Promise.all(ids.map((id) => proposeOnMiss(h.db, { id, tenant_id: 'race' }, prepared.fingerprint, prepared.draft!)));
    expect(proposed.filter((p) => p.created)).toHaveLength(1);
    const drafts = (await h.request('GET', '/v1/templates/drafts', { token: raceMember })).body.items;
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({ auto_seen_count: 4 });
    expect([...drafts[0].proposed_from_job_ids].sort()).toEqual(ids);
  });

  it('a rejected draft stops proposals of its kind: the same document again proposes nothing', async () => {
    const pendingBefore = (await h.request('GET', '/v1/templates/drafts?status=pending', { token: tenantMember })).body.items.length;
    expect((await h.request('DELETE', `/v1/templates/drafts/${azureDraftId}`, { token: tenantMember })).status).toBe(200);
    const again = await process(AZURE, {}, tenantMember);
    expect(again.status).toBe('completed');
    expect(again.classification).toMatchObject({ matched: false, draft: { id: azureDraftId, status: 'rejected', created: false } });
    const rejected = (await h.request('GET', `/v1/templates/drafts/${azureDraftId}`, { token: tenantMember })).body;
    expect(rejected).toMatchObject({ status: 'rejected', auto_seen_count: 1 });
    expect(rejected.proposed_from_job_ids).not.toContain(again.job_id);
    const pending = (await h.request('GET', '/v1/templates/drafts?status=pending', { token: tenantMember })).body.items;
    expect(pending).toHaveLength(pendingBefore - 1);
  });
});
