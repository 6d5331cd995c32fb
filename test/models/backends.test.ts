// Each backend through its official SDK against a loopback server speaking that backend's wire
// protocol: what was sent (images, schema or tool, authentication) and what came back (the
// answer, usage). Nothing here replaces an SDK; only the far end of the wire is local.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEndpointConfig } from '../../src/models/endpoint-config.js';
import { ModelCallError, createModelClient } from '../../src/models/backends/index.js';
import type { ModelRequest } from '../../src/models/backends/types.js';
import { renderPagePng } from '../../src/pipeline/index.js';
import { data } from '../helpers/documents.js';
import { type LoopbackServer, startLoopback } from '../helpers/loopback-server.js';

const guard = { allowPrivateNetwork: true };
const SCHEMA = {
  type: 'object',
  properties: { invoice_number: { type: 'string', description: 'The invoice number' }, total: { type: ['number', 'null'] }, issue_date: { type: 'string', format: 'date' } },
  required: ['invoice_number'],
};
const ANSWER = { invoice_number: 'INV-42', total: 1234.5, issue_date: '2014-04-19' };

let server: LoopbackServer;
let png: Buffer;
let request: ModelRequest;

function endpoint(overrides: Partial<ModelEndpointConfig>): ModelEndpointConfig {
  return {
    backend: 'custom_url',
    model: 'test-model',
    base_url: server.url,
    aws_region: null,
    gcp_project: null,
    gcp_region: null,
    credentials: {},
    timeout_seconds: 10,
    max_retries: 0,
    price_per_mtok: null,
    label: 'tenant vlm endpoint',
    ...overrides,
  };
}

beforeAll(async () => {
  server = await startLoopback();
  png = await renderPagePng(new Uint8Array(fs.readFileSync(data('invoice2data/files/camelot-example.pdf'))), 1, { dpi: 50 });
  request = { images: [{ page: 1, png }], system: 'Extract the invoice.', prompt: 'Page 1: Invoice INV-42', schema: SCHEMA };
});
afterAll(() => server.close());

describe('anthropic (Messages API, @anthropic-ai/sdk)', () => {
  it('sends the page image, the schema as a forced tool and the API key; reads the tool call and usage', async () => {
    server.seen.length = 0;
    server.handle(() => ({
      body: {
        id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-test-20260101',
        content: [{ type: 'tool_use', id: 'toolu_01', name: 'record_extraction', input: ANSWER }],
        stop_reason: 'tool_use', stop_sequence: null,
        usage: { input_tokens: 1500, output_tokens: 42 },
      },
    }));
    const client = createModelClient(endpoint({ backend: 'anthropic', credentials: { api_key: 'sk-ant-test-123' } }), guard);
    const answer = await client.extract(request);
    expect(answer).toEqual({ json: ANSWER, usage: { input_tokens: 1500, output_tokens: 42 }, model: 'claude-test-20260101' });
    const sent = server.seen[0]!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-test-123');
    expect(sent.headers['anthropic-version']).toBeTruthy();
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json.system).toBe('Extract the invoice.');
    expect(sent.json.tools[0]).toMatchObject({ name: 'record_extraction', input_schema: SCHEMA });
    expect(sent.json.tool_choice).toEqual({ type: 'tool', name: 'record_extraction' });
    const image = sent.json.messages[0].content.find((b: any) => b.type === 'image');
    expect(image.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
    expect(Buffer.from(image.source.data, 'base64').equals(png)).toBe(true);
  });

  it('fails with the endpoint named and the status after a 401', async () => {
    server.handle(() => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }));
    const client = createModelClient(endpoint({ backend: 'anthropic', credentials: { api_key: 'wrong' }, max_retries: 3 }), guard);
    const before = server.seen.length;
    const err = await client.extract(request).catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.status).toBe(401);
    expect(server.seen.length - before).toBe(1);
    expect(err.toPipelineFailure().message).toMatch(/tenant vlm endpoint failed: HTTP 401.*credentials/);
  });
});

