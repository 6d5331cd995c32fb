// A template's JSON schema holds every value to its constraints (`pattern`, `format`, `maximum`,
// `maxLength`, `enum` …), through the real server: the embedded extractor's values that break
// them send the job to review with a reason naming field and constraint, and a reviewer's
// override that breaks them is 422 under body.patch, nothing changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, upload, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const TENANT = 'schemacheck-acme';
const INVOICE_TEXT = ['ACME Supplies GmbH', 'Invoice number: INV-2024-001', 'Invoice date: 05.03.2024', 'Contact: billing@acme-supplies.example', 'Subtotal: EUR 100.00', 'VAT: EUR 19.00', 'Total: EUR 119.00'].join('\n');
const invoice = { name: 'invoice.txt', bytes: Buffer.from(INVOICE_TEXT) };

/** The invoice's values fit every constraint here but two: total is above 100, invoice_number longer than 8 characters. */
const SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string', maxLength: 8 },
    total: { type: 'number', maximum: 100 },
    subtotal: { type: 'number', minimum: 0 },
    contact: { type: 'string', format: 'email' },
    reference: { type: 'string', pattern: '^REF-\\d+$' },
  },
};

let h: Harness;
let admin: string;
let member: string;

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  await h.seedTenant(TENANT);
  admin = (await h.seedUser(TENANT, 'admin')).token!;
  member = (await h.seedUser(TENANT, 'member')).token!;
});
afterAll(() => h.close());

async function template(name: string, json_schema: Record<string, unknown> = SCHEMA): Promise<string> {
  const res = await h.request('POST', '/v1/templates', { token: admin, body: { name, json_schema, review_thresholds: { confidence_floor: 0 } } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const BREACHES = [
  { rule: 'length:invoice_number', field: 'invoice_number', severity: 'error', message: 'invoice_number is "INV-2024-001"; the template\'s schema says it must NOT have more than 8 characters.' },
  { rule: 'range:total', field: 'total', severity: 'error', message: 'total is 119; the template\'s schema says it must be <= 100.' },
];

describe('embedded extraction against the schema\'s value constraints', () => {
  it('keeps a value that breaks its constraint but flags it: a validation entry and a review reason naming field and constraint', async () => {
    const id = await template('schemacheck-limits');
    const test = await postForm(h, `/v1/templates/${id}/test`, member, [{ field: 'file', file: invoice }]);
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(test.body.extraction.data).toMatchObject({ invoice_number: 'INV-2024-001', total: 119, subtotal: 100, contact: 'billing@acme-supplies.example' });
    expect(test.body.extraction.validation).toEqual(BREACHES);
    expect(test.body.status).toBe('needs_review');
    expect(test.body.review_reasons).toEqual(['validation:length:invoice_number', 'validation:range:total']);

    const res = await upload(h, member, invoice, { template_id: id });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const job = await waitForJob(h, member, res.body.job_id);
    expect(job.status).toBe('needs_review');
    expect(job.result.extraction.data).toMatchObject({ invoice_number: 'INV-2024-001', total: 119 });
    expect(job.result.extraction.validation).toEqual(BREACHES);
    const reviews = await h.request('GET', `/v1/reviews?job_id=${job.job_id}`, { token: member });
    expect(reviews.body.items.map((r: { reasons: string[] }) => r.reasons)).toEqual([['validation:length:invoice_number', 'validation:range:total']]);
  });

  it('a document whose values fit every constraint completes', async () => {
    const id = await template('schemacheck-fits', { ...SCHEMA, properties: { ...SCHEMA.properties, invoice_number: { type: 'string', pattern: '^INV-[0-9-]+$' }, total: { type: 'number', maximum: 1000 } } });
    const test = await postForm(h, `/v1/templates/${id}/test`, member, [{ field: 'file', file: invoice }]);
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(test.body.extraction.data).toMatchObject({ invoice_number: 'INV-2024-001', total: 119 });
    expect(test.body.extraction.validation).toEqual([]);
    expect(test.body.status).toBe('completed');
  });
});

describe('a reviewer\'s override against the schema\'s value constraints', () => {
  it('is 422 under body.patch.<field> for a bad email, pattern, maximum or length, and changes nothing', async () => {
    const id = await template('schemacheck-override');
    const res = await upload(h, member, invoice, { template_id: id });
    const job = await waitForJob(h, member, res.body.job_id);
    expect(job.status).toBe('needs_review');
    const review = (await h.request('GET', `/v1/reviews?job_id=${job.job_id}`, { token: member })).body.items[0];
    for (const [patch, loc, type, msg] of [
      [{ contact: 'billing at acme' }, ['body', 'patch', 'contact'], 'format', 'Input should be a valid email'],
      [{ reference: 'R-17' }, ['body', 'patch', 'reference'], 'string_pattern_mismatch', "String should match pattern '^REF-\\d+$'"],
      [{ total: 119.5 }, ['body', 'patch', 'total'], 'less_than_equal', 'Input should be less than or equal to 100'],
      [{ subtotal: -1 }, ['body', 'patch', 'subtotal'], 'greater_than_equal', 'Input should be greater than or equal to 0'],
      [{ invoice_number: 'INV-2024-001' }, ['body', 'patch', 'invoice_number'], 'string_too_long', 'String should have at most 8 characters'],
    ] as const) {
      const bad = await h.request('POST', `/v1/reviews/${review.review_id}/override`, { token: member, body: { patch } });
      expect(bad.status, JSON.stringify(patch)).toBe(422);
      expect(bad.body.detail).toEqual([expect.objectContaining({ loc, type, msg, input: Object.values(patch)[0] })]);
    }
    const still = (await h.request('GET', `/v1/documents/${job.job_id}`, { token: member })).body;
    expect(still.status).toBe('needs_review');
    expect(still.result.extraction.data).toEqual(job.result.extraction.data);

    const good = await h.request('POST', `/v1/reviews/${review.review_id}/override`, {
      token: member,
      body: { patch: { invoice_number: 'INV-1', total: 99, contact: 'ap@acme.example', reference: 'REF-17' } },
    });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body.job.result.extraction.data).toMatchObject({ invoice_number: 'INV-1', total: 99, contact: 'ap@acme.example', reference: 'REF-17' });
  });
});
