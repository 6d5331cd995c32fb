// Forge and infrastructure endpoints through HTTP: CRUD, per-backend validation, scope rules,
// tenant isolation, credentials never shown, and `test` round trips against loopback servers.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { expect422, expectError } from '../helpers/expect-errors.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type LoopbackHttp, type LoopbackSmtp, openAiHandler, startHttpServer, startSmtpServer } from '../helpers/loopback-servers.js';

let h: Harness;
let root: string;
let acmeAdmin: string;
let acmeMember: string;
let globexAdmin: string;
let openai: LoopbackHttp;
let ocr: LoopbackHttp;
let smtp: LoopbackSmtp;

const SECRETS = ['sk-anthropic-secret-1', 'sk-local-secret-2', 'AKIA-SECRET-3', 'aws-secret-4', 'smtp-password-5', 'ocr-key-6', 'sk-rotated-secret-7'];

beforeAll(async () => {
  // Loopback servers are private addresses: only 127.0.0.1 is let through, everything else is refused.
  h = await startHarness({ outboundAllow: ['127.0.0.1'] });
  root = await h.adminToken();
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  acmeAdmin = (await h.seedUser('acme', 'admin')).token!;
  acmeMember = (await h.seedUser('acme', 'member')).token!;
  globexAdmin = (await h.seedUser('globex', 'admin')).token!;
  openai = await startHttpServer(openAiHandler('sk-local-secret-2'));
  ocr = await startHttpServer((req) =>
    req.headers.authorization === 'Bearer ocr-key-6' ? { status: 200, json: { width: 64, height: 32, words: [] } } : { status: 401, json: { detail: 'bad key' } },
  );
  smtp = await startSmtpServer({ username: 'mailer', password: 'smtp-password-5' });
});
afterAll(async () => {
  await openai?.close();
  await ocr?.close();
  await smtp?.close();
  await h?.close();
});

const anthropicBody = { name: 'claude', backend: 'anthropic', model: 'claude-sonnet-4-5', credentials: { api_key: 'sk-anthropic-secret-1' } };

