// The model path on a large document keeps the worker's event loop turning: the prompts are built,
// and the answers merged, grounded in the canonical words and voted on by the embedded extractor,
// in the pipeline thread pool; only the calls (waiting on the network) stay on the loop. The vlm
// endpoint is a loopback OpenAI-compatible server answering the real openai SDK. An interval
// timer on the test's own loop (its in-process worker's) records the longest gap between two
// firings while the job runs; before the move, that gap was most of the job's `extract` timing.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigDeck } from '../helpers/big-deck.js';
import { upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { type LoopbackServer, type Seen, startLoopback } from '../helpers/loopback-server.js';
import { INVOICE_TIMING_TEMPLATE } from '../../bench/lib/extraction-template.js';
import { longestHold, timingsOf } from '../helpers/event-loop.js';

const SLIDES = 200;
const logs: string[] = [];
let h: Harness;
let vlm: LoopbackServer;
let member: string;
let templateId: string;

/** A chat completion reading the first slide of the call: its invoice number, customer number and total. */
function answer(req: Seen) {
  const text: string = req.json.messages[1].content.find((p: any) => p.type === 'text').text;
  const page = Number(/--- page (\d+) ---/.exec(text)![1]);
  const values = { invoice_number: `INV-2024-${String(page).padStart(5, '0')}`, customer: { customer_number: `C-${10_000 + page}` }, total: Math.round(page * 11.9 * 100) / 100 };
  const evidence_pages = ['invoice_number', 'customer.customer_number', 'total'].map((field) => ({ field, page }));
  return {
    body: {
      id: `chatcmpl-${page}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'qwen2.5-vl-7b-instruct',
      choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify({ values, evidence_pages }) }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2000, completion_tokens: 60, total_tokens: 2060 },
    },
  };
}

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1, logStream: stream });
  vlm = await startLoopback();
  vlm.handle(answer);
  const admin = await h.adminToken();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  const infra = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: admin, body: { backend: 'custom_url', model: 'qwen2.5-vl-7b-instruct', base_url: `${vlm.url}/v1`, timeout_seconds: 20, max_retries: 0 } });
  expect(infra.status, JSON.stringify(infra.body)).toBe(200);
  const t = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'invoice', json_schema: INVOICE_TIMING_TEMPLATE.json_schema } });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  templateId = t.body.id;
}, 60_000);
afterAll(async () => {
  await h.close();
  await vlm.close();
});

describe('model extraction of a large document', () => {
  it('grounds the answers of every call in the pipeline thread, leaving the event loop turning', async () => {
    // 50 calls share the job's cancel signal; none may leave its abort listener on it.
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const created = await upload(h, member, { name: 'big.pptx', bytes: bigDeck(SLIDES) }, { processing_mode: 'extraction', template_id: templateId });
    expect(created.status).toBe(202);
    const jobId = created.body.job_id;
    const run = await longestHold(() => waitForJob(h, member, jobId, undefined, 240_000)).finally(() => process.off('warning', onWarning));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map(String)).toEqual([]);
    const { result } = run.value;
    // Every slide went to the model (4 a call), and the answers were merged and grounded: each
    // value is the first call's (all are printed exactly), boxed on slide 1.
    expect(vlm.seen).toHaveLength(SLIDES / 4);
    expect(result.engine.extraction).toMatchObject({ method: 'vlm', calls: SLIDES / 4, grounded: 3, ungrounded: 0 });
    expect(result.extraction.data).toMatchObject({ invoice_number: 'INV-2024-00001', customer: { customer_number: 'C-10001' }, total: 11.9 });
    for (const path of ['invoice_number', 'customer.customer_number', 'total']) expect(result.extraction.fields[path].evidence[0].page, path).toBe(1);
    expect(result.entities.length).toBeGreaterThan(SLIDES);
    const stage = timingsOf(logs, jobId).extract!;
    expect(run.holdMs, `longest hold ${Math.round(run.holdMs)} ms, extract stage ${stage} ms`).toBeLessThan(stage / 2);
  }, 300_000);
});
