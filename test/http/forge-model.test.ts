// The model-driven forge through the API: a forge endpoint on a loopback server that speaks the
// Anthropic Messages API to the real @anthropic-ai/sdk, sample jobs of one invoice layout
// (test/helpers/orlen-family.ts) with expected outputs, in-process workers. The "model" reads
// the prompt Quire sends: a first candidate, and a better one once the feedback of its first
// candidate (scores, disagreements) comes back. Quire's scores are its own, computed on the samples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-errors.js';
import { upload, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { type LoopbackServer, type Seen, startLoopback } from '../helpers/loopback-server.js';
import { type OrlenInvoice, orlenFamily } from '../helpers/orlen-family.js';

const API_KEY = 'sk-ant-forge-secret-5c1e9d';
const PRICE = { input: 3, output: 15 };
const USAGE = { input_tokens: 20_000, output_tokens: 1_000 };
/** What one call costs at PRICE: $0.075. */
const CALL_DOLLARS = (USAGE.input_tokens * PRICE.input + USAGE.output_tokens * PRICE.output) / 1e6;
const CALL_TOKENS = USAGE.input_tokens + USAGE.output_tokens;

const required = { kind: 'required', field: 'invoice_number', severity: 'error', message: 'The invoice number is missing.' };
/** A first guess: the seller's label for the buyer, an unsure label for the net amount, no shape for the number. */
const FIRST = {
  json_schema: {
    type: 'object',
    properties: {
      invoice_number: { type: 'string', 'x-aliases': ['Faktura nr'] },
      date: { type: 'string', format: 'date', 'x-aliases': ['Data wystawienia'] },
      buyer: { type: 'string', 'x-aliases': ['Sprzedawca'] },
      amount_untaxed: { type: 'number', 'x-aliases': ['Wartość netto'] },
      amount: { type: 'number', 'x-aliases': ['Należność ogółem'] },
    },
  },
  validation_rules: [required, { kind: 'no_such_kind', field: 'amount' }],
  prompt_overlay: 'Orlen fuel invoices.',
  notes: 'First template from the printed labels.',
};
/** After the feedback: the buyer's own label, the invoice number's shape, the totals line. */
const fixed = (rules: unknown[]) => ({
  json_schema: {
    type: 'object',
    properties: {
      ...FIRST.json_schema.properties,
      invoice_number: { type: 'string', 'x-aliases': ['Faktura nr'], pattern: '[A-Z] \\d{4}[A-Z]\\d{2}/\\d{4}/\\d{2}' },
      buyer: { type: 'string', 'x-aliases': ['Nabywca'] },
      amount_untaxed: { type: 'number', 'x-aliases': ['Razem'] },
    },
  },
  validation_rules: rules,
  prompt_overlay: 'Orlen fuel invoices.',
  notes: 'Buyer under "Nabywca", the number by its shape, the net amount from "Razem".',
});
const SECOND = fixed([required]);
/** Right values, but a rule that fails on every sample: better than FIRST, not perfect. */
const SECOND_WITH_WRONG_RULE = fixed([required, { kind: 'arithmetic', params: { expression: 'amount_untaxed + 1 = amount' }, severity: 'warn', message: 'off by one' }]);

let h: Harness;
let model: LoopbackServer;
let member: string;
let admin: string;
let other: string;
let endpointId: string;
const family = orlenFamily(8);
const samples: { job_id: string; invoice: OrlenInvoice }[] = [];

const promptOf = (req: Seen): string => req.json.messages[0].content.find((b: { type: string }) => b.type === 'text').text;

/** The model's answer as the Messages API sends it: a tool_use block of the forced tool. */
function toolCall(req: Seen, input: unknown) {
  return {
    body: {
      id: `msg_${model.seen.length}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-forge-test',
      content: [{ type: 'tool_use', id: `toolu_${model.seen.length}`, name: req.json.tools[0].name, input }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: USAGE,
    },
  };
}

/** A model that answers FIRST, then (seeing its first candidate's feedback) `second`, then `third`. */
function scriptedModel(second: unknown, third: unknown = SECOND) {
  model.handle((req) => {
    const prompt = promptOf(req);
    if (prompt.includes('Your candidate of iteration 2')) return toolCall(req, third);
    if (prompt.includes('Your candidate of iteration 1')) return toolCall(req, second);
    return toolCall(req, FIRST);
  });
}

const submit = (body: Record<string, unknown>, token = member) => h.request('POST', '/v1/templates/forge/jobs', { token, body });
const expected = (list = samples) => Object.fromEntries(list.map((s) => [s.job_id, s.invoice.expected]));

async function settled(id: string) {
  return waitFor(`forge job ${id} settled`, async () => {
    const res = await h.request('GET', `/v1/templates/forge/jobs/${id}`, { token: member });
    return ['succeeded', 'failed', 'aborted'].includes(res.body.status) ? res.body : undefined;
  }, 60_000);
}

async function iterations(id: string) {
  const res = await h.request('GET', `/v1/templates/forge/jobs/${id}/iterations`, { token: member });
  return [...res.body.items].sort((a: { number: number }, b: { number: number }) => a.number - b.number);
}

async function setPolicy(body: Record<string, unknown>) {
  const res = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1 });
  model = await startLoopback();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = await h.adminToken();
  await h.seedTenant('other');
  other = (await h.seedUser('other', 'admin')).token!;
  const endpoint = await h.request('POST', '/v1/admin/forge-endpoints', {
    token: admin,
    body: { name: 'claude', backend: 'anthropic', model: 'claude-forge-test', base_url: model.url, credentials: { api_key: API_KEY }, price_per_mtok: PRICE },
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  expect(endpoint.body.is_default_for_tenant).toBe(true);
  endpointId = endpoint.body.id;
  for (const invoice of family.slice(0, 5)) {
    const res = await upload(h, member, { name: invoice.name, bytes: invoice.bytes }, { processing_mode: 'canonical' });
    samples.push({ job_id: (await waitForJob(h, member, res.body.job_id)).job_id, invoice });
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
  await model?.close();
});

describe('model-driven forge (anthropic forge endpoint)', () => {
  let forgeId: string;

  it('improves over two iterations on the feedback Quire sends back, recording tokens and dollars', async () => {
    model.seen.length = 0;
    scriptedModel(SECOND);
    const res = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs: expected(), hint: 'Orlen fuel invoices', endpoint_id: endpointId });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.endpoint_id).toBe(endpointId);
    forgeId = res.body.id;
    const done = await settled(forgeId);
    expect(done.status, done.failure_message).toBe('succeeded');
    expect(done.iterations_count).toBe(2);

    // What went over the wire: the key, the forced tool with the candidate's schema, the samples; then the feedback.
    expect(model.seen).toHaveLength(2);
    const [first, second] = model.seen as [Seen, Seen];
    expect(first.url).toBe('/v1/messages');
    expect(first.headers['x-api-key']).toBe(API_KEY);
    expect(first.json.tool_choice).toEqual({ type: 'tool', name: 'propose_template' });
    expect(first.json.tools[0].input_schema.required).toEqual(expect.arrayContaining(['json_schema', 'validation_rules']));
    expect(first.json.system).toMatch(/x-aliases/);
    expect(promptOf(first)).toContain('Orlen fuel invoices');
    expect(promptOf(first)).toContain(samples[0]!.invoice.expected.invoice_number);
    expect(promptOf(first)).not.toContain('Your candidate of iteration');
    const feedback = promptOf(second);
    expect(feedback).toContain('Your candidate of iteration 1');
    expect(feedback).toMatch(/buyer on job_\w+: expected "GŁÓWNY URZĄD STATYSTYCZNY", got "Polski Koncern Naftowy ORLEN S\.A\."/);

    const [one, two] = await iterations(forgeId);
    expect(one.scores.expected_agreement).toBeLessThan(1);
    expect(two.scores.overall).toBeGreaterThan(one.scores.overall);
    expect(two.scores).toMatchObject({ overall: 1, expected_agreement: 1, validation_pass_rate: 1 });
    expect(done.best_iteration_id).toBe(two.id);
    // The rule kind Quire does not know was dropped, and said so.
    expect(one.candidate.validation_rules).toEqual([required]);
    expect(one.notes).toMatch(/forge endpoint fep_\w+ \(claude-forge-test\): First template.*Dropped 1 rule/);
    for (const it of [one, two]) expect(it).toMatchObject({ tokens: CALL_TOKENS, dollars: CALL_DOLLARS });
    expect(done).toMatchObject({ tokens: 2 * CALL_TOKENS });
    expect(done.dollars).toBeCloseTo(2 * CALL_DOLLARS, 9);

    // The calls count in the tenant's monthly model usage too.
    const usage = await h.db.selectFrom('model_usage_monthly').selectAll().where('tenant_id', '=', DEFAULT_TENANT_ID).execute();
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ backend: 'anthropic', model: 'claude-forge-test', calls: 2, input_tokens: 2 * USAGE.input_tokens });
    expect(JSON.stringify([done, one, two])).not.toContain(API_KEY);
  });

  it('promotes the best candidate into a template that extracts every field of other invoices of the layout', async () => {
    const res = await h.request('POST', `/v1/templates/forge/jobs/${forgeId}/promote`, { token: admin, body: { name: 'orlen-model' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.json_schema.properties.buyer['x-aliases']).toEqual(['Nabywca']);
    for (const invoice of family.slice(5)) {
      const up = await upload(h, member, { name: invoice.name, bytes: invoice.bytes }, { template_id: res.body.id });
      const job = await waitForJob(h, member, up.body.job_id);
      expect(job.result.extraction.data).toMatchObject(invoice.expected);
    }
  });

  it('stops at max_dollars, saying so in the last iteration', async () => {
    model.seen.length = 0;
    scriptedModel(SECOND_WITH_WRONG_RULE);
    // Two calls fit under this limit's check; a third would not start.
    const res = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs: expected(), endpoint_id: endpointId, max_dollars: 1.5 * CALL_DOLLARS });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await settled(res.body.id);
    expect(done.status, done.failure_message).toBe('succeeded');
    expect(model.seen).toHaveLength(2);
    const [one, two] = await iterations(res.body.id);
    expect(two.scores.overall).toBeGreaterThan(one.scores.overall);
    expect(two.scores.overall).toBeLessThan(1);
    expect(two.notes).toMatch(/Stopped: max_dollars reached/);
    expect(done.dollars).toBeCloseTo(2 * CALL_DOLLARS, 9);
  });

  it("stops at the tenant's monthly token quota, which counts every forge job's tokens; then refuses new jobs with 429", async () => {
    const jobs = (await h.request('GET', '/v1/templates/forge/jobs', { token: member })).body.items as { tokens: number }[];
    const spent = jobs.reduce((sum, j) => sum + j.tokens, 0);
    expect(spent).toBe(4 * CALL_TOKENS);
    await setPolicy({ forge_monthly_token_quota: spent + CALL_TOKENS + 1 });
    model.seen.length = 0;
    scriptedModel(SECOND_WITH_WRONG_RULE);
    const res = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs: expected(), endpoint_id: endpointId });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await settled(res.body.id);
    expect(done.status, done.failure_message).toBe('succeeded');
    expect(done.iterations_count).toBe(2);
    const last = (await iterations(res.body.id))[1];
    expect(last.notes).toMatch(/forge_monthly_token_quota is used up/);
    const refused = await submit({ sample_job_ids: [samples[0]!.job_id], endpoint_id: endpointId });
    expectError(refused, 429, 'forge_quota_exceeded');
    expect(refused.body.detail).toMatch(/forge_monthly_token_quota/);
    await setPolicy({ forge_monthly_token_quota: null });
  });

  it('fails the forge job on a model error, naming the endpoint and never the key', async () => {
    model.handle(() => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${API_KEY}` } } }));
    const res = await submit({ sample_job_ids: samples.map((s) => s.job_id), endpoint_id: endpointId });
    const done = await settled(res.body.id);
    expect(done.status).toBe('failed');
    expect(done.failure_message).toMatch(new RegExp(`forge endpoint ${endpointId} failed: HTTP 401.*credentials`));
    expect(done.failure_message).not.toContain(API_KEY);
    expect(done.iterations_count).toBe(0);
  });

  it('runs with the default forge endpoint when endpoint_id is left out, and deterministically when it is null', async () => {
    model.seen.length = 0;
    scriptedModel(SECOND);
    const byDefault = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs: expected() });
    expect(byDefault.body.endpoint_id).toBe(endpointId);
    expect((await settled(byDefault.body.id)).status).toBe('succeeded');
    expect(model.seen.length).toBeGreaterThan(0);

    model.seen.length = 0;
    const plain = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs: expected(), endpoint_id: null });
    expect(plain.body.endpoint_id).toBeNull();
    const done = await settled(plain.body.id);
    expect(done).toMatchObject({ status: 'succeeded', tokens: 0, dollars: 0 });
    expect(model.seen).toHaveLength(0);
  });

  it("takes the endpoint's default limits within the policy, and 404s an endpoint of another tenant", async () => {
    const put = await h.request('PUT', `/v1/admin/forge-endpoints/${endpointId}`, { token: admin, body: { default_max_turns: 3, default_max_budget_usd: 0.5 } });
    expect(put.status).toBe(200);
    const res = await submit({ sample_job_ids: [samples[0]!.job_id], endpoint_id: endpointId });
    expect(res.body.limits).toMatchObject({ max_iterations: 3, max_dollars: 0.5 });
    await settled(res.body.id);

    const theirs = await h.request('POST', '/v1/admin/forge-endpoints', { token: other, body: { name: 'theirs', backend: 'anthropic', model: 'm', base_url: model.url, credentials: { api_key: 'sk-other-1234' } } });
    expect(theirs.status).toBe(201);
    expectError(await submit({ sample_job_ids: [samples[0]!.job_id], endpoint_id: theirs.body.id }), 404, 'not_found');
    expectError(await submit({ sample_job_ids: [samples[0]!.job_id], endpoint_id: 'fep_missing' }), 404, 'not_found');
  });

  it('asks once more when the answer is not a usable template, and fails the job after a second one', async () => {
    const unusable = { json_schema: { type: 'object', properties: {} }, validation_rules: [], prompt_overlay: '', notes: 'nothing' };
    model.seen.length = 0;
    model.handle((req) => toolCall(req, promptOf(req).includes('Your last answer could not be used') ? SECOND : unusable));
    const res = await submit({ sample_job_ids: samples.map((s) => s.job_id), expected_outputs: expected(), endpoint_id: endpointId, max_iterations: 1 });
    const done = await settled(res.body.id);
    expect(done.status, done.failure_message).toBe('succeeded');
    expect(model.seen).toHaveLength(2);
    expect(promptOf(model.seen[1]!)).toMatch(/json_schema\.properties: json_schema needs "properties"/);
    const [only] = await iterations(res.body.id);
    expect(only.notes).toMatch(/Asked once more/);
    expect(only).toMatchObject({ tokens: 2 * CALL_TOKENS, scores: { overall: 1 } });

    model.handle((req) => toolCall(req, unusable));
    const monthCalls = async () => Number((await h.db.selectFrom('model_usage_monthly').select((eb) => eb.fn.sum<string>('calls').as('calls')).where('tenant_id', '=', DEFAULT_TENANT_ID).executeTakeFirst())?.calls ?? 0);
    const callsBefore = await monthCalls();
    const again = await submit({ sample_job_ids: samples.map((s) => s.job_id), endpoint_id: endpointId, max_iterations: 1 });
    const failed = await settled(again.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure_message).toMatch(new RegExp(`forge endpoint ${endpointId} answered twice with a template Quire cannot use`));
    // Both answers were billed though neither was usable: the job and the month count them.
    expect(failed).toMatchObject({ tokens: 2 * CALL_TOKENS });
    expect(failed.dollars).toBeCloseTo(2 * CALL_DOLLARS, 9);
    expect(await monthCalls()).toBe(callsBefore + 2);
  });
});
