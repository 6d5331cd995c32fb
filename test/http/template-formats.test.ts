// JSON Schema `format`s in a template, through the API: every format of JSON Schema 2020-12 is
// checked on what a model answers (a value that breaks its format is dropped and goes to a
// person), long crafted values are checked in linear time, and a format no check exists for is
// refused when the template is saved. The model is an OpenAI-compatible loopback server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type Answer, type LoopbackServer, type Seen, startLoopback } from '../helpers/loopback-server.js';
import { extractionCompletion } from '../helpers/chat-completion.js';

const TENANT = 'formats-acme';

/** A field for each format ajv-formats has no check for. */
const SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    website: { type: 'string', format: 'iri' },
    terms_link: { type: 'string', format: 'iri-reference' },
    mail_host: { type: 'string', format: 'idn-hostname' },
    contact: { type: 'string', format: 'idn-email' },
  },
};

const DOCUMENT = [
  'Bücherstube Müller GmbH',
  'Invoice number: INV-9001',
  'Website: https://bücher.example/straße?jahr=2024',
  'Terms: /agb/zahlungsbedingungen#frist',
  'Mail host: mail.bücher.example',
  'Contact: rechnung@bücher.example',
  'Total: 119.00 EUR',
].join('\n');

const GOOD = {
  invoice_number: 'INV-9001',
  website: 'https://bücher.example/straße?jahr=2024',
  terms_link: '/agb/zahlungsbedingungen#frist',
  mail_host: 'mail.bücher.example',
  contact: 'rechnung@bücher.example',
};

/** Each newly checked field given a value its format refuses. */
const BROKEN = {
  website: 'bücher example',
  terms_link: 'agb\\zahlung',
  mail_host: '-mail-.bücher.example',
  contact: 'rechnung at bücher.example',
};

let h: Harness;
let vlm: LoopbackServer;
let admin: string;
let member: string;
let templateId: string;

const completion = (req: Seen, values: Record<string, unknown>): Answer => extractionCompletion(req, values, { prompt_tokens: 900, completion_tokens: 60 });

async function extract(values: Record<string, unknown>) {
  vlm.seen.length = 0;
  vlm.handle((req) => completion(req, values));
  const res = await upload(h, member, { name: 'invoice.txt', bytes: Buffer.from(DOCUMENT) }, { template_id: templateId });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await waitForJob(h, member, res.body.job_id, undefined, 60_000);
  return (await h.request('GET', `/v1/documents/${res.body.job_id}`, { token: member })).body;
}

/** The problems the service sent back to the model in its second request, if it made one. */
const correctionSent = () => (vlm.seen[1] ? JSON.stringify(vlm.seen[1].json.messages) : '');

beforeAll(async () => {
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1 });
  vlm = await startLoopback();
  await h.seedTenant(TENANT);
  admin = (await h.seedUser(TENANT, 'admin')).token!;
  member = (await h.seedUser(TENANT, 'member')).token!;
  const platformAdmin = await h.adminToken();
  const infra = await h.request('PUT', '/v1/admin/platform/infra/vlm', {
    token: platformAdmin,
    body: { backend: 'custom_url', model: 'qwen2.5-vl-7b-instruct', base_url: `${vlm.url}/v1`, credentials: { api_key: 'sk-formats-test' }, timeout_seconds: 20, max_retries: 0 },
  });
  expect(infra.status, JSON.stringify(infra.body)).toBe(200);
  const t = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'formats-invoice', json_schema: SCHEMA } });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  templateId = t.body.id;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await vlm?.close();
});