describe('an answer cut off at the output limit (max_tokens)', () => {
  // The tool call parses, but holds only what was written before the limit: the rest of the values are missing.
  const partial = { invoice_number: 'INV-42' };

  it('anthropic: is not taken for the answer; the failure says it was cut off and carries what it was billed', async () => {
    server.handle(() => ({
      body: {
        id: 'msg_02', type: 'message', role: 'assistant', model: 'claude-test-20260101',
        content: [{ type: 'tool_use', id: 'toolu_02', name: 'record_extraction', input: partial }],
        stop_reason: 'max_tokens', stop_sequence: null, usage: { input_tokens: 1500, output_tokens: 8192 },
      },
    }));
    const err = await createModelClient(endpoint({ backend: 'anthropic', credentials: { api_key: 'sk-ant-test-123' } }), guard).extract(request).catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.status).toBe(200);
    expect(err.detail).toMatch(/cut off at the model's output limit \(8192 tokens\)/);
    expect(err.answered).toEqual({ usage: { input_tokens: 1500, output_tokens: 8192 }, truncated: true });
  });

  it('bedrock: the same for stopReason max_tokens', async () => {
    server.handle(() => ({
      body: { output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'record_extraction', input: partial } }] } }, stopReason: 'max_tokens', usage: { inputTokens: 1600, outputTokens: 8192, totalTokens: 9792 }, metrics: { latencyMs: 5 } },
    }));
    const credentials = { access_key_id: 'AKIDEXAMPLETEST', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
    const err = await createModelClient(endpoint({ backend: 'bedrock', aws_region: 'eu-west-1', credentials }), guard).extract(request).catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.answered).toEqual({ usage: { input_tokens: 1600, output_tokens: 8192 }, truncated: true });
  });

  it('custom_url: an unusable answer (a refusal without content) still reports what it was billed', async () => {
    server.handle(() => ({
      body: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 900, completion_tokens: 12, total_tokens: 912 } },
    }));
    const err = await createModelClient(endpoint({ base_url: `${server.url}/v1` }), guard).extract(request).catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.detail).toMatch(/no message content \(refused: I cannot help with that\.\)/);
    expect(err.answered).toEqual({ usage: { input_tokens: 900, output_tokens: 12 }, truncated: false });
  });
});

describe('an endpoint that answers 200 with a page that is no API answer (a base_url pointing at a web page)', () => {
  const page = '<!doctype html><html><body>Welcome to nginx!</body></html>';

  it('anthropic, custom_url and vertex fail as a model_error that names the base URL, not as an error of Quire', async () => {
    for (const backend of ['anthropic', 'custom_url', 'vertex'] as const) {
      server.handle((req) => (req.url === '/token' ? { body: { access_token: 'ya29.t', expires_in: 3599, token_type: 'Bearer' } } : { headers: { 'content-type': 'text/html' }, body: page }));
      const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
      const account = { type: 'service_account', project_id: 'p', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), client_email: 'q@p.iam.gserviceaccount.com', token_uri: `${server.url}/token` };
      const config =
        backend === 'vertex'
          ? endpoint({ backend, model: 'gemini-test', base_url: `${server.url}/v1`, credentials: { service_account_json: JSON.stringify(account) } })
          : endpoint({ backend, base_url: `${server.url}/v1`, credentials: { api_key: 'sk-test' } });
      const err = await createModelClient(config, guard).extract(request).catch((e) => e);
      expect(err, backend).toBeInstanceOf(ModelCallError);
      expect(err.status, backend).toBe(200);
      expect(err.toPipelineFailure().message, backend).toMatch(/not JSON.*base URL/);
      // What to do is about the address alone: the model was never reached, so its abilities are not in question.
      expect(err.toPipelineFailure().message, backend).toMatch(/\. Point the endpoint's base_url at the model API's address .*then retry the job\.$/);
      expect(err.toPipelineFailure().message, backend).not.toContain('structured output');
    }
  });
});

