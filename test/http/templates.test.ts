// Templates through HTTP: every operation under /v1/templates except drafts, forge and classify
// (interface.md TemplateCreatePayload; decisions.md "Templates, drafts, forge").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let admin: string;
let member: string;
let globexAdmin: string;

const INVOICE_TEXT = ['ACME Supplies GmbH', 'Invoice number: INV-2024-001', 'Invoice date: 05.03.2024', 'Due date: 19.03.2024', 'Subtotal: EUR 100.00', 'VAT: EUR 19.00', 'Total: EUR 119.00'].join('\n');

const schema = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    date: { type: 'string', format: 'date' },
    due_date: { type: 'string', format: 'date' },
    subtotal: { type: 'number' },
    tax: { type: 'number' },
    total: { type: 'number' },
  },
  required: ['invoice_number', 'total'],
};

const payload = (name: string, extra: Record<string, unknown> = {}) => ({ name, json_schema: schema, ...extra });

async function create(name: string, extra: Record<string, unknown> = {}, token = admin) {
  const res = await h.request('POST', '/v1/templates', { token, body: payload(name, extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

function upload(path: string, token: string, fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Blob) form.append(k, v, 'invoice.txt');
    else form.append(k, v);
  }
  return fetch(`${h.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  admin = (await h.seedUser('acme', 'admin')).token!;
  member = (await h.seedUser('acme', 'member')).token!;
  globexAdmin = (await h.seedUser('globex', 'admin')).token!;
});
afterAll(() => h.close());

describe('authentication and authorisation', () => {
  it('answers 401 to every operation without a credential', async () => {
    const ops: [string, string][] = [
      ['GET', '/v1/templates'], ['POST', '/v1/templates'], ['GET', '/v1/templates/meta/rule-kinds'], ['POST', '/v1/templates/test'],
      ['GET', '/v1/templates/tpl_x'], ['PUT', '/v1/templates/tpl_x'], ['DELETE', '/v1/templates/tpl_x'], ['POST', '/v1/templates/tpl_x/activate'],
      ['POST', '/v1/templates/tpl_x/deactivate'], ['GET', '/v1/templates/tpl_x/versions'], ['GET', '/v1/templates/tpl_x/audit'], ['POST', '/v1/templates/tpl_x/test'],
    ];
    for (const [method, path] of ops) {
      const res = await h.request(method, path, method === 'POST' || method === 'PUT' ? { body: {} } : {});
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('lets a member read but not change templates (403 insufficient_role)', async () => {
    const t = await create('member-visible');
    for (const [method, path, body] of [
      ['POST', '/v1/templates', payload('by-member')],
      ['PUT', `/v1/templates/${t.id}`, payload('by-member')],
      ['DELETE', `/v1/templates/${t.id}`],
      ['POST', `/v1/templates/${t.id}/activate`],
      ['POST', `/v1/templates/${t.id}/deactivate`],
    ] as const) {
      const res = await h.request(method, path, { token: member, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
    }
    for (const path of [`/v1/templates/${t.id}`, '/v1/templates', `/v1/templates/${t.id}/versions`, `/v1/templates/${t.id}/audit`, '/v1/templates/meta/rule-kinds']) {
      expect((await h.request('GET', path, { token: member })).status, path).toBe(200);
    }
  });

  it("answers 404 for another tenant's template, exactly as for a missing one", async () => {
    const t = await create('acme-only');
    for (const id of [t.id, 'tpl_missing']) {
      for (const [method, path, body] of [
        ['GET', `/v1/templates/${id}`],
        ['PUT', `/v1/templates/${id}`, payload('stolen')],
        ['DELETE', `/v1/templates/${id}`],
        ['POST', `/v1/templates/${id}/activate`],
        ['POST', `/v1/templates/${id}/deactivate`],
        ['GET', `/v1/templates/${id}/versions`],
        ['GET', `/v1/templates/${id}/audit`],
        ['POST', `/v1/templates/${id}/test`, { job_id: 'job_x' }],
      ] as const) {
        const res = await h.request(method, path, { token: globexAdmin, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    }
    const list = await h.request('GET', '/v1/templates', { token: globexAdmin });
    expect(list.body.items.map((i: { id: string }) => i.id)).not.toContain(t.id);
  });
});

describe('POST /v1/templates', () => {
  it('creates version 1, active, with the payload defaults', async () => {
    const res = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'invoice_de-1', json_schema: schema } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^tpl_/),
      tenant_id: 'acme',
      name: 'invoice_de-1',
      description: null,
      prompt_overlay: '',
      json_schema: schema,
      validation_rules: [],
      review_thresholds: {},
      post_processing: null,
      version: 1,
      active: true,
      created_by: expect.stringMatching(/^usr_/),
      updated_by: expect.stringMatching(/^usr_/),
    });
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await h.request('GET', `/v1/templates/${res.body.id}`, { token: member })).body).toEqual(res.body);
  });

  it('keeps every field of a full payload', async () => {
    const body = payload('full', {
      description: 'German supplier invoices',
      prompt_overlay: 'Amounts are in EUR.',
      validation_rules: [{ kind: 'required', field: 'invoice_number' }, { kind: 'arithmetic', params: { expression: 'subtotal + tax = total' }, severity: 'warn' }],
      review_thresholds: { confidence_floor: 0.6, warn_count_threshold: 2 },
      post_processing: { case: 'upper', defaults: { tax: 0 }, drop_empty: true },
    });
    const res = await h.request('POST', '/v1/templates', { token: admin, body });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, version: 1 });
  });

  it('refuses a duplicate live name with 409, and frees the name of a deleted template', async () => {
    const first = await create('dup');
    const again = await h.request('POST', '/v1/templates', { token: admin, body: payload('dup') });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('template_name_taken');
    expect((await h.request('POST', '/v1/templates', { token: globexAdmin, body: payload('dup') })).status).toBe(201);
    expect((await h.request('DELETE', `/v1/templates/${first.id}`, { token: admin })).status).toBe(204);
    expect((await h.request('POST', '/v1/templates', { token: admin, body: payload('dup') })).status).toBe(201);
  });

  it('validates the name: pattern, length, required', async () => {
    for (const [name, type] of [['Bad Name', 'string_pattern_mismatch'], ['-lead', 'string_pattern_mismatch'], ['', 'string_too_short'], ['x'.repeat(129), 'string_too_long']] as const) {
      const res = await h.request('POST', '/v1/templates', { token: admin, body: payload(name) });
      expect(res.status, name).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type });
    }
    const missing = await h.request('POST', '/v1/templates', { token: admin, body: { json_schema: schema } });
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'missing' })]);
    expect((await h.request('POST', '/v1/templates', { token: admin, body: payload('x'.repeat(128)) })).status).toBe(201);
  });

  it('refuses a json_schema that is not a valid JSON Schema, saying where', async () => {
    const bad = await h.request('POST', '/v1/templates', { token: admin, body: payload('bad-schema', { json_schema: { type: 'object', properties: { total: { type: 'money' } } } }) });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'json_schema', 'properties', 'total', 'type'], type: 'json_schema_invalid' });
    expect(bad.body.detail[0].msg).toMatch(/Not a valid JSON Schema/);
    const badRef = await h.request('POST', '/v1/templates', { token: admin, body: payload('bad-ref', { json_schema: { type: 'object', properties: { a: { $ref: '#/$defs/nope' } } } }) });
    expect(badRef.status).toBe(422);
    expect(badRef.body.detail[0]).toMatchObject({ loc: ['body', 'json_schema'], type: 'json_schema_invalid' });
    const notObject = await h.request('POST', '/v1/templates', { token: admin, body: payload('not-object', { json_schema: { type: 'array', items: {} } }) });
    expect(notObject.body.detail[0]).toMatchObject({ loc: ['body', 'json_schema', 'type'] });
    const noFields = await h.request('POST', '/v1/templates', { token: admin, body: payload('no-fields', { json_schema: { type: 'object' } }) });
    expect(noFields.body.detail[0]).toMatchObject({ loc: ['body', 'json_schema', 'properties'], type: 'missing' });
    const notDict = await h.request('POST', '/v1/templates', { token: admin, body: payload('not-dict', { json_schema: [1] }) });
    expect(notDict.body.detail[0]).toMatchObject({ loc: ['body', 'json_schema'], type: 'dict_type' });
  });

  it('refuses a schema whose fields never end (a $ref into itself) or multiply past the limit, as a member testing it inline too', async () => {
    const tree = { type: 'object', $defs: { node: { type: 'object', properties: { value: { type: 'string' }, child: { $ref: '#/$defs/node' } } } }, properties: { root: { $ref: '#/$defs/node' } } };
    // Ten fields that each hold ten of the next level, four levels down: 10,000 fields from a few lines.
    const level = (n: number): Record<string, unknown> => (n === 0 ? { type: 'string' } : { $ref: `#/$defs/l${n}` });
    const ten = (n: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, level(n)])) });
    const wide = { type: 'object', $defs: { l1: ten(0), l2: ten(1), l3: ten(2) }, properties: ten(3).properties };
    for (const [name, json_schema] of [['tree', tree], ['wide', wide]] as const) {
      const res = await h.request('POST', '/v1/templates', { token: admin, body: payload(name, { json_schema }) });
      expect(res.status, name).toBe(422);
      expect(res.body.detail[0], name).toMatchObject({ loc: ['body', 'json_schema'], type: 'json_schema_invalid' });
      const inline = await h.request('POST', '/v1/templates/test', { token: member, body: { job_id: 'job_x', template: { name, json_schema } } });
      expect(inline.status, name).toBe(422);
    }
    expect((await h.request('GET', '/v1/health/live')).status).toBe(200);
  });

  it('refuses bad validation rules with a location inside the list', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ kind: 'nonsense', field: 'total' }, ['body', 'validation_rules', 0, 'kind']],
      [{ kind: 'pattern', field: 'invoice_number' }, ['body', 'validation_rules', 0, 'params', 'pattern']],
      [{ kind: 'pattern', field: 'invoice_number', params: { pattern: '([a-z' } }, ['body', 'validation_rules', 0, 'params', 'pattern']],
      [{ kind: 'required', field: 'no_such_field' }, ['body', 'validation_rules', 0, 'field']],
      [{ kind: 'date_order', fields: ['date'] }, ['body', 'validation_rules', 0, 'fields']],
      [{ kind: 'arithmetic', params: { expression: 'subtotal + = total' } }, ['body', 'validation_rules', 0, 'params', 'expression']],
      [{ kind: 'arithmetic', params: { expression: 'subtotal + vat = total' } }, ['body', 'validation_rules', 0, 'params', 'expression']],
      [{ kind: 'checksum', field: 'invoice_number', params: { algorithm: 'md5' } }, ['body', 'validation_rules', 0, 'params', 'algorithm']],
      [{ kind: 'range', field: 'total', params: {} }, ['body', 'validation_rules', 0, 'params']],
      [{ kind: 'required', field: 'total', severity: 'fatal' }, ['body', 'validation_rules', 0, 'severity']],
      [{ kind: 'sum', field: 'total', params: { items: 'lines[].amount' } }, ['body', 'validation_rules', 0, 'params', 'items']],
    ];
    for (const [rule, loc] of cases) {
      const res = await h.request('POST', '/v1/templates', { token: admin, body: payload('rules', { validation_rules: [rule] }) });
      expect(res.status, JSON.stringify(rule)).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc), JSON.stringify(rule)).toContainEqual(loc);
    }
    const second = await h.request('POST', '/v1/templates', { token: admin, body: payload('rules', { validation_rules: [{ kind: 'required', field: 'total' }, { kind: 'enum', field: 'total' }] }) });
    expect(second.body.detail[0].loc).toEqual(['body', 'validation_rules', 1, 'params', 'values']);
    const notObject = await h.request('POST', '/v1/templates', { token: admin, body: payload('rules', { validation_rules: ['required'] }) });
    expect(notObject.body.detail[0]).toMatchObject({ loc: ['body', 'validation_rules', 0], type: 'dict_type' });
  });

  it('validates review_thresholds and post_processing', async () => {
    const thresholds = await h.request('POST', '/v1/templates', { token: admin, body: payload('t', { review_thresholds: { confidence_floor: 1.5, warn_count_threshold: 0 } }) });
    expect(thresholds.status).toBe(422);
    expect(thresholds.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual(
      expect.arrayContaining([['body', 'review_thresholds', 'confidence_floor'], ['body', 'review_thresholds', 'warn_count_threshold']]),
    );
    const unknown = await h.request('POST', '/v1/templates', { token: admin, body: payload('t', { review_thresholds: { floor: 0.5 } }) });
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'review_thresholds', 'floor'], type: 'extra_forbidden' });
    const pp = await h.request('POST', '/v1/templates', { token: admin, body: payload('t', { post_processing: { case: 'shout' } }) });
    expect(pp.status).toBe(422);
    expect(pp.body.detail[0].loc).toEqual(['body', 'post_processing', 'case']);
  });

  it('refuses post_processing paths that are no field of the schema, prototype keys among them', async () => {
    const body = payload('pp-paths', {
      post_processing: { defaults: { '__proto__.reason': 'polluted', tax: 0, 'lines[].qty': 1 }, fields: { 'no_such.field': { case: 'upper' } }, value_maps: { constructor: { a: 'b' } } },
    });
    const res = await h.request('POST', '/v1/templates', { token: admin, body });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([
      ['body', 'post_processing', 'defaults', '__proto__.reason'],
      ['body', 'post_processing', 'defaults', 'lines[].qty'],
      ['body', 'post_processing', 'fields', 'no_such.field'],
      ['body', 'post_processing', 'value_maps', 'constructor'],
    ]);
    expect(({} as Record<string, unknown>).reason).toBeUndefined();
    // The same payload inline, as any member may test one against a job: refused alike.
    const inline = await h.request('POST', '/v1/templates/test', { token: member, body: { job_id: 'job_x', template: body } });
    expect(inline.status).toBe(422);
    expect((await h.request('GET', '/v1/templates?q=pp-paths', { token: admin })).body.items).toEqual([]);
  });
});

