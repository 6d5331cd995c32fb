// anthropic: the Messages API through @anthropic-ai/sdk. Pages go as base64 image blocks; the
// schema as the input schema of a tool the model is made to call, whose input is the answer.
import Anthropic from '@anthropic-ai/sdk';
import { createGuardedFetch } from '../../lib/ssrf-guard.js';
import { withRetries } from './retry.js';
import { attemptFailureOf } from './sdk-errors.js';
import { type BackendContext, type ModelAnswer, type ModelClient, type ModelRequest, ModelAnswerError, answerToolOf, base64, cutOff, notAnApiAnswer } from './types.js';

/** Room for the answer: a long invoice's line items fit well within it. */
export const MAX_OUTPUT_TOKENS = 8192;

/** The SDK as every Anthropic call makes it: the endpoint's key, address and time limit, through the SSRF guard. */
export function anthropicSdk({ endpoint, guard }: BackendContext): Anthropic {
  return new Anthropic({
    // The Messages API's documented x-api-key header, whatever this SDK version would default to.
    apiKey: null,
    authToken: null,
    defaultHeaders: { 'x-api-key': endpoint.credentials.api_key ?? null },
    ...(endpoint.base_url ? { baseURL: endpoint.base_url } : {}),
    timeout: endpoint.timeout_seconds * 1000,
    maxRetries: 0,
    fetch: createGuardedFetch(guard) as never,
  });
}

export function anthropicClient(context: BackendContext): ModelClient {
  const { endpoint } = context;
  const sdk = anthropicSdk(context);

  const once = async (request: ModelRequest): Promise<ModelAnswer> => {
    const tool = answerToolOf(request);
    try {
      const message = await sdk.messages.create(
        {
          model: endpoint.model,
          max_tokens: MAX_OUTPUT_TOKENS,
          system: request.system,
          messages: [
            {
              role: 'user',
              content: [
                ...request.images.map((image) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: base64(image.png) } })),
                { type: 'text' as const, text: request.prompt },
              ],
            },
          ],
          tools: [{ name: tool.name, description: tool.description, input_schema: request.schema as Anthropic.Tool.InputSchema }],
          tool_choice: { type: 'tool', name: tool.name },
        },
        { signal: request.signal },
      );
      // The SDK hands back a body that is not JSON as it came (a web page at the base URL).
      if (!message || typeof message !== 'object' || !Array.isArray(message.content)) throw notAnApiAnswer(message);
      const usage = { input_tokens: message.usage?.input_tokens ?? 0, output_tokens: message.usage?.output_tokens ?? 0 };
      // A tool call cut off at max_tokens still parses, holding the values written so far.
      if (message.stop_reason === 'max_tokens' || (message.stop_reason as string) === 'model_context_window_exceeded') throw cutOff(MAX_OUTPUT_TOKENS, usage);
      const call = message.content.find((block) => block.type === 'tool_use' && block.name === tool.name);
      if (!call || call.type !== 'tool_use') throw new ModelAnswerError(`the answer has no ${tool.name} tool call (stop_reason ${message.stop_reason})`, usage);
      return { json: call.input, usage, model: message.model || endpoint.model };
    } catch (err) {
      throw attemptFailureOf(err, request.signal);
    }
  };

  return { endpoint, extract: (request) => withRetries(endpoint, () => once(request), request.signal) };
}
