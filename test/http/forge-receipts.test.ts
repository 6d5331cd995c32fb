// The deterministic forge and drafts on real till receipts (SROIE transcripts uploaded as text
// through the API): the total is labelled by its own line, not by the payment line that prints
// the same amount; a label read from the text before a value is a few words, not a run of text.
// Uploaded as text, a receipt keeps its lines in the canonical text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPaymentLabel } from '../../src/pipeline/extract/receipt-total.js';
import { upload, waitFor, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { receiptKey, receiptText } from '../pipeline/sroie.js';

// Receipts paid exactly in cash: "CASH" prints the same amount as the total.
const PAID_EXACTLY = ['006', '114', '120', '138'];

let h: Harness;
let member: string;

async function process(id: string, token = member) {
  const res = await upload(h, token, receiptText(id), { processing_mode: 'canonical' });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const job = await waitForJob(h, token, res.body.job_id);
  expect(job.status).toBe('completed');
  return job.job_id as string;
}

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  await h.seedTenant('receipts');
  member = (await h.seedUser('receipts', 'member')).token!;
});

afterAll(async () => {
  await h?.close();
});

describe('forge on receipts', () => {
  it('labels the total by the total line, not by the CASH line that prints the same amount', async () => {
    const jobs = new Map<string, string>();
    for (const id of PAID_EXACTLY) jobs.set(id, await process(id));
    const expected_outputs = Object.fromEntries(PAID_EXACTLY.map((id) => [jobs.get(id)!, { total: receiptKey(id).total, date: receiptKey(id).date, address: receiptKey(id).address }]));
    const res = await h.request('POST', '/v1/templates/forge/jobs', { token: member, body: { sample_job_ids: [...jobs.values()], expected_outputs, endpoint_id: null } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await waitFor('forge job settled', async () => {
      const job = await h.request('GET', `/v1/templates/forge/jobs/${res.body.id}`, { token: member });
      return ['succeeded', 'failed'].includes(job.body.status) ? job.body : undefined;
    }, 60_000);
    expect(done.status, done.failure_message).toBe('succeeded');
    const iterations = (await h.request('GET', `/v1/templates/forge/jobs/${res.body.id}/iterations`, { token: member })).body.items;
    const first = iterations.find((i: { number: number }) => i.number === 1);
    const label: string = first.candidate.json_schema.properties.total['x-aliases'][0];
    expect(first.notes).toContain(`total ← "${label}"`);
    // The CASH line prints the same amount on every one of these receipts: the total line labels it.
    expect(isPaymentLabel(label), `total ← "${label}"`).toBe(false);
    expect(label).toMatch(/^total\b/i);
    // Text found before a value on a line labels it only when it is a few words after the last
    // figure: the run of a receipt's header before its address is no label.
    for (const field of ['date', 'address']) {
      const aliases: string[] = first.candidate.json_schema.properties[field]['x-aliases'] ?? [];
      for (const alias of aliases) expect(alias.split(' ').length, `${field} ← ${alias}`).toBeLessThanOrEqual(6);
    }
  });
});

// Receipts no other test uses, their key fields under names no extractor concept knows: the type
// comes from the expected values alone, written as the receipts print them.
const TYPED = ['180', '198', '204', '210', '222'];

describe('forge field types from expected values', () => {
  it('types amounts and dates written as text as number and date, and the template extracts them so', async () => {
    const jobs = new Map<string, string>();
    for (const id of TYPED) jobs.set(id, await process(id));
    const expected_outputs = Object.fromEntries(TYPED.map((id) => {
      const key = receiptKey(id);
      return [jobs.get(id)!, { seller: key.company, issued_on: key.date, amount_paid: key.total }];
    }));
    for (const id of TYPED) expect(typeof receiptKey(id).total).toBe('string');
    const res = await h.request('POST', '/v1/templates/forge/jobs', { token: member, body: { sample_job_ids: [...jobs.values()], expected_outputs, endpoint_id: null } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await waitFor('forge job settled', async () => {
      const job = await h.request('GET', `/v1/templates/forge/jobs/${res.body.id}`, { token: member });
      return ['succeeded', 'failed'].includes(job.body.status) ? job.body : undefined;
    }, 60_000);
    expect(done.status, done.failure_message).toBe('succeeded');
    const iterations = (await h.request('GET', `/v1/templates/forge/jobs/${res.body.id}/iterations`, { token: member })).body.items;
    for (const it of iterations) {
      const props = it.candidate.json_schema.properties;
      expect(props.amount_paid.type, `iteration ${it.number}`).toBe('number');
      expect(props.issued_on, `iteration ${it.number}`).toMatchObject({ type: 'string', format: 'date' });
      expect(props.seller.type, `iteration ${it.number}`).toBe('string');
    }
    // Extracted as a number, the amount agrees with the printed one on every sample ("45.00" is 45);
    // as text it picked up the words around it ("GST@6% RM 45.00", "PAYABLE").
    const best = iterations.find((i: { id: string }) => i.id === done.best_iteration_id);
    expect(best.notes).not.toMatch(/amount_paid on|issued_on on/);
    const admin = (await h.seedUser('receipts', 'admin')).token!;
    const template = await h.request('POST', `/v1/templates/forge/jobs/${res.body.id}/promote`, { token: admin, body: { name: 'typed-receipts' } });
    expect(template.status, JSON.stringify(template.body)).toBe(200);
    // The promoted template normalises them: 45 and an ISO date, not the printed text.
    const again = await upload(h, member, receiptText('198'), { template_id: template.body.id });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    const data = (await waitForJob(h, member, again.body.job_id)).result.extraction.data;
    expect(data.amount_paid).toBe(Number(receiptKey('198').total));
    expect(data.issued_on).toBe('2018-03-12');
    expect(receiptKey('198').date).toBe('12-03-18');
  });
});

describe('payment labels', () => {
  it('names the amount tendered and the change, with a currency or a masked card number beside them', () => {
    for (const label of ['CASH', 'Cash', 'CHANGE', 'VISA', 'MASTER XXXXXXXXXXXX0000', 'Cash tendered RM', 'TUNAI', 'Change due:']) expect(isPaymentLabel(label), label).toBe(true);
    for (const label of ['TOTAL', 'TOTAL SALES (INCLUSIVE OF GST)', 'Amount due', 'CASH SALES', 'Total paid by card', 'CASHIER']) expect(isPaymentLabel(label), label).toBe(false);
  });
});

describe('a receipt uploaded as text', () => {
  it('keeps its lines in the canonical text: the shop, its address and the total are not one paragraph', async () => {
    const job = await waitForJob(h, member, await process('000'));
    const lines: string[] = job.result.canonical.text.split('\n');
    for (const line of ['TAN WOON YANN', 'TAMAN DAYA,', 'TOTAL: 9.00']) expect(lines, line).toContain(line);
    expect(lines).toContain('GOODS SOLD ARE NOT RETURNABLE OR EXCHANGEABLE');
  });
});