describe('GET /v1/templates', () => {
  it('lists newest first with the active and q filters, paging with a cursor', async () => {
    const a = await create('list-alpha', { description: 'Receipts from shops' });
    const b = await create('list-beta');
    await h.request('POST', `/v1/templates/${b.id}/deactivate`, { token: admin });
    const all = await h.request('GET', '/v1/templates?q=list-', { token: member });
    expect(all.body.items.map((i: { id: string }) => i.id)).toEqual([b.id, a.id]);
    expect((await h.request('GET', '/v1/templates?q=list-&active=false', { token: member })).body.items.map((i: { id: string }) => i.id)).toEqual([b.id]);
    expect((await h.request('GET', '/v1/templates?q=list-&active=true', { token: member })).body.items.map((i: { id: string }) => i.id)).toEqual([a.id]);
    expect((await h.request('GET', '/v1/templates?q=RECEIPTS', { token: member })).body.items.map((i: { id: string }) => i.id)).toEqual([a.id]);
    const first = await h.request('GET', '/v1/templates?q=list-&limit=1', { token: member });
    expect(first.body.items).toHaveLength(1);
    const next = await h.request('GET', `/v1/templates?q=list-&limit=1&cursor=${first.body.next_cursor}`, { token: member });
    expect(next.body.items[0].id).toBe(a.id);
    expect(next.body.next_cursor).toBeNull();
    expect((await h.request('GET', '/v1/templates?limit=0', { token: member })).status).toBe(422);
    expect((await h.request('GET', '/v1/templates?cursor=garbage', { token: member })).body.detail[0].loc).toEqual(['query', 'cursor']);
  });
});

