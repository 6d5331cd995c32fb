// An ambiguous classification settled by the vlm endpoint, through the API: two templates that
// the embedded ranking cannot tell apart on a real Coolblue invoice (the same keywords, the same
// fields), a platform vlm endpoint on a loopback server that speaks OpenAI chat completions to the
// real openai SDK, in-process workers. The "model" reads the candidates Quire lists in its prompt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, postForm, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { type Answer, type LoopbackServer, type Seen, startLoopback } from '../helpers/loopback-server.js';
import { chatCompletion } from '../helpers/chat-completion.js';

const COOLBLUE = data('invoice2data/compare/coolblue1.pdf');
const VLM_KEY = 'sk-vlm-chooser-secret-91b2';
const PRICE = { input: 3, output: 15 };
const SCHEMA = {
  type: 'object',
  properties: { invoice_number: { type: 'string' }, total: { type: 'number', 'x-aliases': ['totaal'] } },
  'x-classification': { keywords: ['coolblue'] },
};

let h: Harness;
let vlm: LoopbackServer;
let member: string;
let admin: string;
const ids: Record<string, string> = {};

/** A chat completion whose message content is `content` as JSON. */
const completion = (content: unknown, usage = { prompt_tokens: 1200, completion_tokens: 30 }): Answer => chatCompletion(content, usage);

const formatOf = (req: Seen): string => req.json.response_format?.json_schema?.name;
const textOf = (req: Seen): string => req.json.messages[1].content.find((p: { type: string }) => p.type === 'text').text;

/** A model that picks the candidate named `name` from the prompt's list (or null), and extracts when asked to. */
function modelChoosing(name: string | null) {
  vlm.handle((req) => {
    if (formatOf(req) === 'choose_template') {
      const line = textOf(req).split('\n').find((l) => name && l.includes(`"${name}"`));
      const id = line ? /id (\S+):/.exec(line)![1] : null;
      return completion({ template_id: id, reason: name ? `The invoice is addressed to a business customer.` : 'None of these fits.' });
    }
    const wrapped = req.json.response_format.json_schema.schema.properties?.values;
    const values = { invoice_number: '1161123713', total: 17.99 };
    return completion(wrapped ? { values, evidence_pages: [] } : values);
  });
}

const chooserCalls = () => vlm.seen.filter((r) => formatOf(r) === 'choose_template');

async function classifyFile() {
  const res = await postForm(h, '/v1/templates/classify', member, [{ field: 'file', file: COOLBLUE }]);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function processUnassigned() {
  const res = await upload(h, member, COOLBLUE);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, member, res.body.job_id, undefined, 60_000);
}