describe('bedrock (Converse API, @aws-sdk/client-bedrock-runtime)', () => {
  const credentials = { access_key_id: 'AKIDEXAMPLETEST', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

  it('signs with SigV4 (verified by signing again), sends the image and the tool; reads the tool use and usage', async () => {
    server.seen.length = 0;
    server.handle(() => ({
      body: {
        output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'record_extraction', input: ANSWER } }] } },
        stopReason: 'tool_use',
        usage: { inputTokens: 1600, outputTokens: 40, totalTokens: 1640 },
        metrics: { latencyMs: 812 },
      },
    }));
    const model = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
    const client = createModelClient(endpoint({ backend: 'bedrock', model, aws_region: 'eu-west-1', credentials }), guard);
    const answer = await client.extract(request);
    expect(answer).toEqual({ json: ANSWER, usage: { input_tokens: 1600, output_tokens: 40 }, model });
    const sent = server.seen[0]!;
    expect(sent.url).toBe(`/model/${encodeURIComponent(model)}/converse`);
    expect(sent.json.toolConfig.tools[0].toolSpec).toMatchObject({ name: 'record_extraction', inputSchema: { json: SCHEMA } });
    expect(sent.json.toolConfig.toolChoice).toEqual({ tool: { name: 'record_extraction' } });
    const image = sent.json.messages[0].content[0].image;
    expect(image.format).toBe('png');
    expect(Buffer.from(image.source.bytes, 'base64').equals(png)).toBe(true);

    // The signature, recomputed from what arrived with the same credentials, must match.
    const authorization = String(sent.headers.authorization);
    expect(authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETEST\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
    const signed = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
    const headers = Object.fromEntries(signed.map((h) => [h, String(sent.headers[h])]));
    const amzDate = String(sent.headers['x-amz-date']);
    const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    const signer = new SignatureV4({ service: 'bedrock', region: 'eu-west-1', sha256: Sha256, credentials: { accessKeyId: credentials.access_key_id, secretAccessKey: credentials.secret_access_key } });
    const url = new URL(server.url);
    const again = await signer.sign(
      { method: sent.method, protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: sent.url, query: {}, headers, body: sent.body.toString('utf8') },
      { signingDate },
    );
    expect(again.headers.authorization).toBe(authorization);
    const forged = await new SignatureV4({ service: 'bedrock', region: 'eu-west-1', sha256: Sha256, credentials: { accessKeyId: credentials.access_key_id, secretAccessKey: 'another-secret' } }).sign(
      { method: sent.method, protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: sent.url, query: {}, headers, body: sent.body.toString('utf8') },
      { signingDate },
    );
    expect(forged.headers.authorization).not.toBe(authorization);
  });

  it('retries a ThrottlingException honouring Retry-After, then answers', async () => {
    server.seen.length = 0;
    let calls = 0;
    server.handle(() =>
      ++calls === 1
        ? { status: 429, headers: { 'x-amzn-errortype': 'ThrottlingException', 'retry-after': '0' }, body: { message: 'Too many requests, please wait before trying again.' } }
        : { body: { output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'record_extraction', input: ANSWER } }] } }, stopReason: 'tool_use', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, metrics: { latencyMs: 5 } } },
    );
    const client = createModelClient(endpoint({ backend: 'bedrock', aws_region: 'us-east-1', credentials, max_retries: 2 }), guard);
    const answer = await client.extract(request);
    expect(answer.json).toEqual(ANSWER);
    expect(server.seen).toHaveLength(2);
  });
});

