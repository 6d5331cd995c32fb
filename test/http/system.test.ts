import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { type ApiClient, apiClient } from '../helpers/api-client.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let api: ApiClient;
beforeAll(async () => {
  h = await startHarness();
  api = apiClient(h.baseUrl);
});
afterAll(() => h.close());

describe('root and health', () => {
  it('describes the service at /', async () => {
    const res = await api.GET('/');
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ name: 'Quire', version: 'test', api_version: '2.4.3', docs: '/docs', openapi: '/openapi.json' });
  });

  it('answers the probes', async () => {
    expect((await api.GET('/v1/health/live')).data).toEqual({ status: 'ok' });
    expect((await api.GET('/v1/health/ready')).response.status).toBe(200);
    const health = await api.GET('/v1/health');
    expect(health.data).toMatchObject({ status: 'ok', database: 'ok', queue: { queued: 0, processing: 0 }, workers: 0 });
  });

  it('echoes a request id, or makes one', async () => {
    const given = await api.GET('/v1/health/live', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.response.headers.get('x-request-id')).toBe('trace-123');
    const made = await api.GET('/v1/health/live');
    expect(made.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('OpenAPI', () => {
  it('documents every one of the 124 operations in endpoints.txt', async () => {
    const res = await h.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('2.4.3');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const expected = readFileSync(new URL('../../../shared/spec/endpoints.txt', import.meta.url), 'utf8').trim().split('\n');
    expect(expected).toHaveLength(124);
    const missing = expected.filter((line) => !documented.has(line));
    expect(missing).toEqual([]);
  });

  it('states what interface.md states: optional bodies, the 422 shape on every operation with a body, and the statuses it names', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> }; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    const op = (method: string, path: string) => doc.paths[path]![method]!;
    for (const [method, path] of [['post', '/v1/documents/{job_id}/reprocess'], ['post', '/v1/reviews/{review_id}/approve'], ['post', '/v1/reviews/{review_id}/reprocess'], ['post', '/v1/batches/{batch_id}/reprocess']] as const) {
      expect(op(method, path).requestBody?.required, path).toBe(false);
      expect(JSON.stringify(op(method, path).requestBody)).not.toContain('x-quire');
    }
    expect(op('post', '/v1/templates').requestBody?.required).toBe(true);
    const withBody = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, o]) => o.requestBody).map(([method, o]) => [`${method} ${path}`, o] as const));
    expect(withBody.length).toBeGreaterThan(30);
    for (const [name, o] of withBody) expect(o.responses['422']?.content?.['application/json']?.schema.$ref, name).toBe('#/components/schemas/HTTPValidationError');
    expect(doc.components.schemas.HTTPValidationError!.required ?? []).not.toContain('detail');
    expect(Object.keys(op('post', '/v1/documents/{job_id}/reprocess').responses)).toContain('400');
    expect(Object.keys(op('get', '/v1/health/ready').responses)).toContain('503');
  });

  it('serves browsable docs at /docs', async () => {
    const res = await h.request('GET', '/docs/');
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('swagger');
  });
});

describe('errors', () => {
  it('answers unknown routes with 404 and a code', async () => {
    const res = await h.request('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'route_not_found' });
  });

  it('asks for a bearer token with WWW-Authenticate', async () => {
    const res = await api.GET('/v1/me');
    expect(res.response.status).toBe(401);
    expect(res.response.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.error).toEqual({ detail: expect.any(String), code: 'unauthorized' });
    const bad = await apiClient(h.baseUrl, { token: 'qs_not-a-real-token' }).GET('/v1/me');
    expect(bad.response.status).toBe(401);
  });

  it('rejects malformed JSON as a 422 json_invalid', async () => {
    const token = await h.adminToken();
    const res = await h.request('POST', '/v1/templates', { token, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it('rejects an unsupported content type with 415', async () => {
    const token = await h.adminToken();
    const res = await h.request('POST', '/v1/templates', { token, raw: 'name=x', headers: { 'content-type': 'text/csv' } });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('rejects an oversized JSON body with 413', async () => {
    const token = await h.adminToken();
    const huge = JSON.stringify({ name: 'x', json_schema: { pad: 'x'.repeat(3 * 1024 * 1024) } });
    const res = await h.request('POST', '/v1/templates', { token, raw: huge, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('validates the body before looking anything up', async () => {
    const token = await h.adminToken();
    const invalid = await h.request('PATCH', '/v1/admin/connections/con_x', { token, body: { name: 'Bad Name!', direction: 'sideways' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'name'], type: 'string_pattern_mismatch', input: 'Bad Name!' }),
        expect.objectContaining({ loc: ['body', 'direction'], type: 'enum' }),
      ]),
    );
    const valid = await apiClient(h.baseUrl, { token }).PATCH('/v1/admin/connections/{connection_id}', { params: { path: { connection_id: 'con_x' } }, body: { name: 'sftp drop' } });
    expect(valid.response.status).toBe(404);
    expect(valid.error).toEqual({ detail: expect.any(String), code: 'not_found' });
  });
});