describe('PUT /v1/templates/{id} and versions', () => {
  it('makes every update a new immutable version', async () => {
    const t = await create('versioned', { description: 'v1' });
    const v2 = await h.request('PUT', `/v1/templates/${t.id}`, { token: admin, body: payload('versioned', { description: 'v2', validation_rules: [{ kind: 'required', field: 'total' }] }) });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ id: t.id, version: 2, description: 'v2', created_at: t.created_at });
    const v3 = await h.request('PUT', `/v1/templates/${t.id}`, { token: admin, body: payload('versioned-renamed') });
    expect(v3.body).toMatchObject({ version: 3, name: 'versioned-renamed', description: null, validation_rules: [] });
    const versions = await h.request('GET', `/v1/templates/${t.id}/versions`, { token: member });
    expect(versions.status).toBe(200);
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const v1 = versions.body.items[2];
    expect(v1).toMatchObject({ version: 1, created_by: t.created_by, template: { ...t } });
    expect(versions.body.items[1].template).toMatchObject({ version: 2, description: 'v2', validation_rules: [{ kind: 'required', field: 'total' }] });
    expect((await h.request('GET', `/v1/templates/${t.id}`, { token: member })).body.version).toBe(3);
  });

  it("keeps the schema's field order as written, in the template, its versions and an extraction", async () => {
    // Authors order fields as a form reads (number, then dates, then amounts); the console and
    // the results list them in that order. Key order is not sorted by length or name.
    const ordered = { type: 'object', properties: { invoice_number: { type: 'string' }, vendor_name: { type: 'string' }, date: { type: 'string', format: 'date' }, total: { type: 'number' }, tax: { type: 'number' } } };
    const order = Object.keys(ordered.properties);
    const t = await create('field-order', { json_schema: ordered });
    expect(Object.keys(t.json_schema.properties)).toEqual(order);
    expect(Object.keys((await h.request('GET', `/v1/templates/${t.id}`, { token: member })).body.json_schema.properties)).toEqual(order);
    await h.request('PUT', `/v1/templates/${t.id}`, { token: admin, body: payload('field-order', { json_schema: ordered, description: 'v2' }) });
    const versions = await h.request('GET', `/v1/templates/${t.id}/versions`, { token: member });
    for (const v of versions.body.items) expect(Object.keys(v.template.json_schema.properties), `version ${v.version}`).toEqual(order);
    const tested = await upload(`/v1/templates/${t.id}/test`, member, { file: new Blob([INVOICE_TEXT], { type: 'text/plain' }) });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(Object.keys(tested.body.extraction.fields)).toEqual(order);
    expect(Object.keys(tested.body.extraction.data)).toEqual(order);
  });

  it('validates the update like a create and refuses a name another template has', async () => {
    const t = await create('update-me');
    await create('taken-name');
    const clash = await h.request('PUT', `/v1/templates/${t.id}`, { token: admin, body: payload('taken-name') });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('template_name_taken');
    const bad = await h.request('PUT', `/v1/templates/${t.id}`, { token: admin, body: payload('update-me', { json_schema: { type: 'object', properties: { a: { minimum: 'x' } } } }) });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'json_schema']);
    expect((await h.request('GET', `/v1/templates/${t.id}/versions`, { token: member })).body.items).toHaveLength(1);
  });
});