function noSecretsIn(value: unknown) {
  const text = JSON.stringify(value);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

async function enableOverrides(tenant: string, enabled: boolean) {
  const res = await h.request('PATCH', `/v1/admin/tenant-policy/${tenant}`, { token: root, body: { tenant_infra_overrides_enabled: enabled } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('forge endpoints', () => {
  it('refuses members and anonymous callers', async () => {
    expect((await h.request('GET', '/v1/admin/forge-endpoints')).status).toBe(401);
    expectError(await h.request('GET', '/v1/admin/forge-endpoints', { token: acmeMember }), 403, 'insufficient_role');
  });

  it('lists the backends with the fields and credential keys each needs', async () => {
    const res = await h.request('GET', '/v1/admin/forge-endpoints/backends/list', { token: acmeAdmin });
    expect(res.status).toBe(200);
    expect(res.body.items.map((b: { backend: string }) => b.backend)).toEqual(['anthropic', 'bedrock', 'vertex', 'custom_url']);
    expect(res.body.items[1]).toMatchObject({ required_fields: ['model', 'aws_region'], required_credentials: ['access_key_id', 'secret_access_key'], optional_credentials: ['session_token'] });
  });

  it('creates, reads, lists, updates, defaults and deletes, showing only which credential keys are set', async () => {
    const first = await h.request('POST', '/v1/admin/forge-endpoints', { token: acmeAdmin, body: anthropicBody });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ id: expect.stringMatching(/^fep_/), tenant_id: 'acme', name: 'claude', backend: 'anthropic', credentials: { api_key: 'set' }, is_default_for_tenant: true, base_url: null, price_per_mtok: null });
    const second = await h.request('POST', '/v1/admin/forge-endpoints', {
      token: acmeAdmin,
      body: { name: 'bedrock', backend: 'bedrock', model: 'anthropic.claude-3-haiku', aws_region: 'eu-west-1', credentials: { access_key_id: 'AKIA-SECRET-3', secret_access_key: 'aws-secret-4' }, default_max_turns: 4 },
    });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ is_default_for_tenant: false, credentials: { access_key_id: 'set', secret_access_key: 'set' }, default_max_turns: 4 });

    const list = await h.request('GET', '/v1/admin/forge-endpoints', { token: acmeAdmin });
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([second.body.id, first.body.id]);
    expect(list.body.next_cursor).toBeNull();

    const made = await h.request('POST', `/v1/admin/forge-endpoints/${second.body.id}/set-default`, { token: acmeAdmin });
    expect(made.body.is_default_for_tenant).toBe(true);
    expect((await h.request('GET', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin })).body.is_default_for_tenant).toBe(false);

    const renamed = await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { name: 'claude-2', model: 'claude-opus-4', default_max_turns: 2.5, default_max_budget_usd: 1.25, credentials: null } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'claude-2', model: 'claude-opus-4', default_max_turns: 2.5, default_max_budget_usd: 1.25, credentials: { api_key: 'set' } });
    const rotated = await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { credentials: { api_key: 'sk-rotated-secret-7' } } });
    expect(rotated.body.credentials).toEqual({ api_key: 'set' });
    // Stored credentials never follow the endpoint to another address.
    const moved = await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { base_url: 'https://collector.example.com' } });
    expect(moved.status).toBe(422);
    expect(moved.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'credentials'] })]);
    const priced = await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { price_per_mtok: { input: 3, output: 15 } } });
    expect(priced.body).toMatchObject({ price_per_mtok: { input: 3, output: 15 }, default_max_turns: 2.5 });
    expect((await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { price_per_mtok: { input: -1, output: 15 } } })).status).toBe(422);
    // A field that cannot change (backend) or does not exist is refused, not ignored.
    for (const body of [{ backend: 'bedrock' }, { name: 'x', extra: 1 }]) {
      const res = await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].type).toBe('extra_forbidden');
    }
    const absurd = await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { price_per_mtok: { input: 3, output: 1e308 } } });
    expect(absurd.status).toBe(422);
    expect(JSON.stringify(absurd.body)).toContain('price_per_mtok');
    expect((await h.request('PUT', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin, body: { price_per_mtok: null } })).body.price_per_mtok).toBeNull();

    for (const res of [first, second, list, made, renamed, rotated]) noSecretsIn(res.body);
    const stored = await h.db.selectFrom('forge_endpoints').select('credentials_sealed').execute();
    noSecretsIn(stored);

    expectError(await h.request('POST', '/v1/admin/forge-endpoints', { token: acmeAdmin, body: { ...anthropicBody, name: 'claude-2' } }), 409, 'endpoint_name_taken');
    expect((await h.request('DELETE', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin })).status).toBe(204);
    expectError(await h.request('GET', `/v1/admin/forge-endpoints/${first.body.id}`, { token: acmeAdmin }), 404, 'not_found');
  });

  it('validates credentials per backend, located at credentials', async () => {
    const post = (body: Record<string, unknown>) => h.request('POST', '/v1/admin/forge-endpoints', { token: acmeAdmin, body });
    expect422(await post({ ...anthropicBody, credentials: {} }), { loc: ['body', 'credentials', 'api_key'], msg: 'Field required for backend anthropic', type: 'missing' });
    expect422(await post({ ...anthropicBody, credentials: { api_key: 'sk-anthropic-secret-1', password: 'x' } }), {
      loc: ['body', 'credentials', 'password'],
      msg: 'Extra inputs are not permitted: backend anthropic takes api_key',
      type: 'extra_forbidden',
    });
    expect422(await post({ name: 'b', backend: 'bedrock', model: 'm', credentials: { access_key_id: 'AKIA-SECRET-3' } }), { loc: ['body', 'aws_region'], msg: 'Field required for backend bedrock', type: 'missing', input: null }, { loc: ['body', 'credentials', 'secret_access_key'], msg: 'Field required for backend bedrock', type: 'missing' });
    const vertex = await post({ name: 'v', backend: 'vertex', model: 'gemini-2.5-pro', gcp_project: 'p', gcp_region: 'europe-west4', credentials: { service_account_json: '{"client_email": "a@b"}' } });
    expect(vertex.status).toBe(422);
    expect(vertex.body.detail[0]).toMatchObject({ loc: ['body', 'credentials', 'service_account_json'], type: 'value_error' });
    // gcp_project is optional when the key names its project_id (the calls then go to that project).
    const key = (extra: Record<string, unknown>) => JSON.stringify({ type: 'service_account', client_email: 'quire@p.iam.gserviceaccount.com', private_key: 'not-checked-here', ...extra });
    expect422(await post({ name: 'v', backend: 'vertex', model: 'gemini-2.5-pro', gcp_region: 'europe-west4', credentials: { service_account_json: key({}) } }), { loc: ['body', 'gcp_project'], msg: 'Field required for backend vertex', type: 'missing', input: null });
    const fromKey = await post({ name: 'vertex-from-key', backend: 'vertex', model: 'gemini-2.5-pro', gcp_region: 'europe-west4', credentials: { service_account_json: key({ project_id: 'key-project' }) } });
    expect(fromKey.status, JSON.stringify(fromKey.body)).toBe(201);
    expect(fromKey.body.gcp_project).toBeNull();
    expect((await h.request('DELETE', `/v1/admin/forge-endpoints/${fromKey.body.id}`, { token: acmeAdmin })).status).toBe(204);
    expect422(await post({ name: 'c', backend: 'custom_url', model: 'llama', credentials: {} }), { loc: ['body', 'base_url'], msg: 'Field required for backend custom_url', type: 'missing', input: null });
    expect422(await post({ name: 'c', backend: 'custom_url', model: 'llama', base_url: 'ftp://x', credentials: {} }), { loc: ['body', 'base_url'], msg: 'Input should be a valid URL with an http or https scheme', type: 'url_parsing', input: 'ftp://x' });
    const unknown = await post({ ...anthropicBody, backend: 'openai' });
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'backend'], type: 'enum' });
    expect422(await post({ name: 'x', backend: 'anthropic', model: 'm' }), { loc: ['body', 'credentials'], msg: 'Field required', type: 'missing', input: { name: 'x', backend: 'anthropic', model: 'm' } });
    // A validation error never echoes a credential value, and nothing was stored.
    noSecretsIn((await post({ ...anthropicBody, credentials: { api_key: 'sk-anthropic-secret-1', extra: 'sk-local-secret-2' } })).body);
    expect((await h.db.selectFrom('forge_endpoints').select('name').where('name', 'in', ['b', 'v', 'c', 'x']).execute()).length).toBe(0);
  });

  it('keeps each tenant to its own endpoints (another tenant sees 404)', async () => {
    const own = await h.request('POST', '/v1/admin/forge-endpoints', { token: globexAdmin, body: { ...anthropicBody, name: 'globex-claude' } });
    expect(own.body.tenant_id).toBe('globex');
    for (const [method, path, body] of [
      ['GET', `/v1/admin/forge-endpoints/${own.body.id}`],
      ['PUT', `/v1/admin/forge-endpoints/${own.body.id}`, { name: 'stolen' }],
      ['DELETE', `/v1/admin/forge-endpoints/${own.body.id}`],
      ['POST', `/v1/admin/forge-endpoints/${own.body.id}/set-default`],
    ] as [string, string, unknown?][]) {
      expectError(await h.request(method, path, { token: acmeAdmin, ...(body ? { body } : {}) }), 404, 'not_found');
    }
    expect((await h.request('GET', '/v1/admin/forge-endpoints', { token: acmeAdmin })).body.items.some((e: { id: string }) => e.id === own.body.id)).toBe(false);
    expectError(await h.request('POST', '/v1/admin/forge-endpoints', { token: acmeAdmin, body: { ...anthropicBody, name: 'sneaky', tenant_id: 'globex' } }), 404, 'not_found');
    // A platform admin may create for any tenant.
    const forGlobex = await h.request('POST', '/v1/admin/forge-endpoints', { token: root, body: { ...anthropicBody, name: 'by-platform', tenant_id: 'globex' } });
    expect(forGlobex.body).toMatchObject({ tenant_id: 'globex', is_default_for_tenant: false });
  });
});

