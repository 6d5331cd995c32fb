// The read path: GET /v1/documents/{job} sends the stored result text without re-serialising it,
// and credentials are cached briefly, with revocation still taking effect at once.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILES, upload, waitFor, waitForJob } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, PASSWORD, startHarness } from '../helpers/harness.js';
import { JobRecord } from '../../src/http/schemas/documents.js';
import { compileBodyValidator } from '../../src/http/validation.js';

let h: Harness;
let member: string;

beforeAll(async () => {
  h = await startHarness({}, { workers: 1 });
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

async function getText(path: string, token: string) {
  const res = await fetch(`${h.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('GET /v1/documents/{job} as stored text', () => {
  const validate = compileBodyValidator(JobRecord);

  it('answers the schema\'s shape, with the result the job stored and the fields the list shows', async () => {
    const res = await upload(h, member, FILES.multipage, { processing_mode: 'entities' });
    const done = await waitForJob(h, member, res.body.job_id);
    expect(done.status).toBe('completed');
    const got = await getText(`/v1/documents/${done.job_id}`, member);
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/json; charset=utf-8');
    const body = JSON.parse(got.text);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(body).sort()).toEqual(Object.keys(JobRecord.properties).sort());

    // The result is the stored one: its canonical part is the canonical_json artifact.
    const canonicalArtifact = body.artifacts.find((a: { kind: string }) => a.kind === 'canonical_json');
    const stored = await getText(canonicalArtifact.url, member);
    expect(body.result.canonical).toEqual(JSON.parse(stored.text));
    expect(sha(stored.text)).toBe(canonicalArtifact.sha256);
    // Byte for byte in fact: the database keeps the text as written (json, not jsonb's re-ordered keys).
    expect(got.text).toContain(`"canonical":${stored.text}`);
    expect(Array.isArray(body.result.entities)).toBe(true);
    const { rows } = await sql<{ result: unknown }>`SELECT result FROM jobs WHERE id = ${done.job_id}`.execute(h.db);
    expect(body.result).toEqual(rows[0]!.result);

    // Every other field is what the schema-serialised list says about the same job.
    const list = await h.request('GET', '/v1/documents?limit=200', { token: member });
    const item = list.body.items.find((j: { job_id: string }) => j.job_id === done.job_id);
    const { artifacts, result, deliveries, review_history, ...fields } = body;
    expect(deliveries).toEqual([]);
    expect(review_history).toEqual([]);
    const { artifacts: listed, ...itemFields } = item;
    expect(fields).toEqual(itemFields);
    expect(listed).toEqual(artifacts.filter((a: { kind: string }) => a.kind !== 'page_image'));
    expect(result).not.toBeNull();
  });

  it('answers result null for a job that has none, and 404 for another tenant\'s job', async () => {
    const res = await upload(h, member, FILES.empty, { processing_mode: 'canonical' });
    const done = await waitForJob(h, member, res.body.job_id);
    expect(done.status).toBe('failed');
    const got = await getText(`/v1/documents/${done.job_id}`, member);
    const body = JSON.parse(got.text);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(body.result).toBeNull();

    await h.seedTenant('readpathother');
    const stranger = (await h.seedUser('readpathother', 'admin')).token!;
    expect((await getText(`/v1/documents/${done.job_id}`, stranger)).status).toBe(404);
    expect((await getText('/v1/documents/job_missing', member)).status).toBe(404);
  });
});

describe('cached credentials', () => {
  const me = (token: string) => h.request('GET', '/v1/me', { token });

  it('a session signed out is refused on the very next request', async () => {
    const user = await h.seedUser(DEFAULT_TENANT_ID, 'member');
    const token = await h.login(user.email, PASSWORD);
    for (let i = 0; i < 3; i++) expect((await me(token)).status).toBe(200);
    expect((await h.request('POST', '/v1/auth/logout', { token })).status).toBeLessThan(300);
    expect((await me(token)).status).toBe(401);
  });

  it('an API key revoked is refused on the very next request', async () => {
    const created = await h.request('POST', '/v1/account/api-keys', { token: member, body: { name: 'cache-check' } });
    expect(created.status).toBe(201);
    const key = created.body.secret as string;
    for (let i = 0; i < 3; i++) expect((await me(key)).status).toBe(200);
    expect((await h.request('POST', `/v1/account/api-keys/${created.body.public_id}/revoke`, { token: member })).status).toBeLessThan(300);
    expect((await me(key)).status).toBe(401);
  });

  it('a change made by another process (straight in the database) reaches the cache through NOTIFY', async () => {
    const user = await h.seedUser(DEFAULT_TENANT_ID, 'member');
    const token = await h.login(user.email, PASSWORD);
    for (let i = 0; i < 3; i++) expect((await me(token)).status).toBe(200);
    await sql`UPDATE users SET status = 'suspended' WHERE id = ${user.id}`.execute(h.db);
    // Well inside the cache's 5-second lifetime: only the NOTIFY can make this 401 in time.
    await waitFor('the suspended user to be refused', async () => (await me(token)).status === 401, 2_000, 20);

    const other = await h.seedUser(DEFAULT_TENANT_ID, 'member');
    const second = await h.login(other.email, PASSWORD);
    expect((await me(second)).status).toBe(200);
    await sql`UPDATE sessions SET revoked_at = now() WHERE token_hash = ${sha(second)}`.execute(h.db);
    await waitFor('the revoked session to be refused', async () => (await me(second)).status === 401, 2_000, 20);
  });
});