describe('activate, deactivate, delete', () => {
  it('switches the active flag, and answers 409 when it is already so', async () => {
    const t = await create('switch');
    const again = await h.request('POST', `/v1/templates/${t.id}/activate`, { token: admin });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('template_already_active');
    const off = await h.request('POST', `/v1/templates/${t.id}/deactivate`, { token: admin });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ active: false, version: 1 });
    expect((await h.request('POST', `/v1/templates/${t.id}/deactivate`, { token: admin })).body.code).toBe('template_already_inactive');
    expect((await h.request('POST', `/v1/templates/${t.id}/activate`, { token: admin })).body.active).toBe(true);
  });

  it('deletes softly: the template is gone from reads, lists and changes', async () => {
    const t = await create('delete-me');
    expect((await h.request('DELETE', `/v1/templates/${t.id}`, { token: admin })).status).toBe(204);
    for (const [method, path] of [['GET', `/v1/templates/${t.id}`], ['DELETE', `/v1/templates/${t.id}`], ['POST', `/v1/templates/${t.id}/activate`], ['GET', `/v1/templates/${t.id}/versions`]] as const) {
      expect((await h.request(method, path, { token: admin })).status, `${method} ${path}`).toBe(404);
    }
    expect((await h.request('GET', '/v1/templates?q=delete-me', { token: admin })).body.items).toEqual([]);
    const row = await h.db.selectFrom('templates').select(['deleted_at', 'active']).where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.active).toBe(false);
  });
});

