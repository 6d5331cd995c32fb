// A query parameter an operation does not take is a 422 at the parameter, never silently ignored:
// a misspelt filter must not answer every row as if no filter had been asked for.
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

const extra = (name: string, input: unknown) => ({ loc: ['query', name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input });

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
