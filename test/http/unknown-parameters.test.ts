// A query parameter or body field an operation does not take is a 422 at its name, never silently
// ignored: a misspelt filter must not answer every row, a misspelt template_id must not run a job
// without its template.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, postForm, upload } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let root: string;
let member: string;

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

const extra = (name: string, input: unknown, at = 'query') => ({ loc: [at, name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input });

describe('unknown query parameters', () => {
  it('refuses a misspelt list filter instead of listing everything', async () => {
    expect((await upload(h, member, FILES.invoice)).status).toBe(202);
    const res = await h.request('GET', '/v1/documents?stauts=failed', { token: member });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body).toEqual({ detail: [extra('stauts', 'failed')] });

    // The declared ones keep working, together with an unknown one refused at its own name.
    const listed = await h.request('GET', '/v1/documents?status=queued&limit=10', { token: member });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    const mixed = await h.request('GET', '/v1/documents?status=queued&limt=10', { token: member });
    expect(mixed.status).toBe(422);
    expect(mixed.body.detail).toEqual([extra('limt', '10')]);
  });

  it('refuses a query parameter on every API operation, declared parameters or none', async () => {
    type Operation = { parameters?: { in: string; name: string }[]; requestBody?: { required?: boolean } };
    const doc = (await h.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const checked: string[] = [];
    const failures: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        expect(declared).not.toContain('bogus_param');
        const url = `${path.replace('{endpoint_type}', 'vlm').replace(/\{[^}]+\}/g, 'x_unknown')}?bogus_param=1`;
        // Fastify checks the path, then the body, then the query: a body the operation requires is
        // sent as {} here, so a body refused for its own fields is checked below instead.
        const body = operation.requestBody && operation.requestBody.required !== false ? {} : undefined;
        const res = await h.request(method.toUpperCase(), url, { token: root, body });
        const refusedForItsBody = body !== undefined && res.status === 422 && res.body.detail.every((d: { loc: string[] }) => d.loc[0] === 'body');
        if (refusedForItsBody) continue;
        if (res.status !== 422 || !JSON.stringify(res.body.detail).includes('bogus_param')) failures.push(`${method.toUpperCase()} ${url}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        checked.push(`${method} ${path}`);
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toContain('get /v1/me');
    expect(checked).toContain('get /');
    expect(checked.length).toBeGreaterThan(100);
  });

  it('refuses one with a valid JSON body, changing nothing', async () => {
    const res = await h.request('PATCH', '/v1/account/profile?display_name=Ann', { token: member, body: { display_name: 'Bob' } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([extra('display_name', 'Ann')]);
    const me = await h.request('GET', '/v1/me', { token: member });
    expect(me.body.user).toMatchObject({ display_name: null });
    const key = await h.request('POST', '/v1/account/api-keys?role=admin', { token: member, body: { name: 'laptop' } });
    expect(key.status).toBe(422);
    expect(key.body.detail).toEqual([extra('role', 'admin')]);
    expect((await h.request('GET', '/v1/account/api-keys', { token: member })).body.items).toEqual([]);
  });

  it('leaves nothing behind when a state-changing request is refused for its query', async () => {
    const before = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await postForm(h, '/v1/documents?template=tpl_x', member, [{ field: 'file', file: FILES.invoice }]);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual(extra('template', 'tpl_x'));
    const after = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});

describe('unknown body fields', () => {
  it('refuses them in every JSON body that lists its fields, and changes nothing', async () => {
    const job = (await upload(h, member, FILES.invoice)).body.job_id as string;
    expect((await h.request('POST', `/v1/documents/${job}/cancel`, { token: member })).status).toBe(200);
    const cases: [string, string, Record<string, unknown>, string, string?][] = [
      ['POST', `/v1/documents/${job}/reprocess`, { templat_id: 'tpl_x' }, 'templat_id'],
      ['POST', `/v1/documents/${job}/reextract`, { template: 'tpl_x' }, 'template'],
      ['PATCH', '/v1/account/profile', { display_name: 'Ann', nickname: 'A' }, 'nickname'],
      ['POST', '/v1/account/api-keys', { name: 'laptop', scope: 'all' }, 'scope'],
      ['POST', '/v1/templates', { name: 'strict-body', json_schema: { type: 'object', properties: { total: { type: 'number' } } }, active: false }, 'active', root],
      ['POST', '/v1/platform/tenants', { id: 'strict', name: 'Strict', initial_admin_email: 'a@strict.test', plan: 'gold' }, 'plan', root],
      ['POST', '/v1/auth/login', { email: 'x@example.test', password: 'whatever-it-is', remember: true }, 'remember'],
    ];
    for (const [method, path, body, field, token] of cases) {
      const res = await h.request(method, path, { token: token ?? member, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.detail, `${method} ${path}`).toContainEqual(extra(field, body[field], 'body'));
    }
    expect((await h.request('GET', `/v1/documents/${job}`, { token: member })).body.status).toBe('failed');
    expect((await h.request('GET', '/v1/account/api-keys', { token: member })).body.items).toEqual([]);
    expect((await h.request('GET', '/v1/templates?q=strict-body', { token: root })).body.items).toEqual([]);
    expect((await h.request('GET', '/v1/platform/tenants/strict', { token: root })).status).toBe(404);
    // Free-form objects inside a body keep what they are given.
    const flexible = await h.request('POST', '/v1/templates', { token: root, body: { name: 'strict-body', json_schema: { type: 'object', properties: { total: { type: 'number' } }, 'x-anything': 1 } } });
    expect(flexible.status, JSON.stringify(flexible.body)).toBe(201);
  });

  it('refuses them in the upload forms, and queues nothing', async () => {
    const before = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const single = await upload(h, member, FILES.invoice, { templateid: 'tpl_x' });
    expect(single.status).toBe(422);
    expect(single.body.detail).toContainEqual(extra('templateid', 'tpl_x', 'body'));
    const batch = await postForm(h, '/v1/batches', member, [{ field: 'files', file: FILES.invoice }], { processingmode: 'canonical' });
    expect(batch.status).toBe(422);
    expect(batch.body.detail).toContainEqual(extra('processingmode', 'canonical', 'body'));
    const after = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('refuses a file sent under another field (metadata as a file, files[]) instead of dropping it, and queues nothing', async () => {
    const before = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const meta = { name: 'meta.json', bytes: Buffer.from('{"ref":"A-1"}') };
    const single = await postForm(h, '/v1/documents', member, [{ field: 'file', file: FILES.invoice }, { field: 'metadata', file: meta }]);
    expect(single.status, JSON.stringify(single.body)).toBe(422);
    expect(single.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'metadata'], type: 'value_error', input: 'meta.json' })]);
    const brackets = await postForm(h, '/v1/batches', member, [{ field: 'files', file: FILES.invoice }, { field: 'files[]', file: FILES.invoice }]);
    expect(brackets.status, JSON.stringify(brackets.body)).toBe(422);
    expect(brackets.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'files[]'], type: 'value_error' })]);
    const after = await h.db.selectFrom('jobs').select(h.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});