describe('GET /v1/templates/{id}/audit', () => {
  it("lists the template's own changes, newest first", async () => {
    const t = await create('audited');
    await create('audited-other');
    await h.request('PUT', `/v1/templates/${t.id}`, { token: admin, body: payload('audited') });
    await h.request('POST', `/v1/templates/${t.id}/deactivate`, { token: admin });
    const res = await h.request('GET', `/v1/templates/${t.id}/audit`, { token: member });
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { action: string }) => e.action)).toEqual(['templates.deactivate', 'templates.update', 'templates.create']);
    for (const e of res.body.items) expect(e).toMatchObject({ resource_type: 'template', resource_id: t.id, tenant_id: 'acme' });
    expect(res.body.items[1].details).toMatchObject({ version: 2 });
    const page = await h.request('GET', `/v1/templates/${t.id}/audit?limit=2`, { token: member });
    expect(page.body.items).toHaveLength(2);
    expect(page.body.next_cursor).toEqual(expect.any(String));
  });
});

describe('GET /v1/templates/meta/rule-kinds', () => {
  it('describes every rule kind with its params and an example', async () => {
    const res = await h.request('GET', '/v1/templates/meta/rule-kinds', { token: member });
    expect(res.status).toBe(200);
    expect(res.body.items.map((k: { kind: string }) => k.kind)).toEqual(['required', 'pattern', 'enum', 'range', 'length', 'date', 'date_order', 'sum', 'arithmetic', 'checksum', 'equals', 'required_if']);
    for (const k of res.body.items) {
      expect(k.description.length).toBeGreaterThan(10);
      expect(k.params.type).toBe('object');
      expect(k.example.kind).toBe(k.kind);
    }
    expect(res.body.items.find((k: { kind: string }) => k.kind === 'checksum').params.properties.algorithm).toBeDefined();
    expect(res.body.severities).toEqual(['error', 'warn']);
  });
});

