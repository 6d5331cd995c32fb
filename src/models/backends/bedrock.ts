// bedrock: the Converse API through @aws-sdk/client-bedrock-runtime. Pages go as image blocks; the
// schema as the input schema of a tool the model is made to call. The SDK signs with SigV4 from
// the endpoint's access keys; its sockets resolve through the SSRF guard.
import http from 'node:http';
import https from 'node:https';
import { BedrockRuntimeClient, ConverseCommand, type ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { assertOutboundAllowed, guardedLookup } from '../../lib/ssrf-guard.js';
import { MAX_OUTPUT_TOKENS } from './anthropic.js';
import { AttemptFailure, retryAfterMs, withRetries } from './retry.js';
import { attemptFailureOf, blockedCause, oneLine } from './sdk-errors.js';
import { type BackendContext, type ModelAnswer, type ModelClient, type ModelRequest, ModelAnswerError, answerToolOf, cutOff } from './types.js';

interface AwsServiceError {
  name: string;
  message: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string> };
}

export function bedrockClient({ endpoint, guard }: BackendContext): ModelClient {
  const { access_key_id, secret_access_key, session_token } = endpoint.credentials;
  if (!access_key_id || !secret_access_key) throw new Error(`${endpoint.label}: bedrock needs access_key_id and secret_access_key`);
  const lookup = guardedLookup(guard) as never;
  const sdk = new BedrockRuntimeClient({
    region: endpoint.aws_region ?? 'us-east-1',
    ...(endpoint.base_url ? { endpoint: endpoint.base_url } : {}),
    credentials: { accessKeyId: access_key_id, secretAccessKey: secret_access_key, ...(session_token ? { sessionToken: session_token } : {}) },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ lookup, keepAlive: true }),
      httpsAgent: new https.Agent({ lookup, keepAlive: true }),
      connectionTimeout: 10_000,
      requestTimeout: endpoint.timeout_seconds * 1000,
    }),
  });

  const once = async (request: ModelRequest): Promise<ModelAnswer> => {
    const tool = answerToolOf(request);
    try {
      // A literal IP never reaches the lookup: check the configured URL up front too.
      if (endpoint.base_url) await assertOutboundAllowed(endpoint.base_url, guard);
      const content: ContentBlock[] = [...request.images.map((image) => ({ image: { format: 'png' as const, source: { bytes: image.png } } })), { text: request.prompt }];
      const answer = await sdk.send(
        new ConverseCommand({
          modelId: endpoint.model,
          system: [{ text: request.system }],
          messages: [{ role: 'user', content }],
          inferenceConfig: { maxTokens: MAX_OUTPUT_TOKENS },
          toolConfig: {
            tools: [{ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: request.schema as never } } }],
            toolChoice: { tool: { name: tool.name } },
          },
        }),
        { abortSignal: request.signal as never },
      );
      const usage = { input_tokens: answer.usage?.inputTokens ?? 0, output_tokens: answer.usage?.outputTokens ?? 0 };
      // A tool call cut off at maxTokens still parses, holding the values written so far.
      if (answer.stopReason === 'max_tokens' || answer.stopReason === 'model_context_window_exceeded') throw cutOff(MAX_OUTPUT_TOKENS, usage);
      const call = answer.output?.message?.content?.find((block) => block.toolUse?.name === tool.name)?.toolUse;
      if (!call) throw new ModelAnswerError(`the answer has no ${tool.name} tool call (stopReason ${answer.stopReason})`, usage);
      return { json: call.input, usage, model: endpoint.model };
    } catch (err) {
      throw awsFailure(err, request.signal);
    }
  };

  return { endpoint, extract: (request) => withRetries(endpoint, () => once(request), request.signal) };
}

function awsFailure(err: unknown, signal?: AbortSignal): unknown {
  if (err instanceof AttemptFailure || err instanceof ModelAnswerError || signal?.aborted) return err;
  if (blockedCause(err)) return attemptFailureOf(err);
  const e = err as AwsServiceError;
  const status = e?.$metadata?.httpStatusCode;
  if (typeof status === 'number') return new AttemptFailure(status, oneLine(`${e.name}: ${e.message}`), retryAfterMs(e.$response?.headers?.['retry-after']));
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code || /Timeout|Network|socket/i.test(e?.name ?? '')) return new AttemptFailure(null, oneLine(`${e.name}: ${e.message}`));
  return err;
}
