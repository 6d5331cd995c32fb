// The model backends an endpoint can name, what each needs, and the per-backend check of a body
// (interface.md: the credentials payload is validated per backend, 422 located at `credentials`).
import type { ValidationItem } from '../../lib/errors.js';
import { MODEL_BACKENDS, type ModelBackend } from '../../models/endpoint-config.js';

export interface BackendSpec {
  backend: ModelBackend;
  description: string;
  required_fields: string[];
  optional_fields: string[];
  required_credentials: string[];
  optional_credentials: string[];
}

export const BACKENDS: Record<ModelBackend, BackendSpec> = {
  anthropic: {
    backend: 'anthropic',
    description: 'Anthropic Messages API (Claude models).',
    required_fields: ['model'],
    optional_fields: ['base_url'],
    required_credentials: ['api_key'],
    optional_credentials: [],
  },
  bedrock: {
    backend: 'bedrock',
    description: 'Amazon Bedrock Converse API, signed with AWS access keys.',
    required_fields: ['model', 'aws_region'],
    optional_fields: ['base_url'],
    required_credentials: ['access_key_id', 'secret_access_key'],
    optional_credentials: ['session_token'],
  },
  vertex: {
    backend: 'vertex',
    description: "Google Vertex AI generateContent, authorised with a service account; gcp_project may be left out when the key names its project_id.",
    required_fields: ['model', 'gcp_project', 'gcp_region'],
    optional_fields: ['base_url'],
    required_credentials: ['service_account_json'],
    optional_credentials: [],
  },
  custom_url: {
    backend: 'custom_url',
    description: 'Any OpenAI-compatible chat-completions server (vLLM, Ollama, llama.cpp server, OpenAI) at base_url, e.g. http://host:8000/v1.',
    required_fields: ['model', 'base_url'],
    optional_fields: [],
    required_credentials: [],
    optional_credentials: ['api_key'],
  },
};

export function isModelBackend(value: unknown): value is ModelBackend {
  return typeof value === 'string' && (MODEL_BACKENDS as readonly string[]).includes(value);
}

/** A URL an outbound call can use: http or https, with a host. */
export function httpUrlProblem(value: unknown, loc: (string | number)[]): ValidationItem | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname) return null;
  } catch {
    // fall through to the problem below
  }
  return { loc, msg: 'Input should be a valid URL with an http or https scheme', type: 'url_parsing', input: value };
}

function serviceAccountProblem(value: string): string | null {
  try {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    if (!parsed || typeof parsed !== 'object') return 'should be a JSON object';
    for (const key of ['client_email', 'private_key']) {
      if (typeof parsed[key] !== 'string' || !parsed[key]) return `should be a service-account key with "${key}"`;
    }
    return null;
  } catch {
    return 'should be the JSON text of a service-account key';
  }
}

/** The project a service-account key names (its `project_id`), which Vertex calls default to. */
function keyProjectId(credentials: Record<string, unknown> | null): string | null {
  const json = credentials?.service_account_json;
  if (typeof json !== 'string') return null;
  try {
    const id = (JSON.parse(json) as Record<string, unknown>).project_id;
    return typeof id === 'string' && id.trim() !== '' ? id : null;
  } catch {
    return null;
  }
}

export interface ModelBody {
  backend: string;
  model?: string | null;
  base_url?: string | null;
  aws_region?: string | null;
  gcp_project?: string | null;
  gcp_region?: string | null;
}

/**
 * Checks a model endpoint (forge or vlm/judge) as it will be stored: the backend is known, the
 * fields it needs are present, and the credentials carry exactly the keys it reads.
 */
export function checkModelEndpoint(body: ModelBody, credentials: Record<string, unknown> | null): ValidationItem[] {
  if (!isModelBackend(body.backend)) {
    return [{ loc: ['body', 'backend'], msg: `Input should be ${MODEL_BACKENDS.map((b) => `'${b}'`).join(', ')}`, type: 'enum', input: body.backend, ctx: { expected: MODEL_BACKENDS.join(', ') } }];
  }
  const spec = BACKENDS[body.backend];
  const items: ValidationItem[] = [];
  const fields = body as unknown as Record<string, unknown>;
  for (const field of spec.required_fields) {
    const value = fields[field];
    if (field === 'gcp_project' && keyProjectId(credentials) !== null) continue;
    if (typeof value !== 'string' || value.trim() === '') {
      items.push({ loc: ['body', field], msg: `Field required for backend ${spec.backend}`, type: 'missing', input: value ?? null });
    }
  }
  const urlProblem = httpUrlProblem(body.base_url, ['body', 'base_url']);
  if (urlProblem) items.push(urlProblem);

  // Credential values are never echoed back, not even in a validation error.
  const given = credentials ?? {};
  const allowed = new Set([...spec.required_credentials, ...spec.optional_credentials]);
  for (const key of spec.required_credentials) {
    if (!(key in given)) items.push({ loc: ['body', 'credentials', key], msg: `Field required for backend ${spec.backend}`, type: 'missing' });
  }
  for (const [key, value] of Object.entries(given)) {
    if (!allowed.has(key)) {
      const expected = [...allowed].join(', ') || 'no keys';
      items.push({ loc: ['body', 'credentials', key], msg: `Extra inputs are not permitted: backend ${spec.backend} takes ${expected}`, type: 'extra_forbidden' });
    } else if (typeof value !== 'string') {
      items.push({ loc: ['body', 'credentials', key], msg: 'Input should be a valid string', type: 'string_type' });
    } else if (value.trim() === '') {
      items.push({ loc: ['body', 'credentials', key], msg: 'String should have at least 1 character', type: 'string_too_short', ctx: { min_length: 1 } });
    } else if (key === 'service_account_json') {
      const problem = serviceAccountProblem(value);
      if (problem) items.push({ loc: ['body', 'credentials', key], msg: `Value error, service_account_json ${problem}`, type: 'value_error' });
    }
  }
  return items;
}