describe('formats a model answer is checked against', () => {
  it('keeps values that fit iri, iri-reference, idn-hostname and idn-email, Unicode and all', async () => {
    const job = await extract(GOOD);
    expect(job.result.extraction.data).toMatchObject(GOOD);
    expect(vlm.seen).toHaveLength(1); // nothing to correct
  });

  it('asks again about each value that breaks its format, then drops it for a person to supply', async () => {
    const job = await extract({ ...GOOD, ...BROKEN });
    expect(vlm.seen).toHaveLength(2);
    for (const [field, format] of [['website', 'iri'], ['terms_link', 'iri-reference'], ['mail_host', 'idn-hostname'], ['contact', 'idn-email']]) {
      expect(correctionSent(), field).toContain(`${field}: must match format \\"${format}\\"`);
      expect(job.result.extraction.data[field!], field).toBeUndefined();
      expect(job.result.extraction.fields[field!], field).toMatchObject({ value: null, confidence: 0 });
    }
    expect(job.status).toBe('needs_review');
    expect(job.result.extraction.data).toMatchObject({ invoice_number: 'INV-9001' });
  });

  it('checks long crafted values to the end and refuses them', async () => {
    const crafted = {
      website: `http://${'ü:@a.'.repeat(40_000)} `,
      terms_link: `${'ü/%a'.repeat(40_000)}%`,
      mail_host: `${'ü'.repeat(200_000)}.example`,
      contact: `"${'\\"'.repeat(80_000)}@${'ü.'.repeat(40_000)}`,
    };
    const job = await extract({ ...GOOD, ...crafted });
    expect(vlm.seen).toHaveLength(2);
    for (const field of Object.keys(crafted)) expect(job.result.extraction.data[field], field).toBeUndefined();
    expect(job.result.extraction.data).toMatchObject({ invoice_number: 'INV-9001' });
  });
});

describe('a date-time field', () => {
  it('keeps the date and time the model read, where it was cut to a date that its format then refused', async () => {
    const t = await h.request('POST', '/v1/templates', {
      token: admin,
      body: { name: 'formats-issued', json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, issued: { type: 'string', format: 'date-time' } } } },
    });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    vlm.seen.length = 0;
    vlm.handle((req) => completion(req, { invoice_number: 'INV-9001', issued: '2024-03-05T10:00:00Z' }));
    const text = `${DOCUMENT}\nIssued: 2024-03-05T10:00:00Z`;
    const res = await upload(h, member, { name: 'issued.txt', bytes: Buffer.from(text) }, { template_id: t.body.id });
    await waitForJob(h, member, res.body.job_id, undefined, 60_000);
    const job = (await h.request('GET', `/v1/documents/${res.body.job_id}`, { token: member })).body;
    expect(job.result.extraction.data).toEqual({ invoice_number: 'INV-9001', issued: '2024-03-05T10:00:00Z' });
    expect(vlm.seen).toHaveLength(1);
  });
});

describe('a format no check exists for', () => {
  it('is refused when the template is saved, at its place in the schema', async () => {
    const custom = {
      type: 'object',
      properties: {
        po: { type: 'string', format: 'po-number' },
        lines: { type: 'array', items: { type: 'object', properties: { 'sku/code': { type: 'string', format: 'sku' } } } },
      },
    };
    const res = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'formats-custom', json_schema: custom } });
    expect(res.status).toBe(422);
    const byLoc = Object.fromEntries(res.body.detail.map((d: any) => [JSON.stringify(d.loc), d]));
    expect(byLoc[JSON.stringify(['body', 'json_schema', 'properties', 'po', 'format'])]).toMatchObject({ type: 'json_schema_invalid', input: 'po-number' });
    expect(byLoc[JSON.stringify(['body', 'json_schema', 'properties', 'po', 'format'])].msg).toMatch(/^Unknown format 'po-number': the formats checked are .*\biri\b.*\bidn-email\b.*; describe a value of your own with "pattern" instead$/);
    expect(byLoc[JSON.stringify(['body', 'json_schema', 'properties', 'lines', 'items', 'properties', 'sku/code', 'format'])]).toMatchObject({ input: 'sku' });
    expect(res.body.detail).toHaveLength(2);

    const update = await h.request('PUT', `/v1/templates/${templateId}`, { token: admin, body: { name: 'formats-invoice', json_schema: custom } });
    expect(update.status).toBe(422);
    const inline = await h.request('POST', '/v1/templates/test', { token: member, body: { template: { json_schema: custom }, job_id: 'job_none' } });
    expect(inline.status).toBe(422);
    expect(inline.body.detail[0]).toMatchObject({ loc: ['body', 'template', 'json_schema', 'properties', 'po', 'format'], input: 'po-number' });
  });

  it('leaves every standard format and the OpenAPI ones accepted', async () => {
    const formats = ['date', 'time', 'date-time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex', 'url', 'int32', 'byte'];
    const json_schema = { type: 'object', properties: Object.fromEntries(formats.map((f) => [f.replace(/-/g, '_'), { type: 'string', format: f }])) };
    const res = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'formats-all-standard', json_schema } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
