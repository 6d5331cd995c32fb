// Every list takes `limit` and `cursor` and answers {items, next_cursor} (decisions.md "Lists"),
// also the ones that were answered whole: a template's versions, the infrastructure endpoint
// lists and the model backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type Harness, type Reply, startHarness } from '../helpers/harness.js';
import { expect422 } from '../helpers/expect-errors.js';

let h: Harness;
let root: string;
let admin: string;
let member: string;

beforeAll(async () => {
  h = await startHarness();
  root = await h.adminToken();
  admin = (await h.seedUser(DEFAULT_TENANT_ID, 'admin')).token!;
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

/** Walks a list page by page with `limit`, answering each page's items. */
async function walk(path: string, token: string, limit: number, key: (item: any) => unknown): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: Reply = await h.request('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['items', 'next_cursor']);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    pages.push(res.body.items.map(key));
    cursor = res.body.next_cursor;
  } while (cursor && pages.length < 20);
  return pages;
}

const badCursor = (input: string) => ({ loc: ['query', 'cursor'], msg: 'Cursor is not one this API issued', type: 'value_error', input });

describe('template versions', () => {
  it('page newest first, filter on version, and refuse a cursor they did not issue', async () => {
    const schema = { type: 'object', properties: { total: { type: 'number' } } };
    const created = await h.request('POST', '/v1/templates', { token: admin, body: { name: 'paged', json_schema: schema } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (let i = 2; i <= 5; i++) {
      expect((await h.request('PUT', `/v1/templates/${id}`, { token: admin, body: { name: 'paged', description: `v${i}`, json_schema: schema } })).status).toBe(200);
    }

    expect(await walk(`/v1/templates/${id}/versions`, member, 2, (v) => v.version)).toEqual([[5, 4], [3, 2], [1]]);
    const all = await h.request('GET', `/v1/templates/${id}/versions`, { token: member });
    expect(all.body.items.map((v: { version: number }) => v.version)).toEqual([5, 4, 3, 2, 1]);
    expect(all.body.next_cursor).toBeNull();

    const one = await h.request('GET', `/v1/templates/${id}/versions?version=3`, { token: member });
    expect(one.body).toEqual({ items: [expect.objectContaining({ version: 3, template: expect.objectContaining({ description: 'v3' }) })], next_cursor: null });
    expect((await h.request('GET', `/v1/templates/${id}/versions?version=9`, { token: member })).body).toEqual({ items: [], next_cursor: null });

    expect422(await h.request('GET', `/v1/templates/${id}/versions?limit=0`, { token: member }), expect.objectContaining({ loc: ['query', 'limit'], type: 'greater_than_equal' }));
    expect422(await h.request('GET', `/v1/templates/${id}/versions?cursor=nope`, { token: member }), badCursor('nope'));
    // A cursor of another list is not one of this list.
    expect((await h.request('POST', '/v1/templates', { token: admin, body: { name: 'paged-two', json_schema: schema } })).status).toBe(201);
    const other = (await h.request('GET', '/v1/templates?limit=1', { token: member })).body.next_cursor as string;
    expect(other).toEqual(expect.any(String));
    expect422(await h.request('GET', `/v1/templates/${id}/versions?cursor=${other}`, { token: member }), badCursor(other));
  });
});

describe('lists of one entry per kind', () => {
  it('page the model backends in their fixed order', async () => {
    expect(await walk('/v1/admin/forge-endpoints/backends/list', admin, 3, (b) => b.backend)).toEqual([['anthropic', 'bedrock', 'vertex'], ['custom_url']]);
    expect(await walk('/v1/admin/forge-endpoints/backends/list', admin, 50, (b) => b.backend)).toEqual([['anthropic', 'bedrock', 'vertex', 'custom_url']]);
    expect422(await h.request('GET', '/v1/admin/forge-endpoints/backends/list?cursor=abc', { token: admin }), badCursor('abc'));
  });

  it('page the platform and tenant infrastructure endpoints in the order of their types', async () => {
    expect(await walk('/v1/admin/platform/infra', root, 2, (e) => e.endpoint_type)).toEqual([[]]);
    const smtp = await h.request('PUT', '/v1/admin/platform/infra/smtp', { token: root, body: { host: '127.0.0.1', port: 2525, from: 'Quire <no-reply@quire.test>' } });
    expect(smtp.status, JSON.stringify(smtp.body)).toBe(200);
    const ocr = await h.request('PUT', '/v1/admin/platform/infra/ocr', { token: root, body: { base_url: 'http://127.0.0.1:9/ocr' } });
    expect(ocr.status, JSON.stringify(ocr.body)).toBe(200);
    const vlm = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: root, body: { backend: 'custom_url', model: 'm', base_url: 'http://127.0.0.1:9/v1' } });
    expect(vlm.status, JSON.stringify(vlm.body)).toBe(200);

    expect(await walk('/v1/admin/platform/infra', root, 2, (e) => e.endpoint_type)).toEqual([['vlm', 'ocr'], ['smtp']]);
    expect(await walk('/v1/admin/platform/infra', root, 1, (e) => e.endpoint_type)).toEqual([['vlm'], ['ocr'], ['smtp']]);
    expect(await walk(`/v1/admin/tenants/${DEFAULT_TENANT_ID}/infra`, admin, 2, (e) => `${e.endpoint_type}:${e.scope}`)).toEqual([['vlm:platform', 'ocr:platform'], ['smtp:platform']]);

    // A page resumes after the type its cursor names, whatever was added or removed meanwhile.
    const first = await h.request('GET', '/v1/admin/platform/infra?limit=1', { token: root });
    expect(first.body.items.map((e: { endpoint_type: string }) => e.endpoint_type)).toEqual(['vlm']);
    expect((await h.request('PUT', '/v1/admin/platform/infra/judge', { token: root, body: { backend: 'custom_url', model: 'j', base_url: 'http://127.0.0.1:9/v1' } })).status).toBe(200);
    const next = await h.request('GET', `/v1/admin/platform/infra?limit=2&cursor=${first.body.next_cursor}`, { token: root });
    expect(next.body.items.map((e: { endpoint_type: string }) => e.endpoint_type)).toEqual(['judge', 'ocr']);

    expect422(await h.request('GET', '/v1/admin/platform/infra?limit=201', { token: root }), expect.objectContaining({ loc: ['query', 'limit'], type: 'less_than_equal' }));
    const forged = Buffer.from(JSON.stringify(['after', 'fax'])).toString('base64url');
    expect422(await h.request('GET', `/v1/admin/tenants/${DEFAULT_TENANT_ID}/infra?cursor=${forged}`, { token: admin }), badCursor(forged));
  });
});
