// Hostile input is answered in the contract's shapes, never with a 500, and leaves nothing behind:
// NUL and lone surrogates, deep or huge free-form objects, malformed multipart, framework errors.
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, postForm } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let member: string;
let admin: string;

beforeAll(async () => {
  h = await startHarness();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
  admin = (await h.seedUser(DEFAULT_TENANT_ID, 'admin')).token!;
});
afterAll(() => h.close());

const deep = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};
const deepText = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

function expectField(res: { status: number; body: any }, loc: (string | number)[]) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
}

describe('NUL and lone surrogates', () => {
  it('answer 422 at the field in a JSON body', async () => {
    expectField(await h.request('PATCH', '/v1/account/profile', { token: member, body: { display_name: 'Ann\u0000' } }), ['body', 'display_name']);
    expectField(await h.request('POST', '/v1/account/api-keys', { token: member, body: { name: 'key\u0000' } }), ['body', 'name']);
    // A lone surrogate travels as a JSON escape; it must not reach jsonb.
    const raw = '{"display_name":"\\ud800x"}';
    expectField(await h.request('PATCH', '/v1/account/profile', { token: member, raw, headers: { 'content-type': 'application/json' } }), ['body', 'display_name']);
    expectField(await h.request('PATCH', '/v1/account/profile', { token: member, raw: '{"display_name":"\\udc00"}', headers: { 'content-type': 'application/json' } }), ['body', 'display_name']);
  });

  it('answer 422 inside free-form objects, keys included', async () => {
    const body = { name: 'Hostile', json_schema: { type: 'object', properties: { 'k\u0000': { type: 'string' } } } };
    expectField(await h.request('POST', '/v1/templates', { token: admin, body }), ['body', 'json_schema', 'properties', 'k\u0000']);
    const flags = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), body: { feature_flags: { x: 'a\u0000' } } });
    expectField(flags, ['body', 'feature_flags', 'x']);
  });

  it('answer 422 in the query string and the path', async () => {
    expectField(await h.request('GET', '/v1/documents?q=%00', { token: member }), ['query', 'q']);
    expectField(await h.request('GET', '/v1/documents/job_%00', { token: member }), ['path', 'job_id']);
  });

  it('answer 422 in multipart fields, metadata and the file name, and queue nothing', async () => {
    const before = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expectField(await upload(h, member, FILES.invoice, { metadata: '{"ref":"\\u0000"}' }), ['body', 'metadata', 'ref']);
    expectField(await upload(h, member, { name: 'in\u0000voice.pdf', bytes: Buffer.from('%PDF-1.4\n') }), ['body', 'file', 'filename']);
    expectField(await postForm(h, '/v1/batches', member, [{ field: 'files', file: FILES.invoice }], { name: 'batch\u0000' }), ['body', 'name']);
    const after = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});

describe('numbers beyond a double', () => {
  it('answer 422 at the field instead of being stored as Infinity, null or nothing', async () => {
    const policyPath = `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`;
    const before = await h.request('GET', policyPath, { token: await h.adminToken() });
    const json = { 'content-type': 'application/json' };
    const limit = await h.request('PATCH', policyPath, { token: await h.adminToken(), raw: '{"rate_limit_per_minute":1e400}', headers: json });
    expectField(limit, ['body', 'rate_limit_per_minute']);
    expect(limit.body.detail[0].type).toBe('finite_number');
    expectField(await h.request('PATCH', policyPath, { token: await h.adminToken(), raw: '{"feature_flags":{"x":[1,-1e999]}}', headers: json }), ['body', 'feature_flags', 'x', 1]);
    const after = await h.request('GET', policyPath, { token: await h.adminToken() });
    expect(after.body).toEqual(before.body);
  });
});

describe('integers past 2^53', () => {
  it('answer 422 at the field instead of being stored as a different number', async () => {
    const policyPath = `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`;
    const before = await h.request('GET', policyPath, { token: await h.adminToken() });
    const json = { 'content-type': 'application/json' };
    // JSON.parse turns this into 9007199254740992: the client would read back another number.
    const rounded = await h.request('PATCH', policyPath, { token: await h.adminToken(), raw: '{"rate_limit_per_minute":9007199254740993}', headers: json });
    expectField(rounded, ['body', 'rate_limit_per_minute']);
    expect(rounded.body.detail[0]).toMatchObject({ type: 'less_than_equal', ctx: { le: Number.MAX_SAFE_INTEGER } });
    expectField(await h.request('PATCH', policyPath, { token: await h.adminToken(), raw: '{"pdf_max_pages":1e300}', headers: json }), ['body', 'pdf_max_pages']);
    expect((await h.request('GET', policyPath, { token: await h.adminToken() })).body).toEqual(before.body);
    // The largest safe integer itself is an integer like any other.
    const largest = await h.request('PATCH', policyPath, { token: await h.adminToken(), body: { rate_limit_per_minute: Number.MAX_SAFE_INTEGER } });
    expect(largest.status, JSON.stringify(largest.body)).toBe(200);
    expect(largest.body.fields.rate_limit_per_minute.value).toBe(Number.MAX_SAFE_INTEGER);
    await h.request('PATCH', policyPath, { token: await h.adminToken(), body: { rate_limit_per_minute: null } });
  });

  it('shows the bound in the OpenAPI document', async () => {
    const doc = await h.request('GET', '/openapi.json');
    const patch = doc.body.paths['/v1/admin/tenant-policy/{tenant_id}'].patch.requestBody.content['application/json'].schema;
    const limit = patch.properties.rate_limit_per_minute;
    expect(JSON.stringify(limit)).toContain(String(Number.MAX_SAFE_INTEGER));
  });
});