describe('vertex (generateContent, google-auth-library service account)', () => {
  it('gets an OAuth token from the service account\'s token_uri, sends inlineData and responseSchema; reads the text answer and usage', async () => {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const account = {
      type: 'service_account',
      project_id: 'quire-test',
      private_key_id: 'key1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: 'quire@quire-test.iam.gserviceaccount.com',
      token_uri: `${server.url}/token`,
    };
    server.seen.length = 0;
    server.handle((req) => {
      if (req.url === '/token') {
        const assertion = new URLSearchParams(req.body.toString('utf8')).get('assertion')!;
        const [head, payload, signature] = assertion.split('.');
        const valid = crypto.verify('RSA-SHA256', Buffer.from(`${head}.${payload}`), publicKey, Buffer.from(signature!, 'base64url'));
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
        if (!valid || claims.iss !== account.client_email) return { status: 401, body: { error: 'invalid_grant' } };
        return { body: { access_token: 'ya29.loopback-token', expires_in: 3599, token_type: 'Bearer' } };
      }
      if (req.headers.authorization !== 'Bearer ya29.loopback-token') return { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED' } } };
      return {
        body: {
          candidates: [{ content: { role: 'model', parts: [{ text: JSON.stringify(ANSWER) }] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 1290, candidatesTokenCount: 38, totalTokenCount: 1328 },
          modelVersion: 'gemini-test-001',
        },
      };
    });
    const client = createModelClient(
      endpoint({ backend: 'vertex', model: 'gemini-test', base_url: `${server.url}/v1`, gcp_region: 'europe-west4', credentials: { service_account_json: JSON.stringify(account) } }),
      guard,
    );
    const answer = await client.extract(request);
    expect(answer).toEqual({ json: ANSWER, usage: { input_tokens: 1290, output_tokens: 38 }, model: 'gemini-test-001' });
    expect(server.seen.map((s) => s.url)).toEqual(['/token', '/v1/projects/quire-test/locations/europe-west4/publishers/google/models/gemini-test:generateContent']);
    const sent = server.seen[1]!.json;
    expect(sent.generationConfig.responseMimeType).toBe('application/json');
    expect(sent.generationConfig.responseSchema).toMatchObject({ type: 'OBJECT', properties: { invoice_number: { type: 'STRING' }, total: { type: 'NUMBER', nullable: true } }, required: ['invoice_number'] });
    const image = sent.contents[0].parts.find((p: any) => p.inlineData);
    expect(image.inlineData.mimeType).toBe('image/png');
    expect(Buffer.from(image.inlineData.data, 'base64').equals(png)).toBe(true);
  });
});

describe('custom_url (OpenAI chat completions, openai SDK)', () => {
  it('sends image_url data URLs, response_format json_schema and the bearer key; reads the message JSON and usage', async () => {
    server.seen.length = 0;
    server.handle(() => ({
      body: {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1_760_000_000, model: 'qwen2.5-vl-7b',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(ANSWER) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1100, completion_tokens: 30, total_tokens: 1130 },
      },
    }));
    const client = createModelClient(endpoint({ base_url: `${server.url}/v1`, credentials: { api_key: 'sk-local-1' } }), guard);
    expect(await client.extract(request)).toEqual({ json: ANSWER, usage: { input_tokens: 1100, output_tokens: 30 }, model: 'qwen2.5-vl-7b' });
    const sent = server.seen[0]!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-local-1');
    expect(sent.json.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'record_extraction', schema: SCHEMA } });
    const image = sent.json.messages[1].content.find((p: any) => p.type === 'image_url');
    expect(image.image_url.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
  });

  it('sends no Authorization header when the endpoint has no key', async () => {
    server.seen.length = 0;
    server.handle(() => ({ body: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '{"invoice_number":"1"}' }, finish_reason: 'stop' }] } }));
    await createModelClient(endpoint({ base_url: `${server.url}/v1` }), guard).extract(request);
    expect(server.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('refuses a loopback endpoint when private networks are not allowed, without retrying', async () => {
    server.seen.length = 0;
    const err = await createModelClient(endpoint({ base_url: `${server.url}/v1`, max_retries: 3 }), { allowPrivateNetwork: false }).extract(request).catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.attempts).toBe(1);
    expect(err.detail).toMatch(/QUIRE_ALLOW_PRIVATE_NETWORK/);
    expect(server.seen).toHaveLength(0);
  });

  it('gives up after max_retries on a persistent 503', async () => {
    server.seen.length = 0;
    server.handle(() => ({ status: 503, headers: { 'retry-after': '0' }, body: { error: { message: 'overloaded' } } }));
    const err = await createModelClient(endpoint({ base_url: `${server.url}/v1`, max_retries: 2 }), guard).extract(request).catch((e) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect(err.status).toBe(503);
    expect(server.seen).toHaveLength(3);
  });
});
