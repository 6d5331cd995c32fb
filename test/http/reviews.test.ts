// Extraction in job processing and the review loop, end to end: real invoice PDFs processed by
// in-process workers, templates whose rules or thresholds force a review, every /v1/reviews
// operation through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, upload, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

const AZURE = data('invoice2data/compare/AzureInterior.pdf');

let h: Harness;
let member: string;
let admin: string;
/** Needs review on every run: a `required` rule on a field the invoice does not have. */
let strict: string;

const SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    total: { type: 'number', 'x-aliases': ['amount', 'total amount'] },
    po_number: { type: 'string', description: 'purchase order number' },
  },
};

async function template(name: string, extra: Record<string, unknown> = {}): Promise<{ id: string; version: number }> {
  const res = await h.request('POST', '/v1/templates', { token: admin, body: { name, json_schema: SCHEMA, ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, version: res.body.version };
}

async function process(fields: Record<string, string>, file: string = AZURE, token = member) {
  const res = await upload(h, token, file, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return waitForJob(h, token, res.body.job_id);
}

async function reviewOf(jobId: string, token = member) {
  const res = await h.request('GET', `/v1/reviews?job_id=${jobId}`, { token });
  expect(res.status).toBe(200);
  return res.body.items as any[];
}

/** A job that settled needs_review, and its (one, pending) review. */
async function reviewed() {
  const job = await process({ template_id: strict });
  expect(job.status, JSON.stringify(job.result?.extraction?.validation)).toBe('needs_review');
  const items = await reviewOf(job.job_id);
  expect(items).toHaveLength(1);
  return { job, review: items[0] };
}

const SUMMARY_KEYS = ['batch_id', 'created_at', 'job_id', 'job_status', 'original_filename', 'reasons', 'resolution', 'resolution_note', 'resolved_at', 'resolved_by', 'review_id', 'status', 'updated_at'];

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = await h.adminToken();
  strict = (
    await template('strict', {
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error', message: 'The purchase order number is missing.' }],
    })
  ).id;
});
afterAll(() => h.close());

describe('extraction in job processing', () => {
  it('extraction mode with a template completes with result.extraction and records the template version', async () => {
    const { id } = await template('lenient', { review_thresholds: { confidence_floor: 0 } });
    // A second version: the job records the one it ran with.
    const put = await h.request('PUT', `/v1/templates/${id}`, { token: admin, body: { name: 'lenient', json_schema: SCHEMA, review_thresholds: { confidence_floor: 0 } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const job = await process({ template_id: id });
    expect(job).toMatchObject({ status: 'completed', processing_mode: 'extraction', template_id: id, template_version: 2, classification: null });
    const x = job.result.extraction;
    expect(x).toMatchObject({ template_id: id, template_version: 2, validation: [], review_reasons: [] });
    expect(Object.keys(x.fields).sort()).toEqual(['invoice_number', 'po_number', 'total']);
    expect(x.data.invoice_number).toBe('INV/2023/03/0008');
    for (const f of Object.values(x.fields) as any[]) {
      expect(f.confidence).toBeGreaterThanOrEqual(0);
      expect(f.confidence).toBeLessThanOrEqual(1);
      expect(Array.isArray(f.evidence)).toBe(true);
    }
    expect(x.fields.invoice_number.evidence[0]).toMatchObject({ page: 1 });
    expect(Array.isArray(job.result.entities)).toBe(true);
    expect(job.result.engine.stages).toEqual(expect.arrayContaining(['entities', 'extraction']));
    expect(job.result.engine).not.toHaveProperty('unavailable');
    expect(job.result.engine.extraction).toEqual({ method: 'embedded', backend: null, model: null, calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(await reviewOf(job.job_id)).toEqual([]);
  });

  it('entities mode stores the recognised entities (and no extraction)', async () => {
    const job = await process({ processing_mode: 'entities' });
    expect(job.status).toBe('completed');
    expect(job.result).not.toHaveProperty('extraction');
    const types = new Set(job.result.entities.map((e: { type: string }) => e.type));
    expect(job.result.entities.length).toBeGreaterThan(3);
    expect(types.has('email') || types.has('date') || types.has('money')).toBe(true);
    expect(job.result.entities[0]).toEqual(expect.objectContaining({ type: expect.any(String), page: 1 }));
  });

  it('a confidence floor of 0.99 sends a job to review with low_confidence reasons', async () => {
    const { id } = await template('picky', { review_thresholds: { confidence_floor: 0.99 } });
    const job = await process({ template_id: id });
    expect(job.status).toBe('needs_review');
    const [review] = await reviewOf(job.job_id);
    expect(review.reasons.some((r: string) => r.startsWith('low_confidence:'))).toBe(true);
  });
});

describe('reviews', () => {
  it('a needs_review job opens exactly one pending review with its reasons; detail moves it to in_review', async () => {
    const { job, review } = await reviewed();
    expect(Object.keys(review).sort()).toEqual(SUMMARY_KEYS);
    expect(review).toMatchObject({ job_id: job.job_id, job_status: 'needs_review', status: 'pending', batch_id: null, original_filename: 'AzureInterior.pdf', resolved_at: null, resolution: null });
    expect(review.review_id).toMatch(/^rev_/);
    expect(review.reasons).toContain('validation:required:po_number');
    expect(job.result.extraction.review_reasons).toEqual(review.reasons);

    const pending = await h.request('GET', `/v1/reviews?status=pending&job_id=${job.job_id}`, { token: member });
    expect(pending.body.items).toHaveLength(1);
    const detail = await h.request('GET', `/v1/reviews/${review.review_id}`, { token: member });
    expect(detail.status).toBe(200);
    expect(detail.body.review).toMatchObject({ review_id: review.review_id, status: 'in_review' });
    expect(detail.body.job).toMatchObject({ job_id: job.job_id, status: 'needs_review' });
    expect(detail.body.job.result.extraction).toBeTruthy();
    expect((await h.request('GET', `/v1/reviews?status=in_review&job_id=${job.job_id}`, { token: member })).body.items).toHaveLength(1);
    expect((await h.request('GET', `/v1/reviews?status=pending&job_id=${job.job_id}`, { token: member })).body.items).toHaveLength(0);
  });

  it('lists with a cursor', async () => {
    await reviewed();
    const first = await h.request('GET', '/v1/reviews?limit=1', { token: member });
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await h.request('GET', `/v1/reviews?limit=1&cursor=${first.body.next_cursor}`, { token: member });
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].review_id).not.toBe(first.body.items[0].review_id);
  });

  it('approve completes the job and fills the resolution; a second action is 409', async () => {
    const { job, review } = await reviewed();
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { token: member, body: { note: 'looks right' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.review).toMatchObject({ status: 'approved', job_status: 'completed', resolution: 'approved', resolution_note: 'looks right', batch_id: null });
    expect(res.body.review.resolved_at).toEqual(expect.any(String));
    expect(res.body.review.resolved_by).toEqual(expect.any(String));
    expect(res.body.job).toMatchObject({ job_id: job.job_id, status: 'completed' });
    expect((await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body.status).toBe('completed');
    for (const action of ['approve', 'override', 'reprocess']) {
      const again = await h.request('POST', `/v1/reviews/${review.review_id}/${action}`, { token: member, body: action === 'override' ? { patch: {} } : {} });
      expect(again.status, action).toBe(409);
    }
  });

  it('approve without a body', async () => {
    const { review } = await reviewed();
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { token: member });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.review).toMatchObject({ status: 'approved', resolution_note: null });
  });

  it('override merge-patches extraction.data, validates again, keeps the edits in the history and completes the job', async () => {
    const { job, review } = await reviewed();
    const before = job.result.extraction.data;
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, {
      token: member,
      body: { patch: { po_number: 'PO-4711', invoice_number: null }, note: 'from the email' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.review).toMatchObject({ status: 'overridden', job_status: 'completed', resolution: 'overridden', resolution_note: 'from the email' });
    const x = res.body.job.result.extraction;
    expect(x.data.po_number).toBe('PO-4711');
    expect(x.data).not.toHaveProperty('invoice_number');
    expect(x.data.total).toEqual(before.total);
    expect(x.validation).toEqual([]);
    expect(x.review_reasons).toEqual([]);
    expect(x.fields.po_number).toMatchObject({ value: 'PO-4711', confidence: 1 });
    const history = res.body.job.result.review_history;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ review_id: review.review_id, action: 'override', patch: { po_number: 'PO-4711', invoice_number: null }, before, note: 'from the email' });
    expect(res.body.job.status).toBe('completed');
  });

  it("the review history outlives the job's later runs: each approve, override and reprocess is appended", async () => {
    const { job, review: first } = await reviewed();
    const overridden = await h.request('POST', `/v1/reviews/${first.review_id}/override`, { token: member, body: { patch: { po_number: 'PO-1' }, note: 'typed in' } });
    expect(overridden.status).toBe(200);
    expect(overridden.body.job.review_history).toEqual([expect.objectContaining({ review_id: first.review_id, action: 'override', note: 'typed in', patch: { po_number: 'PO-1' } })]);

    // Run again: the new run replaces the result, not the history.
    expect((await h.request('POST', `/v1/documents/${job.job_id}/reprocess`, { token: member, body: {} })).status).toBe(200);
    const queued = (await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body;
    expect(queued.review_history).toEqual(overridden.body.job.review_history);
    const rerun = await waitForJob(h, member, job.job_id);
    expect(rerun.status).toBe('needs_review');
    expect(rerun.result.extraction.data.po_number).toBeUndefined();
    expect(rerun.review_history).toEqual(overridden.body.job.review_history);
    expect(rerun.result.review_history).toEqual(overridden.body.job.review_history);

    const second = (await reviewOf(job.job_id)).find((r) => r.status === 'pending')!;
    const approved = await h.request('POST', `/v1/reviews/${second.review_id}/approve`, { token: member, body: { note: 'fine as read' } });
    expect(approved.status).toBe(200);
    expect(approved.body.job.review_history.map((e: { action: string }) => e.action)).toEqual(['override', 'approve']);
    expect(approved.body.job.review_history[1]).toEqual({ review_id: second.review_id, action: 'approve', by: expect.stringMatching(/^usr_/), at: expect.any(String), note: 'fine as read' });

    expect((await h.request('POST', `/v1/documents/${job.job_id}/retry`, { token: member })).status).toBe(409);
    expect((await h.request('POST', `/v1/documents/${job.job_id}/reextract`, { token: member, body: {} })).status).toBe(200);
    expect((await waitForJob(h, member, job.job_id)).status).toBe('needs_review');
    const third = (await reviewOf(job.job_id)).find((r) => r.status === 'pending')!;
    const again = await h.request('POST', `/v1/reviews/${third.review_id}/reprocess`, { token: member, body: {} });
    expect(again.status).toBe(200);
    const last = await waitForJob(h, member, job.job_id);
    expect(last.review_history.map((e: { action: string; review_id: string }) => [e.action, e.review_id])).toEqual([
      ['override', first.review_id],
      ['approve', second.review_id],
      ['reprocess', third.review_id],
    ]);
    expect(last.review_history[2]).toMatchObject({ template_id: null, note: null });
  });

  it('override refuses values that do not fit the template (422 under body.patch) and leaves the review open', async () => {
    const { job, review } = await reviewed();
    for (const [patch, loc, type] of [
      [{ total: 'not a number' }, ['body', 'patch', 'total'], 'float_type'],
      [{ totl: 12 }, ['body', 'patch', 'totl'], 'extra_forbidden'],
      [{ 'lines[0]': { qty: 1 } }, ['body', 'patch', 'lines[0]'], 'extra_forbidden'],
      [{ invoice_number: 4711 }, ['body', 'patch', 'invoice_number'], 'string_type'],
    ] as const) {
      const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch } });
      expect(res.status, JSON.stringify(patch)).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc, type })]);
    }
    const still = (await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body;
    expect(still.status).toBe('needs_review');
    expect(still.result.extraction.data).toEqual(job.result.extraction.data);
    expect((await h.request('GET', `/v1/reviews/${review.review_id}`, { token: member })).body.review).toMatchObject({ resolved_at: null });
  });

  it('override holds a date field to a real day written YYYY-MM-DD, as extraction writes dates', async () => {
    const { id } = await template('dated', {
      json_schema: { type: 'object', properties: { invoice_date: { type: 'string', format: 'date' }, po_number: { type: 'string' } } },
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error' }],
    });
    const job = await process({ template_id: id });
    expect(job.status).toBe('needs_review');
    const [review] = await reviewOf(job.job_id);
    for (const date of ['next Tuesday', '03/04/2026', '2026-02-30']) {
      const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch: { invoice_date: date, po_number: 'PO-1' } } });
      expect(res.status, date).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'patch', 'invoice_date'], type: 'date_parsing', input: date })]);
    }
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch: { invoice_date: '2024-02-29', po_number: 'PO-1' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.job.result.extraction.data.invoice_date).toBe('2024-02-29');
  });

  it('override of line items: rows replaced whole, each checked against the columns; removed rows lose their field entries', async () => {
    const { id } = await template('with-lines', {
      json_schema: { type: 'object', properties: { total: { type: 'number' }, po_number: { type: 'string' }, lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } } } },
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error' }],
    });
    const job = await process({ template_id: id });
    expect(job.status).toBe('needs_review');
    const lines = job.result.extraction.data.lines as { description: string; amount: number }[];
    expect(lines.length).toBeGreaterThan(1);
    const [review] = await reviewOf(job.job_id);
    const bad = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch: { lines: [{ ...lines[0], amount: '1278,61' }] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'patch', 'lines', 0, 'amount'], type: 'float_type' })]);
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch: { po_number: 'PO-1', lines: [{ ...lines[0], amount: 1278.61 }] } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const x = res.body.job.result.extraction;
    expect(x.data.lines).toEqual([{ ...lines[0], amount: 1278.61 }]);
    expect(x.fields['lines[0].amount']).toMatchObject({ value: 1278.61, confidence: 1, evidence: [], edited_by_reviewer: true });
    expect(x.fields['lines[0].description']).toEqual(job.result.extraction.fields['lines[0].description']);
    expect(Object.keys(x.fields).filter((k) => k.startsWith('lines[1]'))).toEqual([]);
  });

  it('override removing a row: the rows after it move up with their own entries (value, confidence, evidence), not as edits', async () => {
    const { id } = await template('remove-a-row', {
      json_schema: { type: 'object', properties: { po_number: { type: 'string' }, lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } } } },
      validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error' }],
    });
    // Two pages of line items: rows on page 1, and a last one on page 2.
    const job = await process({ template_id: id }, data('invoice2data/compare/QualityHosting.pdf'));
    expect(job.status).toBe('needs_review');
    const lines = job.result.extraction.data.lines as unknown[];
    const fields = job.result.extraction.fields as Record<string, { evidence: unknown[] }>;
    expect(lines.length).toBeGreaterThan(3);
    expect(fields['lines[2].amount']!.evidence.length).toBeGreaterThan(0);
    const [review] = await reviewOf(job.job_id);
    // The reviewer removes the first row and corrects the amount of the (old) third one.
    const kept = lines.slice(1).map((row, i) => (i === 1 ? { ...(row as object), amount: 99.5 } : row));
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch: { po_number: 'PO-1', lines: kept } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = res.body.job.result.extraction.fields as Record<string, unknown>;
    for (let i = 0; i < kept.length; i++) {
      if (i === 1) continue;
      expect(after[`lines[${i}].amount`], `lines[${i}]`).toEqual(fields[`lines[${i + 1}].amount`]);
      expect(after[`lines[${i}].description`], `lines[${i}]`).toEqual(fields[`lines[${i + 1}].description`]);
    }
    // The corrected row: its amount is the reviewer's, its unchanged description keeps its evidence.
    expect(after['lines[1].amount']).toMatchObject({ value: 99.5, confidence: 1, evidence: [], edited_by_reviewer: true });
    expect(after['lines[1].description']).toEqual(fields['lines[2].description']);
    expect(Object.keys(after).filter((k) => k.startsWith(`lines[${kept.length}]`))).toEqual([]);
  });

  it('override that still breaks a rule records the failing validation', async () => {
    const { review } = await reviewed();
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch: { total: 1 } } });
    expect(res.status).toBe(200);
    expect(res.body.job.result.extraction.validation).toEqual([expect.objectContaining({ rule: 'required:po_number', severity: 'error' })]);
  });

  it('reprocess re-enqueues the job; its next run opens a new review', async () => {
    const { job, review } = await reviewed();
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/reprocess`, { token: member, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.review).toMatchObject({ status: 'reprocessed', resolution: 'reprocessed' });
    expect(res.body.review.resolved_at).toEqual(expect.any(String));
    expect(['queued', 'processing', 'needs_review']).toContain(res.body.job.status);
    await waitForJob(h, member, job.job_id);
    const items = await waitFor('a second review', async () => {
      const list = await reviewOf(job.job_id);
      return list.length === 2 ? list : undefined;
    });
    expect(items.map((r) => r.status).sort()).toEqual(['pending', 'reprocessed']);
  });

  it('reprocess with another template; an unknown template is 404', async () => {
    const { job, review } = await reviewed();
    expect((await h.request('POST', `/v1/reviews/${review.review_id}/reprocess`, { token: member, body: { template_id: 'tpl_nope' } })).status).toBe(404);
    const { id } = await template('swap', { review_thresholds: { confidence_floor: 0 } });
    const res = await h.request('POST', `/v1/reviews/${review.review_id}/reprocess`, { token: member, body: { template_id: id } });
    expect(res.status).toBe(200);
    const done = await waitForJob(h, member, job.job_id);
    expect(done).toMatchObject({ status: 'completed', template_id: id, template_version: 1 });
  });

  it('reprocessing the job from the documents API closes its open review; the new run needs none', async () => {
    const { job, review } = await reviewed();
    expect((await h.request('GET', `/v1/reviews/${review.review_id}`, { token: member })).body.review.status).toBe('in_review');
    const res = await h.request('POST', `/v1/documents/${job.job_id}/reprocess`, { token: member, body: { processing_mode: 'canonical', clear_template: true } });
    expect(res.status).toBe(200);
    const closed = (await h.request('GET', `/v1/reviews/${review.review_id}`, { token: member })).body.review;
    expect(closed).toMatchObject({ status: 'reprocessed', resolution: 'superseded' });
    expect((await waitForJob(h, member, job.job_id)).status).toBe('completed');
    expect((await reviewOf(job.job_id)).filter((r) => r.status === 'pending' || r.status === 'in_review')).toEqual([]);
  });

  it("a full run that fails drops the run before's outputs, so nothing extracts from them", async () => {
    const { job } = await reviewed();
    const kinds = async () => (await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body.artifacts.map((a: { kind: string }) => a.kind).sort();
    expect(await kinds()).toEqual(expect.arrayContaining(['canonical_json', 'markdown', 'source']));
    // Page 17 of a one-page invoice: the run fails.
    expect((await h.request('POST', `/v1/documents/${job.job_id}/reprocess`, { token: member, body: { page_range: '17' } })).status).toBe(200);
    const failed = await waitForJob(h, member, job.job_id);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'invalid_page_range', result: null });
    expect(await kinds()).toEqual(['source']);
    const again = await h.request('POST', `/v1/documents/${job.job_id}/reextract`, { token: member, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('no_canonical_output');
  });

  it('a kept template deleted since is refused when reextract, reprocess or a review reprocess is asked, and the result stays', async () => {
    const { id } = await template('short-lived', { review_thresholds: { confidence_floor: 0 } });
    const done = await process({ template_id: id });
    expect(done.status).toBe('completed');
    const { job, review } = await reviewed();
    // The reviewed job's template (strict) stays; a job on the deleted one is refused three ways.
    expect((await h.request('DELETE', `/v1/templates/${id}`, { token: admin })).status).toBe(204);
    const kinds = async (jobId: string) => (await h.request('GET', `/v1/documents/${jobId}`, { token: member })).body.artifacts.map((a: { kind: string }) => a.kind).sort();
    const before = await kinds(done.job_id);
    for (const [path, body] of [['reextract', {}], ['reprocess', {}], ['reprocess', { processing_mode: 'extraction' }]] as const) {
      const res = await h.request('POST', `/v1/documents/${done.job_id}/${path}`, { token: member, body });
      expect(res.status, path).toBe(409);
      expect(res.body).toMatchObject({ code: 'template_deleted' });
      expect(res.body.detail).toContain(id);
    }
    const kept = (await h.request('GET', `/v1/documents/${done.job_id}`, { token: member })).body;
    expect(kept).toMatchObject({ status: 'completed', template_id: id });
    expect(kept.result.extraction.template_id).toBe(id);
    expect(await kinds(done.job_id)).toEqual(before);
    // Another template, or none, is still taken.
    expect((await h.request('POST', `/v1/documents/${done.job_id}/reextract`, { token: member, body: { template_id: strict } })).status).toBe(200);
    expect((await waitForJob(h, member, done.job_id)).template_id).toBe(strict);
    expect((await h.request('POST', `/v1/documents/${done.job_id}/reprocess`, { token: member, body: { processing_mode: 'canonical', clear_template: true } })).status).toBe(200);
    await waitForJob(h, member, done.job_id);

    // A review's reprocess keeps its job's template: refused the same way once that is deleted.
    const own = await template('reviewed-then-deleted', { validation_rules: [{ kind: 'required', field: 'po_number', severity: 'error' }] });
    const swapped = await h.request('POST', `/v1/reviews/${review.review_id}/reprocess`, { token: member, body: { template_id: own.id } });
    expect(swapped.status).toBe(200);
    const again = (await reviewOf((await waitForJob(h, member, job.job_id)).job_id)).find((r) => r.status === 'pending')!;
    expect((await h.request('DELETE', `/v1/templates/${own.id}`, { token: admin })).status).toBe(204);
    const refused = await h.request('POST', `/v1/reviews/${again.review_id}/reprocess`, { token: member, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('template_deleted');
    expect((await h.request('GET', `/v1/reviews/${again.review_id}`, { token: member })).body.review).toMatchObject({ resolved_at: null, resolution: null });
  });

  it('deleting the job closes its open review as closed_by_delete', async () => {
    const { job, review } = await reviewed();
    expect((await h.request('DELETE', `/v1/documents/${job.job_id}`, { token: member })).status).toBe(204);
    const res = await h.request('GET', `/v1/reviews/${review.review_id}`, { token: member });
    expect(res.body.review).toMatchObject({ status: 'closed_by_delete', resolution: 'closed_by_delete' });
    expect(res.body.review.resolved_at).toEqual(expect.any(String));
    expect((await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { token: member, body: {} })).status).toBe(409);

    // Restored, the job waits for review again: a new pending review with the same reasons.
    expect((await h.request('POST', `/v1/documents/${job.job_id}/restore`, { token: member })).status).toBe(200);
    const reviews = await reviewOf(job.job_id);
    const reopened = reviews.find((r) => r.status === 'pending');
    expect(reopened).toMatchObject({ job_id: job.job_id, reasons: review.reasons });
    expect(reopened!.review_id).not.toBe(review.review_id);
    expect((await h.request('POST', `/v1/reviews/${reopened!.review_id}/approve`, { token: member, body: {} })).status).toBe(200);
    expect((await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body.status).toBe('completed');
  });

  it('401 without credentials, 404 for an unknown or another tenant\'s review, 422 for an override without a patch', async () => {
    const { review } = await reviewed();
    expect((await h.request('GET', '/v1/reviews')).status).toBe(401);
    expect((await h.request('GET', `/v1/reviews/${review.review_id}`)).status).toBe(401);
    expect((await h.request('POST', `/v1/reviews/${review.review_id}/approve`, { body: {} })).status).toBe(401);
    expect((await h.request('GET', '/v1/reviews/rev_nope', { token: member })).status).toBe(404);
    await h.seedTenant('other');
    const outsider = (await h.seedUser('other', 'admin')).token!;
    expect((await h.request('GET', `/v1/reviews/${review.review_id}`, { token: outsider })).status).toBe(404);
    for (const action of ['approve', 'reprocess']) {
      expect((await h.request('POST', `/v1/reviews/${review.review_id}/${action}`, { token: outsider, body: {} })).status).toBe(404);
    }
    expect((await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: outsider, body: { patch: {} } })).status).toBe(404);
    expect((await h.request('GET', '/v1/reviews', { token: outsider })).body.items).toEqual([]);
    expect((await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: {} })).status).toBe(422);
    // Untouched by all of that.
    expect((await h.request('GET', `/v1/reviews?job_id=${review.job_id}`, { token: member })).body.items[0].status).toBe('pending');
  });
});