describe('infrastructure endpoints', () => {
  const customUrl = () => ({ backend: 'custom_url', model: 'llama-3.1-8b', base_url: `${openai.url}/v1`, credentials: { api_key: 'sk-local-secret-2' }, price_per_mtok: { input: 0.1, output: 0.2 } });

  it('lets only platform admins manage platform endpoints', async () => {
    expectError(await h.request('GET', '/v1/admin/platform/infra', { token: acmeAdmin }), 403, 'insufficient_role');
    expectError(await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: acmeAdmin, body: customUrl() }), 403, 'insufficient_role');
    expectError(await h.request('GET', '/v1/admin/platform/infra/judge', { token: root }), 404, 'not_found');
    expect422(await h.request('GET', '/v1/admin/platform/infra/fax', { token: root }), { loc: ['path', 'endpoint_type'], msg: "Input should be 'vlm', 'judge', 'ocr' or 'smtp'", type: 'enum', input: 'fax', ctx: { expected: "'vlm', 'judge', 'ocr' or 'smtp'" } });
  });

  it('stores a platform vlm endpoint with defaults filled in and tests it against an OpenAI-compatible server', async () => {
    const put = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: root, body: customUrl() });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({
      endpoint_type: 'vlm',
      scope: 'platform',
      tenant_id: null,
      backend: 'custom_url',
      model: 'llama-3.1-8b',
      base_url: `${openai.url}/v1`,
      aws_region: null,
      gcp_project: null,
      gcp_region: null,
      timeout_seconds: 120,
      max_retries: 3,
      price_per_mtok: { input: 0.1, output: 0.2 },
      credentials: { api_key: 'set' },
      updated_at: expect.any(String),
    });
    const before = openai.requests.length;
    const test = await h.request('POST', '/v1/admin/platform/infra/vlm/test', { token: root });
    expect(test.body).toEqual({ ok: true, latency_ms: expect.any(Number), detail: 'custom_url: model llama-3.1-8b answered' });
    const sent = openai.requests[before]!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-local-secret-2');
    expect(JSON.parse(sent.body.toString())).toMatchObject({ model: 'llama-3.1-8b', max_tokens: 1 });

    // A PUT without credentials keeps them (same backend); a wrong key makes the test fail plainly.
    const kept = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: root, body: { ...customUrl(), credentials: undefined, timeout_seconds: 30 } });
    expect(kept.body).toMatchObject({ credentials: { api_key: 'set' }, timeout_seconds: 30 });
    // ...but never to another address: re-pointed, the endpoint needs its credentials again.
    const repointed = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: root, body: { ...customUrl(), base_url: 'https://collector.example.com/v1', credentials: undefined } });
    expect(repointed.status).toBe(422);
    expect(repointed.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'credentials'], type: 'missing' })]);
    expect((await h.request('GET', '/v1/admin/platform/infra/vlm', { token: root })).body.base_url).toBe(`${openai.url}/v1`);
    const overpriced = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: root, body: { ...customUrl(), price_per_mtok: { input: 1e308, output: 1 } } });
    expect(overpriced.status).toBe(422);
    // Refused as a whole: the endpoint keeps its price.
    const again = await h.request('PUT', '/v1/admin/platform/infra/vlm', { token: root, body: { ...customUrl(), credentials: undefined, timeout_seconds: 30 } });
    expect(again.body.price_per_mtok).toEqual({ input: 0.1, output: 0.2 });
    await h.request('PUT', '/v1/admin/platform/infra/judge', { token: root, body: { ...customUrl(), credentials: { api_key: 'sk-wrong-key' } } });
    const failed = await h.request('POST', '/v1/admin/platform/infra/judge/test', { token: root });
    expect(failed.body).toMatchObject({ ok: false, detail: 'custom_url: the endpoint answered HTTP 401: Incorrect API key provided' });
    expect(failed.body.detail).not.toContain('sk-wrong-key');
  });

  it('refuses a round trip to an address the SSRF guard blocks', async () => {
    await h.request('PUT', '/v1/admin/platform/infra/judge', { token: root, body: { ...customUrl(), base_url: 'http://10.255.255.1:8000/v1' } });
    const blocked = await h.request('POST', '/v1/admin/platform/infra/judge/test', { token: root });
    expect(blocked.body).toMatchObject({ ok: false, detail: expect.stringMatching(/^custom_url: blocked: .*10\.255\.255\.1/) });
  });

  it('tests a keyless custom_url endpoint without an Authorization header, as its extraction calls go', async () => {
    // A server in front of which a proxy refuses any key it does not know (decisions.md: the
    // Bearer header only "when one is set").
    const keyless = await startHttpServer((req) =>
      req.headers.authorization !== undefined
        ? { status: 401, json: { error: { message: 'unknown API key', type: 'invalid_request_error' } } }
        : { status: 200, json: { id: 'c1', object: 'chat.completion', created: 1, model: 'local', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'length' }] } },
    );
    try {
      await h.seedTenant('keyless');
      await enableOverrides('keyless', true);
      const put = await h.request('PUT', '/v1/admin/tenants/keyless/infra/vlm', { token: root, body: { backend: 'custom_url', model: 'local', base_url: `${keyless.url}/v1` } });
      expect(put.body).toMatchObject({ credentials: {} });
      const test = await h.request('POST', '/v1/admin/tenants/keyless/infra/vlm/test', { token: root });
      expect(test.body).toEqual({ ok: true, latency_ms: expect.any(Number), detail: 'custom_url: model local answered' });
      expect(keyless.requests).toHaveLength(1);
      expect(keyless.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await keyless.close();
    }
  });

  it('validates each type body', async () => {
    const put = (type: string, body: unknown) => h.request('PUT', `/v1/admin/platform/infra/${type}`, { token: root, body });
    expect422(await put('smtp', { host: 'mail', from: 'a@b.c' }), { loc: ['body', 'port'], msg: 'Field required', type: 'missing', input: { host: 'mail', from: 'a@b.c' } });
    // A sender that is no mailbox, or would add headers to every mail; a host with a space in it.
    for (const [body, field] of [
      [{ host: 'mail', port: 25, from: 'not-an-email' }, 'from'],
      [{ host: 'mail', port: 25, from: 'ops@example.com\r\nBcc: all@example.com' }, 'from'],
      [{ host: 'Quire\r\nBcc: x@y.z <q@example.com>', port: 25, from: 'q@example.com' }, 'host'],
      [{ host: 'mail x.test', port: 25, from: 'q@example.com' }, 'host'],
    ] as const) {
      const res = await put('smtp', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc, JSON.stringify(body)).toEqual(['body', field]);
    }
    expect((await put('smtp', { host: 'mail.example.com', port: 25, from: 'Quire Mail <no-reply@example.com>' })).status).toBe(200);
    const extra = await put('smtp', { host: 'mail', port: 25, from: 'a@b.c', credentials: { username: 'u', password: 'smtp-password-5', token: 'x' } });
    expect(extra.status).toBe(422);
    noSecretsIn(extra.body);
    expect422(await put('ocr', { base_url: 'not a url' }), { loc: ['body', 'base_url'], msg: 'Input should be a valid URL with an http or https scheme', type: 'url_parsing', input: 'not a url' });
    expect422(await put('vlm', { backend: 'anthropic', model: 'claude' }), { loc: ['body', 'credentials', 'api_key'], msg: 'Field required for backend anthropic', type: 'missing' });
    expect422(await put('vlm', { ...customUrl(), max_retries: 99 }), { loc: ['body', 'max_retries'], msg: 'Input should be less than or equal to 10', type: 'less_than_equal', input: 99, ctx: { le: 10 } });
  });

  it('tests smtp with a real SMTP session and ocr with the remote OCR protocol', async () => {
    const putSmtp = await h.request('PUT', '/v1/admin/platform/infra/smtp', { token: root, body: { host: '127.0.0.1', port: smtp.port, from: 'Quire <no-reply@quire.test>', credentials: { username: 'mailer', password: 'smtp-password-5' } } });
    expect(putSmtp.body).toMatchObject({ host: '127.0.0.1', port: smtp.port, secure: false, credentials: { username: 'set', password: 'set' } });
    const smtpTest = await h.request('POST', '/v1/admin/platform/infra/smtp/test', { token: root });
    expect(smtpTest.body, JSON.stringify(smtpTest.body)).toMatchObject({ ok: true, detail: expect.stringContaining('accepted the session and the login') });
    expect(smtp.logins.at(-1)).toEqual({ username: 'mailer', password: 'smtp-password-5' });
    // The stored login goes to this host and port only: moved, the endpoint needs it again.
    const mailer = { host: '127.0.0.1', port: smtp.port, from: 'Quire <no-reply@quire.test>' };
    const moved = await h.request('PUT', '/v1/admin/platform/infra/smtp', { token: root, body: { ...mailer, port: smtp.port + 1 } });
    expect(moved.status).toBe(422);
    expect(moved.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'credentials'], type: 'missing' })]);
    expect((await h.request('PUT', '/v1/admin/platform/infra/smtp', { token: root, body: { ...mailer, from: 'Ops <ops@quire.test>' } })).body.credentials).toEqual({ username: 'set', password: 'set' });

    await h.request('PUT', '/v1/admin/platform/infra/ocr', { token: root, body: { base_url: ocr.url, credentials: { api_key: 'ocr-key-6' } } });
    const ocrTest = await h.request('POST', '/v1/admin/platform/infra/ocr/test', { token: root });
    expect(ocrTest.body).toMatchObject({ ok: true, detail: 'ocr: the OCR service read a test page (0 words)' });
    const sent = ocr.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', url: '/recognize' });
    expect(sent.headers['content-type']).toBe('image/png');
    expect(sent.body.subarray(1, 4).toString()).toBe('PNG');
  });

  it('lets a tenant override only while its policy allows it, and shows the effective endpoint of each type', async () => {
    const tenantVlm = `/v1/admin/tenants/acme/infra/vlm`;
    const denied = await h.request('PUT', tenantVlm, { token: acmeAdmin, body: customUrl() });
    expectError(denied, 403, 'tenant_infra_overrides_disabled');
    expect(denied.body.detail).toContain('tenant_infra_overrides_enabled');

    const inherited = await h.request('GET', '/v1/admin/tenants/acme/infra', { token: acmeAdmin });
    expect(inherited.body.items.map((e: { endpoint_type: string; scope: string }) => `${e.endpoint_type}:${e.scope}`)).toEqual(['vlm:platform', 'judge:platform', 'ocr:platform', 'smtp:platform']);

    await enableOverrides('acme', true);
    const own = await h.request('PUT', tenantVlm, { token: acmeAdmin, body: { ...customUrl(), model: 'acme-model' } });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toMatchObject({ scope: 'tenant', tenant_id: 'acme', model: 'acme-model', credentials: { api_key: 'set' } });
    expect((await h.request('GET', tenantVlm, { token: acmeAdmin })).body).toMatchObject({ scope: 'tenant', model: 'acme-model' });
    const mixed = await h.request('GET', '/v1/admin/tenants/acme/infra', { token: acmeAdmin });
    expect(mixed.body.items.map((e: { endpoint_type: string; scope: string }) => `${e.endpoint_type}:${e.scope}`)).toEqual(['vlm:tenant', 'judge:platform', 'ocr:platform', 'smtp:platform']);
    const test = await h.request('POST', `${tenantVlm}/test`, { token: acmeAdmin });
    expect(test.body).toMatchObject({ ok: true, detail: 'custom_url: model acme-model answered' });

    // Globex still sees the platform's; acme's override is invisible to it and off-limits.
    expect((await h.request('GET', '/v1/admin/tenants/globex/infra/vlm', { token: globexAdmin })).body).toMatchObject({ scope: 'platform', model: 'llama-3.1-8b' });
    for (const [method, path] of [
      ['GET', '/v1/admin/tenants/acme/infra'],
      ['GET', tenantVlm],
      ['DELETE', tenantVlm],
      ['POST', `${tenantVlm}/test`],
    ]) {
      expectError(await h.request(method!, path!, { token: globexAdmin }), 404, 'not_found');
    }
    expectError(await h.request('PUT', tenantVlm, { token: globexAdmin, body: customUrl() }), 404, 'not_found');

    // Switched off again: the override stays stored but the platform's is in effect.
    await enableOverrides('acme', false);
    expect((await h.request('GET', tenantVlm, { token: acmeAdmin })).body.scope).toBe('platform');
    await enableOverrides('acme', true);
    expect((await h.request('DELETE', tenantVlm, { token: acmeAdmin })).status).toBe(204);
    expect((await h.request('GET', tenantVlm, { token: acmeAdmin })).body.scope).toBe('platform');
    expectError(await h.request('DELETE', tenantVlm, { token: acmeAdmin }), 404, 'not_found');
    expectError(await h.request('GET', '/v1/admin/tenants/acme/infra', { token: acmeMember }), 403, 'insufficient_role');
  });

  it('keeps every credential out of audit entries', async () => {
    const entries = await h.db.selectFrom('audit_log').select(['action', 'details', 'resource_type']).execute();
    expect(entries.some((e) => e.resource_type === 'infra_endpoint')).toBe(true);
    expect(entries.some((e) => e.resource_type === 'forge_endpoint')).toBe(true);
    noSecretsIn(entries);
  });
});

describe('logs', () => {
  it('never carry a credential, even at trace level', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({ db: h.db, config: h.config, version: 'test', workerCount: () => 0 }, { level: 'trace', stream });
    try {
      const login = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: 'root@quire.test', password: 'correct horse battery staple' } });
      const token = login.json().access_token as string;
      const headers = { authorization: `Bearer ${token}` };
      await app.inject({ method: 'PUT', url: '/v1/admin/platform/infra/judge', headers, payload: { ...customUrlBody(), credentials: { api_key: 'sk-local-secret-2' } } });
      await app.inject({ method: 'POST', url: '/v1/admin/platform/infra/judge/test', headers });
      await app.inject({ method: 'POST', url: '/v1/admin/forge-endpoints', headers, payload: { ...anthropicBody, name: 'logged', credentials: { api_key: 'sk-anthropic-secret-1', bogus: 'aws-secret-4' } } });
    } finally {
      await app.close();
    }
    expect(lines.length).toBeGreaterThan(3);
    noSecretsIn(lines);
  });
});

function customUrlBody() {
  return { backend: 'custom_url', model: 'llama-3.1-8b', base_url: `${openai.url}/v1` };
}
