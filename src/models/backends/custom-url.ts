// custom_url: any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama, llama.cpp
// server) through the `openai` SDK. Pages go as image_url data URLs; the schema as
// response_format json_schema (decisions.md "Connections and endpoints").
import OpenAI from 'openai';
import { createGuardedFetch } from '../../lib/ssrf-guard.js';
import { withRetries } from './retry.js';
import { attemptFailureOf, oneLine } from './sdk-errors.js';
import { type BackendContext, type ModelAnswer, type ModelClient, type ModelRequest, ModelAnswerError, answerToolOf, base64, cutOff, notAnApiAnswer, parseJsonAnswer } from './types.js';

/** The SDK client of every custom_url call, extraction and `test` alike, so both send the same headers. */
export function customUrlSdk({ endpoint, guard }: BackendContext): OpenAI {
  if (!endpoint.base_url) throw new Error(`${endpoint.label}: custom_url needs a base_url`);
  return new OpenAI({
    baseURL: endpoint.base_url,
    // The SDK wants a key; without one the Authorization header is left out (a local llama.cpp).
    apiKey: endpoint.credentials.api_key || 'unused',
    adminAPIKey: null,
    organization: null,
    project: null,
    ...(endpoint.credentials.api_key ? {} : { defaultHeaders: { Authorization: null } }),
    timeout: endpoint.timeout_seconds * 1000,
    maxRetries: 0,
    fetch: createGuardedFetch(guard) as never,
  });
}

export function customUrlClient(context: BackendContext): ModelClient {
  const { endpoint } = context;
  const sdk = customUrlSdk(context);

  const once = async (request: ModelRequest): Promise<ModelAnswer> => {
    const tool = answerToolOf(request);
    try {
      const completion = await sdk.chat.completions.create(
        {
          model: endpoint.model,
          messages: [
            { role: 'system', content: request.system },
            {
              role: 'user',
              content: [
                { type: 'text', text: request.prompt },
                ...request.images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:image/png;base64,${base64(image.png)}` } })),
              ],
            },
          ],
          response_format: { type: 'json_schema', json_schema: { name: tool.name, description: tool.description, schema: request.schema, strict: false } },
          temperature: 0,
        },
        { signal: request.signal },
      );
      // The SDK hands back a body that is not JSON as it came (a web page at the base URL).
      if (!completion || typeof completion !== 'object' || !Array.isArray(completion.choices)) throw notAnApiAnswer(completion);
      const usage = { input_tokens: completion.usage?.prompt_tokens ?? 0, output_tokens: completion.usage?.completion_tokens ?? 0 };
      const choice = completion.choices[0];
      if (choice?.finish_reason === 'length') throw cutOff(null, usage);
      const text = choice?.message?.content;
      if (typeof text !== 'string') throw new ModelAnswerError(`the answer has no message content${choice?.message?.refusal ? ` (refused: ${oneLine(choice.message.refusal)})` : ''}`, usage);
      return { json: parseJsonAnswer(text, usage), usage, model: completion.model || endpoint.model };
    } catch (err) {
      throw attemptFailureOf(err, request.signal);
    }
  };

  return { endpoint, extract: (request) => withRetries(endpoint, () => once(request), request.signal) };
}
