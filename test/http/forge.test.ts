// The template forge through the API: sample jobs of one invoice layout (generated from a real
// one, test/helpers/orlen-family.ts) with expected outputs, forged by in-process workers,
// promoted, and the promoted template run on other invoices of that layout.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABORTED_MESSAGE, settleForgeJob } from '../../src/queue/forge-lease.js';
import { FILES, upload, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { type OrlenInvoice, orlenFamily } from '../helpers/orlen-family.js';

let h: Harness;
let member: string;
let admin: string;
let other: string;
const family = orlenFamily(9);
const samples: { job_id: string; invoice: OrlenInvoice }[] = [];

async function process(invoice: OrlenInvoice, fields: Record<string, string> = {}) {
  const res = await upload(h, member, { name: invoice.name, bytes: invoice.bytes }, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, member, res.body.job_id);
}

const submit = (body: Record<string, unknown>, token = member) => h.request('POST', '/v1/templates/forge/jobs', { token, body });

async function forgeJob(id: string, statuses: string[]) {
  return waitFor(`forge job ${id} in ${statuses.join('|')}`, async () => {
    const res = await h.request('GET', `/v1/templates/forge/jobs/${id}`, { token: member });
    return statuses.includes(res.body.status) ? res.body : undefined;
  });
}

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
  for (const invoice of family.slice(0, 5)) samples.push({ job_id: (await process(invoice, { processing_mode: 'canonical' })).job_id, invoice });
});

afterAll(async () => {
  await h?.close();
});