beforeAll(async () => {
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1 });
  vlm = await startLoopback();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = await h.adminToken();
  for (const name of ['coolblue-consumer', 'coolblue-business']) {
    const res = await h.request('POST', '/v1/templates', { token: admin, body: { name, json_schema: SCHEMA } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids[name] = res.body.id;
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
  await vlm?.close();
});

describe('model chooser', () => {
  it('without a vlm endpoint, the two templates tie and the embedded decision is ambiguous', async () => {
    const body = await classifyFile();
    expect(body).toMatchObject({ matched: false, template_id: null, method: 'embedded', reason_code: 'ambiguous' });
    expect(body.candidates[0].score).toBe(body.candidates[1].score);
    expect(body.model).toBeUndefined();
  });

  it('with a vlm endpoint, POST /v1/templates/classify lets the model choose among the close candidates, and records what it spent', async () => {
    const put = await h.request('PUT', '/v1/admin/platform/infra/vlm', {
      token: admin,
      body: { backend: 'custom_url', model: 'qwen2.5-vl-7b-instruct', base_url: `${vlm.url}/v1`, credentials: { api_key: VLM_KEY }, max_retries: 0, price_per_mtok: PRICE },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    modelChoosing('coolblue-business');
    vlm.seen.length = 0;
    const body = await classifyFile();
    expect(body).toMatchObject({ matched: true, template_id: ids['coolblue-business'], method: 'vlm' });
    expect(body).not.toHaveProperty('reason_code');
    expect(body.reason).toMatch(/platform vlm endpoint chose coolblue-business among .*business customer/);
    expect(body.model).toMatchObject({ backend: 'custom_url', calls: 1, input_tokens: 1200, output_tokens: 30 });
    expect(body.model.cost_usd).toBeCloseTo((1200 * PRICE.input + 30 * PRICE.output) / 1e6, 9);

    // The answer is held to the candidates' ids (or null); the prompt has their evidence and the document's text.
    const [sent] = chooserCalls();
    expect(sent!.headers.authorization).toBe(`Bearer ${VLM_KEY}`);
    const schema = sent!.json.response_format.json_schema.schema;
    expect(schema.properties.template_id.enum).toEqual([...body.candidates.map((c: { template_id: string }) => c.template_id), null]);
    expect(textOf(sent!)).toMatch(/keywords: coolblue/);
    expect(textOf(sent!)).toMatch(/coolblue/i);
    const usage = await h.db.selectFrom('model_usage_monthly').selectAll().where('tenant_id', '=', DEFAULT_TENANT_ID).execute();
    expect(usage[0]).toMatchObject({ calls: 1, input_tokens: 1200 });
  });

  it("a job without template_id runs with the model's choice, which read page 1's image too", async () => {
    modelChoosing('coolblue-consumer');
    vlm.seen.length = 0;
    const job = await processUnassigned();
    expect(job.status).not.toBe('failed');
    expect(job.classification).toMatchObject({ matched: true, template_id: ids['coolblue-consumer'], method: 'vlm', model: { calls: 1 } });
    expect(job.result.extraction.template_id).toBe(ids['coolblue-consumer']);
    const [sent] = chooserCalls();
    const image = sent!.json.messages[1].content.find((p: { type: string }) => p.type === 'image_url');
    expect(image.image_url.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });

  it('the model may choose none of them', async () => {
    modelChoosing(null);
    const body = await classifyFile();
    expect(body).toMatchObject({ matched: false, template_id: null, method: 'vlm_none', reason_code: 'none_fits' });
    expect(body.reason).toMatch(/none of coolblue-\w+, coolblue-\w+ fits/);
  });

  it('a model failure does not fail the job: the embedded decision stands, and the reason says so', async () => {
    vlm.handle(() => ({ status: 500, body: { error: { message: 'model crashed', type: 'server_error' } } }));
    const job = await processUnassigned();
    expect(job.status).toBe('completed');
    expect(job.classification).toMatchObject({ matched: false, template_id: null, method: 'embedded', reason_code: 'ambiguous' });
    expect(job.classification.reason).toMatch(/The platform vlm endpoint could not settle it \(HTTP 500: .*model crashed\), so the embedded decision stands\./);
    expect(job.result.extraction).toBeUndefined();
    expect(JSON.stringify(job)).not.toContain(VLM_KEY);
  });

  it('an answer that is no JSON leaves the embedded decision, and what it was billed is still recorded', async () => {
    vlm.handle((req) => {
      const prose = completion({}, { prompt_tokens: 1100, completion_tokens: 25 });
      if (formatOf(req) === 'choose_template') (prose.body as any).choices[0].message.content = 'It is probably the business one.';
      return prose;
    });
    const body = await classifyFile();
    expect(body).toMatchObject({ matched: false, method: 'embedded', reason_code: 'ambiguous' });
    expect(body.reason).toMatch(/not JSON/);
    expect(body.model).toMatchObject({ backend: 'custom_url', calls: 1, input_tokens: 1100, output_tokens: 25 });
  });

  it('an answer outside the candidates is not taken', async () => {
    vlm.handle((req) => completion(formatOf(req) === 'choose_template' ? { template_id: 'tpl_invented', reason: 'x' } : {}));
    const body = await classifyFile();
    expect(body).toMatchObject({ matched: false, method: 'embedded', reason_code: 'ambiguous' });
    expect(body.reason).toMatch(/"tpl_invented", which is not one of the candidates/);
  });
});
