// The smallest real call a model endpoint can answer, through the backend's official SDK: what an
// endpoint `test` runs. Every connection passes the SSRF guard; a refused address is an answer
// (ok: false with the reason), not an exception.
import http from 'node:http';
import https from 'node:https';
import { type GuardOptions, OutboundBlockedError, assertOutboundAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import { hideSecrets } from './backends/errors.js';
import { withoutStatus } from './backends/sdk-errors.js';
import type { ModelEndpointConfig } from './endpoint-config.js';

export interface RoundTripResult {
  ok: boolean;
  latency_ms: number;
  detail: string;
}

const PING = 'Reply with one word: ok';

/** Where a backend's calls go when no base_url is set. */
export function defaultBaseUrl(config: ModelEndpointConfig): string {
  switch (config.backend) {
    case 'anthropic':
      return 'https://api.anthropic.com';
    case 'bedrock':
      return `https://bedrock-runtime.${config.aws_region}.amazonaws.com`;
    case 'vertex':
      return `https://${config.gcp_region ?? 'us-central1'}-aiplatform.googleapis.com/v1`;
    case 'custom_url':
      return config.base_url ?? '';
  }
}

async function callOnce(config: ModelEndpointConfig, guard: GuardOptions): Promise<string> {
  const baseUrl = config.base_url ?? defaultBaseUrl(config);
  await assertOutboundAllowed(baseUrl, guard);
  const timeout = config.timeout_seconds * 1000;
  switch (config.backend) {
    case 'custom_url': {
      const { customUrlSdk } = await import('./backends/custom-url.js');
      const client = customUrlSdk({ endpoint: { ...config, base_url: baseUrl }, guard });
      const answer = await client.chat.completions.create({ model: config.model, messages: [{ role: 'user', content: PING }], max_tokens: 1 });
      return `model ${answer.model || config.model} answered`;
    }
    case 'anthropic': {
      const { anthropicSdk } = await import('./backends/anthropic.js');
      const client = anthropicSdk({ endpoint: { ...config, base_url: baseUrl }, guard });
      const answer = await client.messages.create({ model: config.model, max_tokens: 1, messages: [{ role: 'user', content: PING }] });
      return `model ${answer.model || config.model} answered`;
    }
    case 'bedrock': {
      const [{ BedrockRuntimeClient, ConverseCommand }, { NodeHttpHandler }] = await Promise.all([import('@aws-sdk/client-bedrock-runtime'), import('@smithy/node-http-handler')]);
      const lookup = guardedLookup(guard) as never;
      const client = new BedrockRuntimeClient({
        region: config.aws_region ?? undefined,
        endpoint: baseUrl,
        credentials: {
          accessKeyId: config.credentials.access_key_id ?? '',
          secretAccessKey: config.credentials.secret_access_key ?? '',
          ...(config.credentials.session_token ? { sessionToken: config.credentials.session_token } : {}),
        },
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ lookup }), httpsAgent: new https.Agent({ lookup }), requestTimeout: timeout, connectionTimeout: timeout }),
      });
      try {
        await client.send(new ConverseCommand({ modelId: config.model, messages: [{ role: 'user', content: [{ text: PING }] }], inferenceConfig: { maxTokens: 1 } }));
      } finally {
        client.destroy();
      }
      return `model ${config.model} answered`;
    }
    case 'vertex': {
      // The same target and token source as extraction: the service account's token_uri, guarded.
      const { vertexTarget } = await import('./backends/vertex.js');
      const target = vertexTarget({ endpoint: config, guard });
      const token = await target.accessToken();
      const response = await target.fetch(target.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: PING }] }], generationConfig: { maxOutputTokens: 1 } }),
        signal: AbortSignal.timeout(timeout),
      });
      if (!response.ok) throw Object.assign(new Error(`generateContent answered ${response.status}`), { status: response.status });
      await response.body?.cancel();
      return `model ${config.model} answered`;
    }
  }
}

/** Names a failure without echoing anything the endpoint's credentials could be in. */
export function describeFailure(err: unknown): string {
  if (err instanceof OutboundBlockedError) return `blocked: ${err.message}`;
  const e = err as { status?: number; $metadata?: { httpStatusCode?: number }; name?: string; message?: string; cause?: unknown };
  const cause = e.cause as { message?: string; code?: string } | undefined;
  if (cause && (cause as Error).name === 'OutboundBlockedError') return `blocked: ${cause.message}`;
  const status = e.status ?? e.$metadata?.httpStatusCode;
  const why = e.message ?? String(err);
  return status ? `the endpoint answered HTTP ${status}: ${withoutStatus(why, status)}` : `the call failed: ${cause?.message ?? why}`;
}

/** A server may quote what it was sent: no credential value survives into a detail. */
export async function modelRoundTrip(config: ModelEndpointConfig, guard: GuardOptions): Promise<RoundTripResult> {
  const started = performance.now();
  try {
    const detail = await callOnce(config, guard);
    return { ok: true, latency_ms: Math.round(performance.now() - started), detail: `${config.backend}: ${detail}` };
  } catch (err) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), detail: hideSecrets(`${config.backend}: ${describeFailure(err)}`, config.credentials) };
  }
}