describe('template tests (nothing persisted)', () => {
  it('extracts from an uploaded file with the stored template', async () => {
    const t = await create('test-upload', { validation_rules: [{ kind: 'arithmetic', params: { expression: 'subtotal + tax = total' } }, { kind: 'date_order', fields: ['date', 'due_date'] }] });
    const jobsBefore = await h.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await upload(`/v1/templates/${t.id}/test`, member, { file: new Blob([INVOICE_TEXT], { type: 'text/plain' }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ template_id: t.id, template_version: 1, source: { kind: 'file', filename: 'invoice.txt', pages_processed: 1 } });
    expect(res.body.extraction.data).toEqual({ invoice_number: 'INV-2024-001', date: '2024-03-05', due_date: '2024-03-19', subtotal: 100, tax: 19, total: 119 });
    expect(res.body.extraction.validation).toEqual([]);
    expect(res.body.status).toBe('completed');
    const total = res.body.extraction.fields.total;
    expect(total.confidence).toBeGreaterThan(0.7);
    expect(total.evidence[0]).toMatchObject({ page: 1, text: 'EUR 119.00', bbox: expect.any(Array) });
    expect(res.body.entities.some((e: { type: string }) => e.type === 'date')).toBe(true);
    const jobsAfter = await h.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(jobsAfter.n).toBe(jobsBefore.n);
  });

  it("tests on a job's stored canonical output, and 404s a job of another tenant", async () => {
    const t = await create('test-job', { validation_rules: [{ kind: 'range', field: 'total', params: { max: 100 }, on_fail: 'reject' }] });
    const canonical = toCanonicalJson(await runCanonical(new TextEncoder().encode(INVOICE_TEXT)));
    for (const [id, tenant, result] of [['job_t6a', 'acme', { canonical }], ['job_t6b', 'globex', { canonical }], ['job_t6c', 'acme', null]] as const) {
      await h.db
        .insertInto('jobs')
        .values({ id, tenant_id: tenant, status: result ? 'completed' : 'queued', processing_mode: 'canonical', size_bytes: 1, sha256: 'x', ...(result ? { finished_at: new Date(), result: JSON.stringify(result) } : {}) })
        .execute();
    }
    const res = await h.request('POST', `/v1/templates/${t.id}/test`, { token: member, body: { job_id: 'job_t6a' } });
    expect(res.status).toBe(200);
    expect(res.body.source).toMatchObject({ kind: 'job', job_id: 'job_t6a' });
    expect(res.body.status).toBe('rejected');
    expect(res.body.review_reasons).toEqual(['validation:range:total']);
    expect(res.body.extraction.validation).toEqual([{ rule: 'range:total', field: 'total', severity: 'error', message: expect.stringContaining('above 100') }]);
    expect((await h.request('POST', `/v1/templates/${t.id}/test`, { token: member, body: { job_id: 'job_t6b' } })).status).toBe(404);
    const notReady = await h.request('POST', `/v1/templates/${t.id}/test`, { token: member, body: { job_id: 'job_t6c' } });
    expect(notReady.status).toBe(409);
    expect(notReady.body.code).toBe('job_has_no_canonical');
  });

  it('validates the test request', async () => {
    const t = await create('test-validate');
    const none = await h.request('POST', `/v1/templates/${t.id}/test`, { token: member, body: {} });
    expect(none.status).toBe(422);
    expect(none.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['body', 'job_id']);
    const extra = await h.request('POST', `/v1/templates/${t.id}/test`, { token: member, body: { job_id: 'job_x', bogus: 1 } });
    expect(extra.body.detail[0]).toMatchObject({ loc: ['body', 'bogus'], type: 'extra_forbidden' });
    const noFile = await upload(`/v1/templates/${t.id}/test`, member, { page_range: '1' });
    expect(noFile.status).toBe(422);
    expect(noFile.body.detail[0].loc).toEqual(['body', 'file']);
    const notADocument = await upload(`/v1/templates/${t.id}/test`, member, { file: new Blob([new Uint8Array([0, 159, 146, 150, 0, 1, 2])]) });
    expect(notADocument.status).toBe(415);
    const badRange = await upload(`/v1/templates/${t.id}/test`, member, { file: new Blob([INVOICE_TEXT]), page_range: '9-x' });
    expect(badRange.status).toBe(422);
    expect(badRange.body.detail[0].loc).toEqual(['body', 'page_range']);
  });

  it('unified test: takes the template inline or by id', async () => {
    const inline = { json_schema: { type: 'object', properties: { total: { type: 'number' }, invoice_number: { type: 'string' } } }, post_processing: { number_decimals: 0 } };
    const res = await upload('/v1/templates/test', member, { file: new Blob([INVOICE_TEXT]), template: JSON.stringify(inline) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ template_id: null, template_version: null, extraction: { data: { total: 119, invoice_number: 'INV-2024-001' } } });
    const t = await create('unified-by-id');
    const byId = await upload('/v1/templates/test', member, { file: new Blob([INVOICE_TEXT]), template_id: t.id });
    expect(byId.body.template_id).toBe(t.id);
    const json = await h.request('POST', '/v1/templates/test', { token: member, body: { job_id: 'job_t6a', template: inline } });
    expect(json.status).toBe(200);
    expect(json.body.extraction.data.total).toBe(119);
    const missing = await h.request('POST', '/v1/templates/test', { token: member, body: { job_id: 'job_t6a' } });
    expect(missing.body.detail[0].loc).toEqual(['body', 'template']);
    const badInline = await h.request('POST', '/v1/templates/test', { token: member, body: { job_id: 'job_t6a', template: { json_schema: { type: 'object', properties: { a: { type: 'nope' } } } } } });
    expect(badInline.status).toBe(422);
    expect(badInline.body.detail[0].loc).toEqual(['body', 'template', 'json_schema', 'properties', 'a', 'type']);
    const badJson = await upload('/v1/templates/test', member, { file: new Blob([INVOICE_TEXT]), template: '{nope' });
    expect(badJson.body.detail[0]).toMatchObject({ loc: ['body', 'template'], type: 'json_invalid' });
    const otherTenant = await upload('/v1/templates/test', globexAdmin, { file: new Blob([INVOICE_TEXT]), template_id: t.id });
    expect(otherTenant.status).toBe(404);
  });
});
