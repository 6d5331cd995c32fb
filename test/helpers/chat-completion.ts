// What an OpenAI-compatible server answers to a chat completion, for the loopback model servers
// of the model-path tests: the message content is the JSON the model "read".
import type { Answer, Seen } from './loopback-server.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

let answered = 0;

/** A completion whose message content is `content` as JSON, with the tokens it counted. */
export function chatCompletion(content: unknown, usage: Usage): Answer {
  return {
    body: {
      id: `chatcmpl-${++answered}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: 'qwen2.5-vl-7b-instruct',
      choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(content) }, finish_reason: 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** An extraction's answer to `req` in the shape it asked for: the values alone, or wrapped with their pages. */
export function extractionCompletion(req: Seen, values: Record<string, unknown>, usage: Usage): Answer {
  const wrapped = req.json.response_format?.json_schema?.schema?.properties?.values;
  return chatCompletion(wrapped ? { values, evidence_pages: Object.keys(values).map((field) => ({ field, page: 1 })) } : values, usage);
}