describe('deterministic forge', () => {
  let forgeId: string;

  it('forges a template from 5 samples with expected outputs, recording every iteration', async () => {
    const expected_outputs = Object.fromEntries(samples.map((s) => [s.job_id, s.invoice.expected]));
    const res = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs, hint: 'Orlen fuel invoices' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', sample_job_ids: samples.map((s) => s.job_id), hint: 'Orlen fuel invoices', endpoint_id: null, limits: { max_iterations: 5, max_dollars: 2, max_wall_seconds: 900 }, tokens: 0, dollars: 0 });
    forgeId = res.body.id;
    expect(forgeId).toMatch(/^fgj_/);
    const done = await forgeJob(forgeId, ['succeeded', 'failed']);
    expect(done.status, done.failure_message).toBe('succeeded');
    expect(done.iterations_count).toBeGreaterThanOrEqual(2);
    expect(done.best_score).toBeGreaterThan(0.9);

    const list = await h.request('GET', `/v1/templates/forge/jobs/${forgeId}/iterations`, { token: member });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(done.iterations_count);
    const numbers = list.body.items.map((i: { number: number }) => i.number).sort();
    expect(numbers[0]).toBe(1);
    const first = list.body.items.find((i: { number: number }) => i.number === 1);
    expect(Object.keys(first.scores).sort()).toEqual(['expected_agreement', 'field_coverage', 'overall', 'validation_pass_rate']);
    expect(first.candidate.json_schema.properties).toHaveProperty('invoice_number');
    expect(first.notes).toMatch(/sample/);
    const best = await h.request('GET', `/v1/templates/forge/jobs/${forgeId}/iterations/${done.best_iteration_id}`, { token: member });
    expect(best.status).toBe(200);
    expect(best.body.scores.overall).toBe(done.best_score);
    expect(best.body.scores.expected_agreement).toBe(1);

    expect((await h.request('GET', `/v1/templates/forge/jobs/${forgeId}`, { token: other })).status).toBe(404);
    expect((await h.request('GET', `/v1/templates/forge/jobs/${forgeId}/iterations`, { token: other })).status).toBe(404);
    expect((await h.request('GET', '/v1/templates/forge/jobs', { token: member })).body.items.map((j: { id: string }) => j.id)).toContain(forgeId);
  });

  it('promotes the best candidate into a template that extracts at least 95% of fields right on other invoices of the layout', async () => {
    expect((await h.request('POST', `/v1/templates/forge/jobs/${forgeId}/promote`, { token: member, body: { name: 'orlen' } })).status).toBe(403);
    const res = await h.request('POST', `/v1/templates/forge/jobs/${forgeId}/promote`, { token: admin, body: { name: 'orlen' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: 'orlen', version: 1, active: true });
    const job = await h.request('GET', `/v1/templates/forge/jobs/${forgeId}`, { token: member });
    expect(job.body).toMatchObject({ status: 'promoted', promoted_template_id: res.body.id });
    const audit = await h.request('GET', `/v1/templates/${res.body.id}/audit`, { token: member });
    expect(audit.body.items).toEqual([expect.objectContaining({ resource_type: 'forge_job', resource_id: forgeId, details: expect.objectContaining({ action: 'promote', template_id: res.body.id }) })]);
    expect((await h.request('POST', `/v1/templates/forge/jobs/${forgeId}/promote`, { token: admin, body: { name: 'orlen-2' } })).status).toBe(409);

    let right = 0;
    let total = 0;
    for (const invoice of family.slice(5)) {
      const done = await process(invoice, { template_id: res.body.id });
      for (const [field, want] of Object.entries(invoice.expected)) {
        total++;
        const got = done.result.extraction.data[field];
        if (typeof want === 'number' ? Math.abs(Number(got) - want) < 0.011 : got === want) right++;
      }
    }
    expect(total).toBe(20);
    expect(right / total).toBeGreaterThanOrEqual(0.95);
  });

  it('a second forge job promotes into a new version of an existing template', async () => {
    const res = await submit({ sample_job_ids: samples.slice(0, 3).map((s) => s.job_id), max_iterations: 1 });
    expect(res.status).toBe(202);
    const done = await forgeJob(res.body.id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', iterations_count: 1 });
    const template = (await h.request('GET', '/v1/templates?q=orlen', { token: member })).body.items[0];
    const promoted = await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/promote`, { token: admin, body: { template_id: template.id } });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body).toMatchObject({ id: template.id, name: 'orlen', version: 2 });
    const both = await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/promote`, { token: admin, body: { name: 'orlen-3', template_id: template.id } });
    expect(both.status).toBe(422);
    expect(both.body.detail[0]).toMatchObject({ loc: ['body', 'template_id'], type: 'value_error' });
  });

  it('promotes with neither name nor template_id into a new template named after the forge job', async () => {
    const res = await submit({ sample_job_ids: samples.slice(0, 2).map((s) => s.job_id), max_iterations: 1 });
    expect(res.status).toBe(202);
    expect(await forgeJob(res.body.id, ['succeeded', 'failed'])).toMatchObject({ status: 'succeeded' });
    for (const body of [{}, undefined]) {
      const promoted = await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/promote`, { token: admin, ...(body ? { body } : {}) });
      if (body) {
        expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
        expect(promoted.body).toMatchObject({ name: `forged-${res.body.id}`, version: 1 });
        expect((await h.request('GET', `/v1/templates/forge/jobs/${res.body.id}`, { token: member })).body).toMatchObject({ status: 'promoted', promoted_template_id: promoted.body.id });
      } else {
        // Promoted already: a second promote is 409, with or without a body.
        expect(promoted.status).toBe(409);
      }
    }
  });
});

describe('abort, kill switch and limits', () => {
  it('abort stops a forge job (at once when queued, at the next checkpoint when running); a finished one is 409', async () => {
    const res = await submit({ sample_job_ids: [samples[0]!.job_id] });
    expect(res.status).toBe(202);
    const abort = await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/abort`, { token: member });
    expect(abort.status).toBe(200);
    const done = await forgeJob(res.body.id, ['aborted', 'succeeded']);
    expect(done.status).toBe('aborted');
    expect(done.failure_message).toMatch(/Aborted/);
    const again = await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/abort`, { token: member });
    expect(again.status).toBe(409);
    expect((await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/abort`, { token: other })).status).toBe(404);
  });

  it('an abort that lands after the run\'s last checkpoint still ends the job aborted, not with its result', async () => {
    const res = await submit({ sample_job_ids: [samples[0]!.job_id], max_iterations: 1 });
    const finished = await forgeJob(res.body.id, ['succeeded', 'failed', 'aborted']);
    // The same job as a run sees it just before its settle: running under this lease, and aborted
    // by a request that came after the last checkpoint had read the flag.
    const holdAsRunning = (abortRequested: boolean) =>
      h.db.updateTable('forge_jobs')
        .set({ status: 'running', lease_owner: 'w-settle', lease_expires_at: sql`now() + interval '1 minute'`, finished_at: null, failure_message: null, abort_requested: abortRequested })
        .where('id', '=', finished.id).returningAll().executeTakeFirstOrThrow();
    const stored = () => h.request('GET', `/v1/templates/forge/jobs/${finished.id}`, { token: member }).then((r) => r.body);

    expect(await settleForgeJob(h.db, await holdAsRunning(true), 'w-settle', 'succeeded')).toBe(true);
    expect(await stored()).toMatchObject({ status: 'aborted', failure_message: ABORTED_MESSAGE });
    expect(await settleForgeJob(h.db, await holdAsRunning(true), 'w-settle', 'failed', 'No candidate.')).toBe(true);
    expect(await stored()).toMatchObject({ status: 'aborted', failure_message: ABORTED_MESSAGE });
    // Without an abort the run's own outcome stands.
    expect(await settleForgeJob(h.db, await holdAsRunning(false), 'w-settle', 'failed', 'No candidate.')).toBe(true);
    expect(await stored()).toMatchObject({ status: 'failed', failure_message: 'No candidate.' });
  });

  it('a forge job whose worker died mid-run is taken over and finishes, its iterations those of the run that finished', async () => {
    const res = await submit({ sample_job_ids: samples.slice(0, 2).map((s) => s.job_id), max_iterations: 1 });
    const finished = await forgeJob(res.body.id, ['succeeded']);
    const run = (await h.request('GET', `/v1/templates/forge/jobs/${finished.id}/iterations`, { token: member })).body.items;
    // The job as a worker killed after its third iteration left it: running, its lease lapsed.
    for (const number of [2, 3]) {
      await h.db.insertInto('forge_iterations').values({ id: `fgi_dead${number}`, tenant_id: DEFAULT_TENANT_ID, forge_job_id: finished.id, number, candidate: JSON.stringify(run[0].candidate), scores: JSON.stringify({ ...run[0].scores, overall: 0.99 }), tokens: 0, dollars: 0, notes: 'from the dead worker' }).execute();
    }
    await h.db.updateTable('forge_jobs')
      .set({ status: 'running', lease_owner: 'w-dead', lease_expires_at: sql`now() - interval '1 second'`, attempts: 1, iterations_count: 3, best_iteration_id: 'fgi_dead3', best_score: 0.99, finished_at: null })
      .where('id', '=', finished.id).execute();

    const again = await forgeJob(finished.id, ['succeeded', 'failed']);
    expect(again.status).toBe('succeeded');
    const iterations = (await h.request('GET', `/v1/templates/forge/jobs/${finished.id}/iterations`, { token: member })).body.items;
    expect(iterations.map((i: { number: number }) => i.number)).toEqual([1]);
    expect(again).toMatchObject({ iterations_count: 1, best_iteration_id: iterations[0].id, best_score: iterations[0].scores.overall });
    const row = await h.db.selectFrom('forge_jobs').select(['attempts', 'lease_owner']).where('id', '=', finished.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ attempts: 2, lease_owner: null });
  });

  it('forge_enabled false refuses new forge jobs', async () => {
    await setPolicy({ forge_enabled: false });
    const res = await submit({ sample_job_ids: [samples[0]!.job_id] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forge_disabled');
    expect(res.body.detail).toMatch(/forge_enabled/);
    await setPolicy({ forge_enabled: true });
  });

  it('a limit above the policy is 422 naming it; an exhausted quota is 429 with Retry-After', async () => {
    const over = await submit({ sample_job_ids: [samples[0]!.job_id], max_iterations: 50 });
    expect(over.status).toBe(422);
    expect(over.body.detail[0]).toMatchObject({ loc: ['body', 'max_iterations'] });
    expect(over.body.detail[0].msg).toMatch(/forge_per_job_max_iterations/);

    await setPolicy({ forge_monthly_token_quota: 0 });
    const quota = await submit({ sample_job_ids: [samples[0]!.job_id] });
    expect(quota.status).toBe(429);
    expect(quota.body.code).toBe('forge_quota_exceeded');
    expect(quota.body.detail).toMatch(/forge_monthly_token_quota/);
    expect(Number(quota.headers.get('retry-after'))).toBeGreaterThan(0);
    await setPolicy({ forge_monthly_token_quota: null });
  });

  it('rejects bad bodies with 422, and unknown samples or forge endpoints with 404', async () => {
    expect((await submit({ sample_job_ids: [] })).status).toBe(422);
    const endpoint = await submit({ sample_job_ids: [samples[0]!.job_id], endpoint_id: 'fep_x' });
    expect(endpoint.status).toBe(404);
    expect(endpoint.body.detail).toMatch(/Forge endpoint fep_x/);
    const stray = await submit({ sample_job_ids: [samples[0]!.job_id], expected_outputs: { job_nope: { a: 1 } } });
    expect(stray.status).toBe(422);
    expect((await submit({ sample_job_ids: [samples[0]!.job_id] }, other)).status).toBe(404);
    expect((await h.request('POST', '/v1/templates/forge/jobs', { body: { sample_job_ids: ['x'] } })).status).toBe(401);
  });

  it('refuses a sample named twice, or two jobs of the same document, with 422 naming it, and queues nothing', async () => {
    const before = (await h.request('GET', '/v1/templates/forge/jobs', { token: member })).body.items.length;
    const [a, b] = [samples[0]!.job_id, samples[1]!.job_id];
    const twice = await submit({ sample_job_ids: [a, b, a] });
    expect(twice.status, JSON.stringify(twice.body)).toBe(422);
    expect(twice.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'sample_job_ids', 2], input: a })]);
    expect(twice.body.detail[0].msg).toMatch(/sample_job_ids\[0\]/);

    const copy = await process(samples[0]!.invoice, { processing_mode: 'canonical' });
    const same = await submit({ sample_job_ids: [a, b, copy.job_id] });
    expect(same.status, JSON.stringify(same.body)).toBe(422);
    expect(same.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'sample_job_ids', 2], input: copy.job_id })]);
    expect(same.body.detail[0].msg).toMatch(/same document/);

    // A sample whose file could not be read: 409 saying it failed and why, not "wait until it has finished".
    const unreadable = await upload(h, member, FILES.encrypted);
    const failed = await waitForJob(h, member, unreadable.body.job_id);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'encrypted_document' });
    const withFailed = await submit({ sample_job_ids: [a, failed.job_id] });
    expect(withFailed.status).toBe(409);
    expect(withFailed.body.code).toBe('job_has_no_canonical');
    expect(withFailed.body.detail).toMatch(new RegExp(`Sample job ${failed.job_id} \\(sample_job_ids\\[1\\]\\) failed \\(encrypted_document\\).*Leave it out`));
    expect(withFailed.body.detail).not.toMatch(/Wait until/);
    expect((await h.request('GET', '/v1/templates/forge/jobs', { token: member })).body.items).toHaveLength(before);
  });
});
