// The model path end to end: a vlm (and judge) endpoint on a loopback OpenAI-compatible server,
// real invoices uploaded through the API, in-process workers. The server speaks the chat
// completions wire protocol to the real openai SDK; it answers with the invoice's ground truth
// (../shared/data/invoice2data) plus whatever the test needs to be wrong.
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/models/usage.js';
import { data, upload, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';
import { type Answer, type LoopbackServer, type Seen, startLoopback } from '../helpers/loopback-server.js';
import { extractionCompletion } from '../helpers/chat-completion.js';
import { buildPdf } from '../helpers/mixed-pdf.js';

const AZURE = data('invoice2data/compare/AzureInterior.pdf');
const TRUTH = JSON.parse(fs.readFileSync(data('invoice2data/compare/AzureInterior.json'), 'utf8'))[0];
const VLM_KEY = 'sk-vlm-secret-4f9a2c7e1b';
const JUDGE_KEY = 'sk-judge-secret-8d3b6a0f5e';
const PRICE = { input: 3, output: 15 };

const SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string', description: 'The invoice number' },
    issue_date: { type: 'string', format: 'date' },
    total: { type: 'number', description: 'Total amount due' },
    vendor_email: { type: 'string' },
    po_number: { type: 'string', description: 'purchase order number' },
  },
  required: ['invoice_number', 'total'],
};

/** What the model reads off the invoice: the ground truth, and a purchase-order number that is not printed anywhere. */
const MODEL_VALUES = { invoice_number: TRUTH.invoice_number, issue_date: TRUTH.date, total: TRUTH.amount, vendor_email: TRUTH.partner_email, po_number: 'PO-58213-XQ' };

let h: Harness;
let vlm: LoopbackServer;
let judge: LoopbackServer;
let member: string;
let admin: string;
let templateId: string;
const logs: string[] = [];
const bodies: string[] = [];

/** A chat completion as an OpenAI-compatible server sends it, in the shape the request asked for. */
const completion = (req: Seen, values: Record<string, unknown>, usage = { prompt_tokens: 2400, completion_tokens: 90 }): Answer => extractionCompletion(req, values, usage);

/** A platform infra endpoint through the API, as a platform admin sets one up. */
async function setInfra(type: 'vlm' | 'judge', baseUrl: string, apiKey: string) {
  const res = await call('PUT', `/v1/admin/platform/infra/${type}`, admin, {
    backend: 'custom_url',
    model: 'qwen2.5-vl-7b-instruct',
    base_url: baseUrl,
    credentials: { api_key: apiKey },
    timeout_seconds: 20,
    max_retries: 2,
    price_per_mtok: PRICE,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.credentials).toEqual({ api_key: 'set' });
}

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await h.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  bodies.push(JSON.stringify(res.body));
  return res;
}

async function processInvoice(token = member, tenantTemplate = templateId) {
  const res = await upload(h, token, AZURE, { template_id: tenantTemplate });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await waitForJob(h, token, res.body.job_id, undefined, 60_000);
  return (await call('GET', `/v1/documents/${res.body.job_id}`, token)).body;
}

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1, logStream: stream });
  vlm = await startLoopback();
  judge = await startLoopback();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = await h.adminToken();
  const t = await call('POST', '/v1/templates', admin, { name: 'invoice-model', json_schema: SCHEMA, prompt_overlay: 'Invoices from Azure Interior print the total as "Total".' });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  templateId = t.body.id;
  await setInfra('vlm', `${vlm.url}/v1`, VLM_KEY);
}, 60_000);

afterAll(async () => {
  await h.close();
  await vlm.close();
  await judge.close();
});

