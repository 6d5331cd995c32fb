// A filled PDF form uploaded through the API: the worker reads the values typed into its fields,
// so the canonical text, the entities and a template's extraction carry them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload, waitForJob } from '../helpers/documents.js';
import { FORM_VALUES, filledForm } from '../helpers/filled-form.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

describe('filled PDF forms', () => {
  it('extracts template fields and entities from the values in the form fields', async () => {
    const template = await h.request('POST', '/v1/templates', {
      token: await h.adminToken(),
      body: {
        name: 'purchase-request',
        json_schema: {
          type: 'object',
          properties: { employee_name: { type: 'string' }, invoice_number: { type: 'string' }, total: { type: 'number' }, payment_method: { type: 'string' } },
        },
      },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const res = await upload(h, member, { name: 'purchase-request.pdf', bytes: await filledForm() }, { template_id: template.body.id });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const job = await waitForJob(h, member, res.body.job_id);
    expect(['completed', 'needs_review']).toContain(job.status);
    expect(job.result.canonical.text).toContain(`Employee name: ${FORM_VALUES.name}`);
    expect(job.result.canonical.text).toContain('☒ Express delivery');
    expect(job.result.canonical.text).not.toContain(FORM_VALUES.password);
    expect(job.result.extraction.data).toMatchObject({ employee_name: FORM_VALUES.name, invoice_number: FORM_VALUES.invoice, total: 1250, payment_method: FORM_VALUES.payment });
    expect(job.result.entities).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'invoice_number', text: FORM_VALUES.invoice })]));
  });
});
