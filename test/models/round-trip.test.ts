// Endpoint `test` round trips through the official SDKs against loopback servers speaking each
// backend's wire protocol: what was sent (auth, model, one token) and how answers and refusals read.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEndpointConfig } from '../../src/models/endpoint-config.js';
import { modelRoundTrip } from '../../src/models/round-trip.js';
import { guardOptionsFromConfig } from '../../src/lib/ssrf-guard.js';
import { type LoopbackHttp, startHttpServer } from '../helpers/loopback-servers.js';

const loopbackOnly = guardOptionsFromConfig({ allowPrivateNetwork: false, outboundAllow: ['127.0.0.1'] });
let anthropic: LoopbackHttp;
let bedrock: LoopbackHttp;
let vertex: LoopbackHttp;
const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });

function config(overrides: Partial<ModelEndpointConfig>): ModelEndpointConfig {
  return { backend: 'anthropic', model: 'm', base_url: null, aws_region: null, gcp_project: null, gcp_region: null, credentials: {}, timeout_seconds: 10, max_retries: 0, price_per_mtok: null, label: 'platform vlm endpoint', ...overrides };
}

beforeAll(async () => {
  anthropic = await startHttpServer((req) => {
    // The Messages API's documented header: the key never goes as a bearer token.
    const key = req.headers['x-api-key'];
    if (key !== 'sk-ant-good') return { status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
    const body = JSON.parse(req.body.toString()) as { model: string };
    return {
      status: 200,
      json: { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'max_tokens', stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
    };
  });
  bedrock = await startHttpServer((req) => {
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 Credential=AKIDLOCAL/')) return { status: 403, json: { message: 'The security token included in the request is invalid.' } };
    return { status: 200, json: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'max_tokens', usage: { inputTokens: 10, outputTokens: 1, totalTokens: 11 }, metrics: { latencyMs: 5 } } };
  });
  // Google's OAuth token endpoint (a JWT-bearer grant signed with the service account's key) and
  // generateContent, on one server.
  vertex = await startHttpServer((req) => {
    if (req.url === '/token') {
      const assertion = new URLSearchParams(req.body.toString('utf8')).get('assertion') ?? '';
      const [head, payload, signature] = assertion.split('.');
      const valid = !!signature && crypto.verify('RSA-SHA256', Buffer.from(`${head}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
      return valid ? { status: 200, json: { access_token: 'ya29.round-trip', expires_in: 3599, token_type: 'Bearer' } } : { status: 400, json: { error: 'invalid_grant' } };
    }
    if (req.headers.authorization !== 'Bearer ya29.round-trip') return { status: 401, json: { error: { code: 401, status: 'UNAUTHENTICATED' } } };
    return { status: 200, json: { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'MAX_TOKENS' }], usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 1 } } };
  });
});
afterAll(async () => {
  await anthropic?.close();
  await bedrock?.close();
  await vertex?.close();
});

describe('model round trips', () => {
  it('anthropic: a Messages call of one token carrying the API key', async () => {
    const ok = await modelRoundTrip(config({ backend: 'anthropic', model: 'claude-test-model', base_url: anthropic.url, credentials: { api_key: 'sk-ant-good' } }), loopbackOnly);
    expect(ok).toEqual({ ok: true, latency_ms: expect.any(Number), detail: 'anthropic: model claude-test-model answered' });
    const sent = anthropic.requests.at(-1)!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['anthropic-version']).toEqual(expect.any(String));
    expect(JSON.parse(sent.body.toString())).toMatchObject({ model: 'claude-test-model', max_tokens: 1 });

    const refused = await modelRoundTrip(config({ backend: 'anthropic', model: 'claude', base_url: anthropic.url, credentials: { api_key: 'sk-ant-wrong-key' } }), loopbackOnly);
    expect(refused).toMatchObject({ ok: false, detail: expect.stringContaining('HTTP 401') });
    expect(refused.detail).not.toContain('sk-ant-wrong-key');
  });

  it('bedrock: a SigV4-signed Converse call of one token', async () => {
    const ok = await modelRoundTrip(
      config({ backend: 'bedrock', model: 'anthropic.claude-3-haiku-20240307-v1:0', aws_region: 'eu-west-1', base_url: bedrock.url, credentials: { access_key_id: 'AKIDLOCAL', secret_access_key: 'local-secret-key' } }),
      loopbackOnly,
    );
    expect(ok, ok.detail).toMatchObject({ ok: true, detail: 'bedrock: model anthropic.claude-3-haiku-20240307-v1:0 answered' });
    const sent = bedrock.requests.at(-1)!;
    expect(decodeURIComponent(sent.url)).toBe('/model/anthropic.claude-3-haiku-20240307-v1:0/converse');
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/);
    expect(JSON.parse(sent.body.toString())).toMatchObject({ inferenceConfig: { maxTokens: 1 }, messages: [{ role: 'user' }] });

    const refused = await modelRoundTrip(
      config({ backend: 'bedrock', model: 'm', aws_region: 'eu-west-1', base_url: bedrock.url, credentials: { access_key_id: 'AKIDOTHER', secret_access_key: 'other-secret-key' } }),
      loopbackOnly,
    );
    expect(refused).toMatchObject({ ok: false, detail: expect.stringContaining('HTTP 403') });
    expect(refused.detail).not.toContain('other-secret-key');
  });

  it('vertex: a token from the service account\'s token_uri, then a generateContent call of one token', async () => {
    const account = (key: crypto.KeyObject) => JSON.stringify({ type: 'service_account', project_id: 'quire-rt', private_key_id: 'k1', private_key: key.export({ type: 'pkcs8', format: 'pem' }).toString(), client_email: 'rt@quire-rt.iam.gserviceaccount.com', token_uri: `${vertex.url}/token` });
    const ok = await modelRoundTrip(config({ backend: 'vertex', model: 'gemini-rt', base_url: `${vertex.url}/v1`, gcp_region: 'europe-west4', credentials: { service_account_json: account(privateKey) } }), loopbackOnly);
    expect(ok, ok.detail).toMatchObject({ ok: true, detail: 'vertex: model gemini-rt answered' });
    expect(vertex.requests.map((r) => r.url)).toEqual(['/token', '/v1/projects/quire-rt/locations/europe-west4/publishers/google/models/gemini-rt:generateContent']);
    expect(JSON.parse(vertex.requests[1]!.body.toString())).toMatchObject({ generationConfig: { maxOutputTokens: 1 } });

    // A key the token endpoint does not know: refused, and the key is nowhere in the detail.
    const stranger = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const refused = await modelRoundTrip(config({ backend: 'vertex', model: 'gemini-rt', base_url: `${vertex.url}/v1`, gcp_region: 'europe-west4', credentials: { service_account_json: account(stranger) } }), loopbackOnly);
    expect(refused).toMatchObject({ ok: false, detail: expect.stringContaining('vertex: ') });
    expect(refused.detail).not.toContain('PRIVATE KEY');
  });

  it('refuses private addresses the guard does not allow, before any request', async () => {
    for (const backend of ['anthropic', 'bedrock', 'custom_url'] as const) {
      const blocked = await modelRoundTrip(config({ backend, model: 'm', aws_region: 'eu-west-1', base_url: 'http://192.168.77.1:8080/v1', credentials: { api_key: 'k', access_key_id: 'a', secret_access_key: 's' } }), loopbackOnly);
      expect(blocked).toMatchObject({ ok: false, detail: expect.stringContaining('blocked: ') });
    }
  });
});