describe('depth and size of free-form objects', () => {
  it('accepts 32 levels and refuses 33 at the field', async () => {
    const ok = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), body: { feature_flags: deep(31) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const tooDeep = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), body: { feature_flags: deep(33) } });
    expectField(tooDeep, ['body', 'feature_flags']);
    expect(tooDeep.body.detail[0].type).toBe('too_deep');
  });

  it('refuses 5,000 levels without a stack overflow, in JSON and in multipart metadata', async () => {
    const raw = `{"feature_flags":${deepText(5000)}}`;
    expectField(await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), raw, headers: { 'content-type': 'application/json' } }), ['body', 'feature_flags']);
    expectField(await upload(h, member, FILES.invoice, { metadata: deepText(5000) }), ['body', 'metadata']);
    const list = await h.request('GET', '/v1/documents', { token: member });
    expect(list.status).toBe(200);
  });

  it('refuses an object with too many entries', async () => {
    const wide = Object.fromEntries(Array.from({ length: 25_000 }, (_, i) => [`k${i}`, i]));
    const res = await h.request('PATCH', `/v1/admin/tenant-policy/${DEFAULT_TENANT_ID}`, { token: await h.adminToken(), body: { feature_flags: wide } });
    expectField(res, ['body', 'feature_flags']);
    expect(res.body.detail[0].type).toBe('too_long');
  });
});

describe('malformed requests', () => {
  it('answers malformed multipart with 400 malformed_upload', async () => {
    const noBoundary = await h.request('POST', '/v1/documents', { token: member, raw: 'hello', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status, JSON.stringify(noBoundary.body)).toBe(400);
    expect(noBoundary.body.code).toBe('malformed_upload');
    const unclosed = '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 partial';
    const res = await h.request('POST', '/v1/documents', { token: member, raw: unclosed, headers: { 'content-type': 'multipart/form-data; boundary=XX' } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('malformed_upload');
  });

  it('answers a text/plain body to a JSON endpoint with 415', async () => {
    const res = await h.request('PATCH', '/v1/account/profile', { token: member, raw: 'display_name=x', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('reads a PATCH sent as application/merge-patch+json (RFC 7396) as JSON', async () => {
    const res = await h.request('PATCH', '/v1/account/profile', { token: member, raw: JSON.stringify({ display_name: 'Merge Patch' }), headers: { 'content-type': 'application/merge-patch+json' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.display_name).toBe('Merge Patch');
    const broken = await h.request('PATCH', '/v1/account/profile', { token: member, raw: '{"display_name":', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(broken.status).toBe(422);
  });

  it('answers an over-long path parameter in the error shape', async () => {
    const res = await h.request('GET', `/v1/documents/${'x'.repeat(300)}`, { token: member });
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'uri_too_long' });
  });

  it('answers a control character in a header in the error shape', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(h.baseUrl).port), '127.0.0.1', () => {
        socket.write('GET /v1/health/live HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
      });
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'malformed_request' });
  });
});

describe('schema property names that are prototype keys', () => {
  // Written as text: an object literal's __proto__ would set the literal's prototype instead.
  const PROTO_SCHEMA = '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"quireCode":{"type":"string"},"quireTags":{"type":"array","items":{"type":"string"}}}}}}';
  const note = { name: 'note.txt', bytes: Buffer.from('Quire Code: PWNED-1\nInvoice number: INV-9\n') };
  // The server runs in this process: a write through __proto__ would show on every object here.
  const expectClean = () => {
    expect(Object.prototype).not.toHaveProperty('quireCode');
    expect(Object.prototype).not.toHaveProperty('quireTags');
    expect(({} as Record<string, unknown>).quireCode).toBeUndefined();
  };

  it('are refused with 422 at the property, in a template, inline in a template test and under $defs', async () => {
    const created = await h.request('POST', '/v1/templates', { token: admin, raw: `{"name":"proto","json_schema":${PROTO_SCHEMA}}`, headers: { 'content-type': 'application/json' } });
    expectField(created, ['body', 'json_schema', 'properties', '__proto__']);
    const nested = await h.request('POST', '/v1/templates', {
      token: admin,
      body: { name: 'proto-defs', json_schema: { type: 'object', $defs: { party: { type: 'object', properties: { constructor: { type: 'string' } } } }, properties: { vendor: { $ref: '#/$defs/party' } } } },
    });
    expectField(nested, ['body', 'json_schema', '$defs', 'party', 'properties', 'constructor']);
    const tested = await postForm(h, '/v1/templates/test', member, [{ field: 'file', file: note }], { template: `{"name":"proto","json_schema":${PROTO_SCHEMA}}` });
    expect(tested.status, JSON.stringify(tested.body)).toBe(422);
    expect(tested.body.detail[0].loc.slice(-2)).toEqual(['properties', '__proto__']);
    expectClean();
  });

  it('name no field in a template stored before the check: extraction skips them and never touches the prototype', async () => {
    const created = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'proto-stored', json_schema: { type: 'object', properties: { invoice_number: { type: 'string' } } } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const stored = `{"type":"object","properties":{"invoice_number":{"type":"string"},${PROTO_SCHEMA.slice('{"type":"object","properties":{'.length, -2)}}}`;
    await sql`UPDATE templates SET json_schema = ${stored}::jsonb WHERE id = ${created.body.id}`.execute(h.db);
    const res = await postForm(h, `/v1/templates/${created.body.id}/test`, member, [{ field: 'file', file: note }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectClean();
    expect(Object.keys(res.body.extraction.fields)).toEqual(['invoice_number']);
    expect(Object.hasOwn(res.body.extraction.data, '__proto__')).toBe(false);
  });
});