describe('extraction through a vlm endpoint (custom_url, OpenAI-compatible)', () => {
  it('grounds each value on the page, flags the invented one, and records tokens and cost', async () => {
    vlm.seen.length = 0;
    vlm.handle((req) => completion(req, MODEL_VALUES));
    const job = await processInvoice();

    // What went over the wire: the key, the page image, the template's schema and prompt.
    expect(vlm.seen).toHaveLength(1);
    const sent = vlm.seen[0]!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${VLM_KEY}`);
    expect(sent.json.response_format.json_schema.schema.properties.values).toEqual(SCHEMA);
    const parts = sent.json.messages[1].content;
    expect(parts.find((p: any) => p.type === 'image_url').image_url.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(parts.find((p: any) => p.type === 'text').text).toContain('INV/2023/03/0008');
    expect(sent.json.messages[0].content).toContain('print the total as "Total"');

    // Grounded values carry page and box; the invented one keeps its value, has no box, and opens a review.
    expect(job.status).toBe('needs_review');
    const x = job.result.extraction;
    expect(x.data).toMatchObject(MODEL_VALUES);
    for (const field of ['invoice_number', 'issue_date', 'total', 'vendor_email']) {
      const f = x.fields[field];
      expect(f.evidence, field).toHaveLength(1);
      expect(f.evidence[0].page).toBe(1);
      const [x0, y0, x1, y1] = f.evidence[0].bbox;
      expect(x1).toBeGreaterThan(x0);
      expect(y1).toBeGreaterThan(y0);
      expect(f.confidence).toBeGreaterThanOrEqual(0.8);
    }
    expect(x.fields.invoice_number.evidence[0].text).toContain('INV/2023/03/0008');
    expect(x.fields.po_number).toMatchObject({ value: 'PO-58213-XQ', evidence: [] });
    expect(x.review_reasons).toEqual(['ungrounded:po_number']);
    expect(job.review_reasons ?? x.review_reasons).toContain('ungrounded:po_number');
    const reviews = await call('GET', `/v1/reviews?job_id=${job.job_id}`, member);
    expect(reviews.body.items[0].reasons).toEqual(['ungrounded:po_number']);

    // Tokens and cost: in the result, and in the tenant's monthly totals.
    const engine = job.result.engine;
    expect(engine.stages).toEqual(expect.arrayContaining(['model_extraction', 'grounding']));
    expect(engine.extraction).toMatchObject({ method: 'vlm', backend: 'custom_url', model: 'qwen2.5-vl-7b-instruct', calls: 1, input_tokens: 2400, output_tokens: 90, grounded: 4, ungrounded: 1 });
    expect(engine.extraction.cost_usd).toBeCloseTo((2400 * PRICE.input + 90 * PRICE.output) / 1e6, 9);
    const usage = await h.db.selectFrom('model_usage_monthly').selectAll().where('tenant_id', '=', DEFAULT_TENANT_ID).execute();
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ month: monthOf(new Date()), backend: 'custom_url', calls: 1, input_tokens: 2400, output_tokens: 90 });
    expect(Number(usage[0]!.cost_usd)).toBeCloseTo(0.00855, 6);
  });

  it('asks once more when the answer does not fit the schema', async () => {
    vlm.seen.length = 0;
    let n = 0;
    vlm.handle((req) => completion(req, ++n === 1 ? { ...MODEL_VALUES, total: 'about three hundred' } : MODEL_VALUES));
    const job = await processInvoice();
    expect(vlm.seen).toHaveLength(2);
    expect(vlm.seen[1]!.json.messages[1].content[0].text).toMatch(/did not fit the schema[\s\S]*total: expected a number/);
    expect(job.result.extraction.data.total).toBe(TRUTH.amount);
    expect(job.result.engine.extraction).toMatchObject({ calls: 2, corrections: 1 });
  });

  it('asks once more when the answer is not JSON at all', async () => {
    vlm.seen.length = 0;
    let n = 0;
    vlm.handle((req) => {
      if (++n > 1) return completion(req, { ...MODEL_VALUES, po_number: null });
      const prose = completion(req, {});
      (prose.body as any).choices[0].message.content = 'Sure! The invoice number is INV/2023/03/0008.';
      return prose;
    });
    const job = await processInvoice();
    expect(vlm.seen).toHaveLength(2);
    expect(vlm.seen[1]!.json.messages[1].content[0].text).toMatch(/not JSON.*answer with one JSON object only/);
    expect(job.status).toBe('completed');
    // The unusable answer was billed too: both calls are counted.
    expect(job.result.engine.extraction).toMatchObject({ calls: 2, input_tokens: 4800, output_tokens: 180, corrections: 1 });
  });

  it('reads an answer of JSON null as no values (asked once more), never as a failure of Quire', async () => {
    vlm.seen.length = 0;
    vlm.handle((req) => {
      const empty = completion(req, {});
      (empty.body as any).choices[0].message.content = 'null';
      return empty;
    });
    const job = await processInvoice();
    expect(vlm.seen).toHaveLength(2);
    expect(job.status, JSON.stringify(job.failure_message)).toBe('needs_review');
    expect(job.result.extraction.review_reasons).toEqual(expect.arrayContaining(['low_confidence:invoice_number', 'low_confidence:total']));
  });

  it('drops what still does not fit after the second chance, and sends the job to review for it', async () => {
    const strict = await call('POST', '/v1/templates', admin, {
      name: 'invoice-strict',
      json_schema: { ...SCHEMA, properties: { ...SCHEMA.properties, invoice_number: { type: 'string', pattern: '^INV/\\d{4}/\\d{2}/\\d{4}$' } }, required: [] },
    });
    expect(strict.status, JSON.stringify(strict.body)).toBe(201);
    vlm.seen.length = 0;
    // Both answers: an invoice number the schema's pattern refuses (though printed inside the real one), and a total that is no number.
    vlm.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null, invoice_number: '2023/03/0008', total: 'about three hundred' }));
    const job = await processInvoice(member, strict.body.id);
    expect(vlm.seen, JSON.stringify([job.status, job.failure_code, job.failure_message])).toHaveLength(2);
    expect(job.status).toBe('needs_review');
    const x = job.result.extraction;
    expect(x.data).not.toHaveProperty('invoice_number');
    expect(x.data).not.toHaveProperty('total');
    expect(x.fields.invoice_number).toEqual({ value: null, confidence: 0, evidence: [] });
    expect(x.fields.total).toEqual({ value: null, confidence: 0, evidence: [] });
    expect(x.review_reasons).toEqual(expect.arrayContaining(['low_confidence:invoice_number', 'low_confidence:total']));
    expect(x.data.issue_date).toBe(TRUTH.date);
  });

  it('retries a 429 (honouring Retry-After) and completes', async () => {
    vlm.seen.length = 0;
    let n = 0;
    vlm.handle((req) => (++n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } } } : completion(req, { ...MODEL_VALUES, po_number: null })));
    const job = await processInvoice();
    expect(vlm.seen).toHaveLength(2);
    expect(job.status, JSON.stringify(job.result?.extraction?.review_reasons)).toBe('completed');
    expect(job.result.engine.extraction.calls).toBe(1);
  });

  it('fails the job with model_error on a persistent 5xx, and the job\'s retry works once the model is back', async () => {
    vlm.seen.length = 0;
    vlm.handle(() => ({ status: 503, headers: { 'retry-after': '0' }, body: { error: { message: 'The server is overloaded' } } }));
    const res = await upload(h, member, AZURE, { template_id: templateId });
    const failed = await waitForJob(h, member, res.body.job_id, ['failed', 'completed', 'needs_review'], 60_000);
    expect(vlm.seen).toHaveLength(3); // max_retries 2
    expect(failed.status).toBe('failed');
    expect(failed.failure_code).toBe('model_error');
    // The status once: the SDK's message starts with it too ("503 The server is overloaded").
    expect(failed.failure_message).toMatch(/platform vlm endpoint failed: HTTP 503 \(The server is overloaded\) after 3 attempts\. .*retry the job/);

    vlm.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null }));
    const retry = await call('POST', `/v1/documents/${res.body.job_id}/retry`, member);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const done = await waitForJob(h, member, res.body.job_id, ['completed', 'needs_review', 'failed'], 60_000);
    expect(done.status).toBe('completed');
    expect(done.result.extraction.data.invoice_number).toBe(TRUTH.invoice_number);
  });

  it('counts a billed call toward the month when a later call of the same job fails', async () => {
    const month = async () =>
      (await h.db.selectFrom('model_usage_monthly').select(['calls', 'input_tokens', 'output_tokens']).where('tenant_id', '=', DEFAULT_TENANT_ID).execute()).reduce(
        (sum, r) => ({ calls: sum.calls + Number(r.calls), input_tokens: sum.input_tokens + Number(r.input_tokens), output_tokens: sum.output_tokens + Number(r.output_tokens) }),
        { calls: 0, input_tokens: 0, output_tokens: 0 },
      );
    const before = await month();
    let n = 0;
    // The first answer does not fit the schema (a total that is no number): the correction round is refused.
    vlm.handle((req) => (++n === 1 ? completion(req, { ...MODEL_VALUES, total: 'about nine hundred' }, { prompt_tokens: 1000, completion_tokens: 50 }) : { status: 400, body: { error: { message: 'Invalid request' } } }));
    const res = await upload(h, member, AZURE, { template_id: templateId });
    const failed = await waitForJob(h, member, res.body.job_id, ['failed', 'completed', 'needs_review'], 60_000);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'model_error' });
    expect(await month()).toEqual({ calls: before.calls + 1, input_tokens: before.input_tokens + 1000, output_tokens: before.output_tokens + 50 });
  });
});

describe('an answer cut off at the output limit', () => {
  /** An OpenAI-compatible answer that stopped at max_tokens: its JSON is cut mid-list. */
  const cutOffAnswer = (req: Seen): Answer => {
    const answer = completion(req, {}, { prompt_tokens: 3000, completion_tokens: 4096 });
    const choice = (answer.body as any).choices[0];
    choice.message.content = '{"values": {"invoice_number": "INV-77", "issue_date": "2024-05-06"';
    choice.finish_reason = 'length';
    return answer;
  };
  const pagesIn = (req: Seen) => (req.json.messages[1].content[0].text.match(/^--- page \d+ ---$/gm) ?? []).length;

  it('reads the chunk again in halves, counting every call; the values of both pages are kept', async () => {
    vlm.seen.length = 0;
    vlm.handle((req) => {
      if (pagesIn(req) > 1) return cutOffAnswer(req);
      const text: string = req.json.messages[1].content[0].text;
      return completion(req, text.includes('--- page 1 ---') ? { invoice_number: 'INV-77', issue_date: '2024-05-06' } : { total: 250 }, { prompt_tokens: 1500, completion_tokens: 60 });
    });
    const bytes = await buildPdf([{ text: ['Northwind Traders GmbH', 'Invoice INV-77', 'Invoice Date: 2024-05-06'] }, { text: ['Total: 250.00 EUR'] }]);
    const res = await upload(h, member, { name: 'two-pages.pdf', bytes }, { template_id: templateId });
    const job = (await call('GET', `/v1/documents/${(await waitForJob(h, member, res.body.job_id, undefined, 60_000)).job_id}`, member)).body;
    expect(vlm.seen.map(pagesIn)).toEqual([2, 1, 1]);
    expect(job.result.extraction.data).toMatchObject({ invoice_number: 'INV-77', issue_date: '2024-05-06', total: 250 });
    expect(job.result.extraction.fields.total.evidence[0].page).toBe(2);
    expect(job.result.engine.extraction).toMatchObject({ calls: 3, input_tokens: 6000, output_tokens: 4096 + 120 });
  });

  it('fails a one-page chunk with model_error saying what to change, and counts the billed call', async () => {
    const month = async () => Number((await h.db.selectFrom('model_usage_monthly').select((eb) => eb.fn.sum<string>('output_tokens').as('out')).where('tenant_id', '=', DEFAULT_TENANT_ID).executeTakeFirst())?.out ?? 0);
    const before = await month();
    vlm.seen.length = 0;
    vlm.handle(cutOffAnswer);
    const res = await upload(h, member, AZURE, { template_id: templateId });
    const failed = await waitForJob(h, member, res.body.job_id, ['failed', 'completed', 'needs_review'], 60_000);
    expect(vlm.seen).toHaveLength(1);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'model_error' });
    expect(failed.failure_message).toMatch(/cut off at the model's output limit.*tokens_per_page/);
    expect(await month()).toBe(before + 4096);
  });
});

describe('line items', () => {
  it('ground each cell on its own item\'s row, though the same number is printed on other rows', async () => {
    const t = await call('POST', '/v1/templates', admin, {
      name: 'invoice-items',
      json_schema: { type: 'object', properties: { lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'number' }, amount: { type: 'number' } } } } } },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    const lines = [{ description: 'Office chair', qty: 1, amount: 50 }, { description: 'Standing desk', qty: 1, amount: 120 }, { description: 'Desk lamp', qty: 2, amount: 50 }];
    vlm.handle((req) => completion(req, { lines }));
    const bytes = await buildPdf([
      { text: ['Northwind Traders GmbH', 'Invoice INV-88', 'Description\tQty\tPrice\tAmount', 'Office chair\t1\t50.00\t50.00', 'Standing desk\t1\t120.00\t120.00', 'Desk lamp\t2\t25.00\t50.00', 'Total\t\t\t220.00'], columns: [72, 250, 330, 420] },
    ]);
    const res = await upload(h, member, { name: 'items.pdf', bytes }, { template_id: t.body.id });
    await waitForJob(h, member, res.body.job_id, undefined, 60_000);
    const fields = (await call('GET', `/v1/documents/${res.body.job_id}`, member)).body.result.extraction.fields;
    const middle = (e: { bbox: number[] }) => (e.bbox[1]! + e.bbox[3]!) / 2;
    lines.forEach((line, i) => {
      const row = fields[`lines[${i}].description`].evidence[0];
      expect(row.text).toBe(line.description);
      for (const key of ['qty', 'amount']) {
        const cell = fields[`lines[${i}].${key}`];
        expect(cell.evidence, `lines[${i}].${key}`).toHaveLength(1);
        expect(Math.abs(middle(cell.evidence[0]) - middle(row)), `lines[${i}].${key}`).toBeLessThan(3);
      }
    });
  });
});

describe('a value printed in several places', () => {
  it('is boxed where the embedded extractor read the same value by its label', async () => {
    vlm.handle((req) => completion(req, { invoice_number: 'INV-91', total: 220 }));
    const bytes = await buildPdf([{ text: ['Northwind Traders GmbH', 'Invoice number: INV-91', 'Subtotal: 220.00 EUR', 'VAT 0%: 0.00 EUR', 'Total: 220.00 EUR'] }]);
    const res = await upload(h, member, { name: 'subtotal-equals-total.pdf', bytes }, { template_id: templateId });
    await waitForJob(h, member, res.body.job_id, undefined, 60_000);
    const job = (await call('GET', `/v1/documents/${res.body.job_id}`, member)).body;
    const total = job.result.extraction.fields.total;
    expect(total.evidence).toHaveLength(1);
    // The box is on the "Total" line (the fifth), not on the subtotal's.
    const lines = job.result.pages?.[0]?.blocks?.flatMap((b: any) => b.lines) ?? job.result.canonical.pages[0].blocks.flatMap((b: any) => b.lines);
    const totalLine = lines.find((l: any) => l.words.some((w: any) => w.text.startsWith('Total')));
    const middle = (b: number[]) => (b[1]! + b[3]!) / 2;
    expect(Math.abs(middle(total.evidence[0].bbox) - middle(totalLine.bbox))).toBeLessThan(3);
  });
});

describe('a page longer than tokens_per_page, sent without its image', () => {
  it('send_page_images off: sends a page longer than tokens_per_page whole, in parts, so a value at its foot is read', async () => {
    await h.seedTenant('text-only');
    const tenantAdmin = (await h.seedUser('text-only', 'admin')).token!;
    const policy = await call('PATCH', '/v1/admin/tenant-policy/text-only', tenantAdmin, { prompt_budget_policy: { send_page_images: false, tokens_per_page: 60 } });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const t = await call('POST', '/v1/templates', tenantAdmin, { name: 'invoice-text-only', json_schema: SCHEMA });
    // A dense page: the invoice number at its head, 24 lines of items, the total at its foot,
    // far past 60 tokens (240 characters) of text.
    const items = Array.from({ length: 24 }, (_, i) => `Item ${i + 1} office supplies assorted\t${i + 1}\t${(i + 1) * 2}.00`);
    const lines = ['Northwind Traders GmbH', 'Invoice number: INV-4711', ...items, 'Total: 300.00 EUR'];
    const bytes = await buildPdf([{ text: lines, columns: [72, 380, 450] }]);
    vlm.seen.length = 0;
    // The model answers what the text it was sent shows.
    vlm.handle((req) => {
      const text: string = req.json.messages[1].content.find((p: any) => p.type === 'text').text;
      return completion(req, { invoice_number: text.includes('INV-4711') ? 'INV-4711' : null, total: /Total: 300\.00/.test(text) ? 300 : null });
    });
    const res = await upload(h, tenantAdmin, { name: 'dense.pdf', bytes }, { template_id: t.body.id });
    await waitForJob(h, tenantAdmin, res.body.job_id, undefined, 60_000);
    const job = (await call('GET', `/v1/documents/${res.body.job_id}`, tenantAdmin)).body;

    const texts: string[] = vlm.seen.map((sent) => {
      const parts = sent.json.messages[1].content;
      expect(parts.some((p: any) => p.type === 'image_url')).toBe(false);
      return parts.find((p: any) => p.type === 'text').text;
    });
    // Every line of the page went to the model, in parts of at most 60 tokens, and nothing says text was left out.
    const sentText = texts.join('\n');
    for (const line of lines) for (const word of line.split('\t')) expect(sentText, word).toContain(word);
    const parts = texts.flatMap((text) => [...text.matchAll(/--- page 1 \(part (\d+) of (\d+)\) ---\n([\s\S]*?)(?=\n--- page |$)/g)]);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((m) => Number(m[1]))).toEqual(parts.map((_, i) => i + 1));
    for (const m of parts) {
      expect(Number(m[2])).toBe(parts.length);
      expect(m[3]!.length).toBeLessThanOrEqual(240);
    }
    expect(sentText).not.toMatch(/text cut here|not sent|page image/);
    // The total at the foot of the page was read, grounded, and merged with the number from its head.
    expect(job.result.extraction.data).toMatchObject({ invoice_number: 'INV-4711', total: 300 });
    expect(job.result.extraction.fields.total.evidence[0].text).toContain('300.00');
  });

  it('sends a long page of a format without page images (a text file) whole, in parts, though images are on', async () => {
    // One page (no form feed) of about 5,000 tokens: the default tokens_per_page is 3000.
    const items = Array.from({ length: 400 }, (_, i) => `Item ${String(i + 1).padStart(3, '0')} office supplies, assorted colours   ${(i + 1) * 2}.00`);
    const text = ['Northwind Traders GmbH', 'Invoice number: INV-4712', ...items, 'Total: 80,200.00 EUR'].join('\n');
    vlm.seen.length = 0;
    vlm.handle((req) => {
      const sent: string = req.json.messages[1].content.find((p: any) => p.type === 'text').text;
      return completion(req, { invoice_number: sent.includes('INV-4712') ? 'INV-4712' : null, total: sent.includes('Total: 80,200.00') ? 80200 : null });
    });
    const res = await upload(h, member, { name: 'long.txt', bytes: Buffer.from(text) }, { template_id: templateId });
    await waitForJob(h, member, res.body.job_id, undefined, 60_000);
    const job = (await call('GET', `/v1/documents/${res.body.job_id}`, member)).body;
    const texts: string[] = vlm.seen.map((sent) => sent.json.messages[1].content.find((p: any) => p.type === 'text').text);
    expect(vlm.seen.every((sent) => !sent.json.messages[1].content.some((p: any) => p.type === 'image_url'))).toBe(true);
    const sentText = texts.join('\n');
    expect(sentText).toContain('--- page 1 (part 2 of 2) ---');
    for (const line of items) expect(sentText).toContain(line.replace(/\s+/g, ' ').split(' ').slice(0, 2).join(' '));
    expect(sentText).toContain('Total: 80,200.00 EUR');
    expect(sentText).not.toMatch(/text cut here|page image shows/);
    expect(job.result.extraction.data).toMatchObject({ invoice_number: 'INV-4712', total: 80200 });
  });
});

describe('a yes/no field', () => {
  it('the embedded extractor read the other way on the page goes to review', async () => {
    const t = await call('POST', '/v1/templates', admin, {
      name: 'invoice-paid',
      json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, paid: { type: 'boolean', description: 'Whether the invoice is paid' } } },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    const bytes = await buildPdf([{ text: ['Northwind Traders GmbH', 'Invoice number: INV-93', 'Paid: No', 'Total: 80.00 EUR'] }]);
    const run = async (paid: boolean) => {
      vlm.handle((req) => completion(req, { invoice_number: 'INV-93', paid }));
      const res = await upload(h, member, { name: `paid-${paid}.pdf`, bytes }, { template_id: t.body.id });
      await waitForJob(h, member, res.body.job_id, undefined, 60_000);
      return (await call('GET', `/v1/documents/${res.body.job_id}`, member)).body;
    };
    const contradicted = await run(true);
    expect(contradicted.result.extraction.fields.paid.confidence).toBeLessThan(0.7);
    expect(contradicted.status).toBe('needs_review');
    expect(contradicted.result.extraction.review_reasons).toEqual(['low_confidence:paid']);
    const agreed = await run(false);
    expect(agreed.result.extraction.fields.paid.confidence).toBeGreaterThanOrEqual(0.7);
    expect(agreed.status, JSON.stringify(agreed.result.extraction.review_reasons)).toBe('completed');
  });
});

describe('re-extraction', () => {
  it('sends the page images stored by the first run', async () => {
    vlm.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null }));
    const res = await upload(h, member, AZURE, { processing_mode: 'canonical' });
    const first = await waitForJob(h, member, res.body.job_id, undefined, 60_000);
    vlm.seen.length = 0;
    const again = await call('POST', `/v1/documents/${first.job_id}/reextract`, member, { template_id: templateId });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const job = await waitForJob(h, member, first.job_id, ['completed', 'needs_review', 'failed'], 60_000);
    expect(job.status).toBe('completed');
    expect(job.result.engine).toMatchObject({ reused_canonical: true, extraction: { method: 'vlm', calls: 1 } });
    const stored = first.artifacts.find((a: any) => a.kind === 'page_image');
    const png = await fetch(`${h.baseUrl}/v1/artifacts/${stored.id}`, { headers: { authorization: `Bearer ${member}` } }).then(async (r) => Buffer.from(await r.arrayBuffer()));
    const image = vlm.seen[0]!.json.messages[1].content.find((p: any) => p.type === 'image_url');
    expect(image.image_url.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
  });
});

describe('checks on model values', () => {
  it('holds a value a failed arithmetic rule contradicts below the floor, even at warning severity', async () => {
    const t = await call('POST', '/v1/templates', admin, {
      name: 'invoice-total-check',
      json_schema: SCHEMA,
      validation_rules: [{ kind: 'arithmetic', severity: 'warn', params: { expression: 'total = 1' }, message: 'The total does not add up.' }],
    });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    vlm.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null }));
    const job = await processInvoice(member, t.body.id);
    expect(job.status).toBe('needs_review');
    expect(job.result.extraction.data.total).toBe(TRUTH.amount);
    expect(job.result.extraction.fields.total.confidence).toBeLessThan(0.7);
    expect(job.result.extraction.review_reasons).toContain('low_confidence:total');
  });
});

describe('a date whose day/month order the document does not prove', () => {
  const US = ['Lone Star Supplies Inc.', '100 Congress Ave', 'Austin, TX 78701', 'Invoice INV-2024-17'];
  const UK = ['Thames Office Supplies Ltd', '1 High Street', 'London SW1A 1AA', 'Invoice INV-2024-17'];

  async function datedInvoice(name: string, lines: string[], modelDate: string) {
    vlm.handle((req) => completion(req, { invoice_number: 'INV-2024-17', issue_date: modelDate, total: 120 }));
    const bytes = await buildPdf([{ text: lines }]);
    const res = await upload(h, member, { name, bytes }, { template_id: templateId });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await waitForJob(h, member, res.body.job_id, undefined, 60_000);
    return (await call('GET', `/v1/documents/${res.body.job_id}`, member)).body;
  }

  it('is found on the page in either reading, and held below the floor like the embedded extractor holds it', async () => {
    const cases: [string, string[], string][] = [
      // An American document: the model reads month-first (the embedded guess), or gives the date as printed.
      ['us-month-first.pdf', [...US, 'Invoice Date: 03/04/2024', 'Total: $120.00'], '2024-03-04'],
      ['us-as-printed.pdf', [...US, 'Invoice Date: 03/04/2024', 'Total: $120.00'], '03/04/2024'],
      // Elsewhere the model may read it day-first, or month-first: both are readings of the same words.
      ['uk-day-first.pdf', [...UK, 'Invoice Date: 03/04/2024', 'Total: £120.00'], '2024-04-03'],
      ['uk-month-first.pdf', [...UK, 'Invoice Date: 03/04/2024', 'Total: £120.00'], '2024-03-04'],
    ];
    for (const [name, lines, modelDate] of cases) {
      const job = await datedInvoice(name, lines, modelDate);
      const date = job.result.extraction.fields.issue_date;
      expect(date.evidence, name).toHaveLength(1);
      expect(date.evidence[0].text, name).toBe('03/04/2024');
      expect(date.confidence, name).toBeLessThan(0.7);
      expect(job.status, name).toBe('needs_review');
      expect(job.result.extraction.review_reasons, name).toEqual(['low_confidence:issue_date']);
    }
    // The date given as printed is read in the American document's order.
    expect((await datedInvoice('us-again.pdf', [...US, 'Invoice Date: 03/04/2024', 'Total: $120.00'], '03/04/2024')).result.extraction.data.issue_date).toBe('2024-03-04');
  });

  it('passes when another date proves the order', async () => {
    const job = await datedInvoice('us-proved.pdf', [...US, 'Invoice Date: 03/04/2024', 'Due Date: 04/18/2024', 'Total: $120.00'], '2024-03-04');
    expect(job.result.extraction.fields.issue_date.confidence).toBeGreaterThanOrEqual(0.7);
    expect(job.status, JSON.stringify(job.result.extraction.review_reasons)).toBe('completed');
  });
});

describe('judge mode with a judge endpoint', () => {
  it('a second model extracts independently; its disagreement opens a review', async () => {
    await setInfra('judge', `${judge.url}/v1`, JUDGE_KEY);
    await h.seedTenant('judged');
    const judgedAdmin = (await h.seedUser('judged', 'admin')).token!;
    const policy = await call('PATCH', '/v1/admin/tenant-policy/judged', judgedAdmin, { judge_mode_enabled: true });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const t = await call('POST', '/v1/templates', judgedAdmin, { name: 'invoice-judged', json_schema: SCHEMA });
    vlm.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null }));
    judge.seen.length = 0;
    judge.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null, total: 297.84 }, { prompt_tokens: 2300, completion_tokens: 80 }));
    const job = await processInvoice(judgedAdmin, t.body.id);
    expect(judge.seen).toHaveLength(1);
    expect(judge.seen[0]!.headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    expect(job.status).toBe('needs_review');
    expect(job.result.extraction.review_reasons).toEqual(['low_agreement:total']);
    expect(job.result.engine.stages).toContain('judge');
    expect(job.result.engine.judge).toMatchObject({ method: 'judge_model', disagreements: { total: { value: TRUTH.amount, judge_value: 297.84, agreement: 0 } } });
    expect(job.result.engine.extraction.judge).toMatchObject({ backend: 'custom_url', calls: 1, input_tokens: 2300, output_tokens: 80 });
    // The OCR second reading is not needed when a judge model votes.
    expect(job.result.engine.stages).not.toContain('ocr');
  });

  it("the template's post-processing does not set the two readings apart: the same values agree", async () => {
    await setInfra('judge', `${judge.url}/v1`, JUDGE_KEY);
    await h.seedTenant('judged-pp');
    const tenantAdmin = (await h.seedUser('judged-pp', 'admin')).token!;
    expect((await call('PATCH', '/v1/admin/tenant-policy/judged-pp', tenantAdmin, { judge_mode_enabled: true })).status).toBe(200);
    const postProcessing = { date_format: 'DD.MM.YYYY', defaults: { po_number: 'none' } };
    const t = await call('POST', '/v1/templates', tenantAdmin, { name: 'invoice-judged-pp', json_schema: SCHEMA, post_processing: postProcessing });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    const same = { ...MODEL_VALUES, po_number: null };
    vlm.handle((req) => completion(req, same));
    judge.handle((req) => completion(req, same));
    const job = await processInvoice(tenantAdmin, t.body.id);
    const [y, m, d] = (TRUTH.date as string).split('-');
    expect(job.result.extraction.data).toMatchObject({ issue_date: `${d}.${m}.${y}`, po_number: 'none' });
    expect(job.result.engine.judge).toMatchObject({ method: 'judge_model', disagreements: {} });
    expect(job.result.engine.judge.agreement.issue_date).toBe(1);
    expect(job.result.extraction.review_reasons.filter((r: string) => r.startsWith('low_agreement:'))).toEqual([]);
  });

  it('a failing judge does not fail the job: the values stand unconfirmed and go to review', async () => {
    await setInfra('judge', `${judge.url}/v1`, JUDGE_KEY);
    await h.seedTenant('judge-down');
    const tenantAdmin = (await h.seedUser('judge-down', 'admin')).token!;
    expect((await call('PATCH', '/v1/admin/tenant-policy/judge-down', tenantAdmin, { judge_mode_enabled: true })).status).toBe(200);
    const t = await call('POST', '/v1/templates', tenantAdmin, { name: 'invoice-judge-down', json_schema: SCHEMA });
    vlm.handle((req) => completion(req, { ...MODEL_VALUES, po_number: null }));
    judge.handle(() => ({ status: 401, body: { error: { message: 'invalid api key', type: 'invalid_request_error' } } }));
    const job = await processInvoice(tenantAdmin, t.body.id);
    expect(job.status).toBe('needs_review');
    expect(job.result.extraction.data.total).toBe(TRUTH.amount);
    expect(job.result.extraction.review_reasons).toContain('low_agreement:total');
    expect(job.result.engine.judge).toMatchObject({ method: 'judge_model', agreement: { total: 0 } });
    expect(job.result.engine.judge.unavailable).toMatch(/HTTP 401/);
    expect(job.result.engine.judge.unavailable).not.toContain(JUDGE_KEY);
  });
});

describe('secrets', () => {
  it('never appear in any response or log line', async () => {
    for (const path of ['/v1/admin/platform/infra', '/v1/admin/platform/infra/vlm', '/v1/admin/platform/infra/judge']) expect((await call('GET', path, admin)).status).toBe(200);
    expect((await call('POST', '/v1/admin/platform/infra/vlm/test', admin)).body).toMatchObject({ ok: true });
    expect((await call('GET', '/v1/documents', member)).status).toBe(200);
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [VLM_KEY, JUDGE_KEY]) {
      expect(bodies.some((b) => b.includes(secret))).toBe(false);
      expect(logs.some((l) => l.includes(secret))).toBe(false);
    }
  });
});
