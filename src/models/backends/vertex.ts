// vertex: Gemini on Vertex AI through REST generateContent, with an OAuth token that
// google-auth-library gets from the service-account JSON. Pages go as inlineData parts; the
// schema as generationConfig.responseSchema. Every request, the token's included, passes the SSRF
// guard; the token request goes to the service account's own token_uri.
import { JWT } from 'google-auth-library';
import { createGuardedFetch } from '../../lib/ssrf-guard.js';
import { AttemptFailure, retryAfterMs, withRetries } from './retry.js';
import { attemptFailureOf, oneLine } from './sdk-errors.js';
import { type BackendContext, type ModelAnswer, type ModelClient, type ModelRequest, ModelAnswerError, base64, cutOff, notAnApiAnswer, parseJsonAnswer } from './types.js';
import { toVertexSchema } from './vertex-schema.js';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Where google-auth-library sends every service-account token request. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
  token_uri?: string;
}

interface GenerateContentAnswer {
  candidates?: { content?: { parts?: { text?: string }[] }; finishReason?: string }[];
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number };
  modelVersion?: string;
}

export function parseServiceAccount(json: string | undefined, label: string): ServiceAccount {
  let account: ServiceAccount;
  try {
    account = JSON.parse(json ?? '') as ServiceAccount;
  } catch {
    throw new Error(`${label}: service_account_json is not JSON`);
  }
  if (!account?.client_email || !account.private_key) throw new Error(`${label}: service_account_json needs client_email and private_key`);
  return account;
}

/** Where an endpoint's generateContent calls go, and the OAuth token they carry. */
export interface VertexTarget {
  url: string;
  tokenUri: string;
  fetch: typeof fetch;
  accessToken(): Promise<string>;
}

/** The endpoint's generateContent URL and token source; every request, the token's included, passes the guard. */
export function vertexTarget({ endpoint, guard }: BackendContext): VertexTarget {
  const account = parseServiceAccount(endpoint.credentials.service_account_json, endpoint.label);
  const project = endpoint.gcp_project ?? account.project_id;
  const region = endpoint.gcp_region ?? 'us-central1';
  if (!project) throw new Error(`${endpoint.label}: vertex needs gcp_project (or project_id in the service account)`);
  const guardedFetch = createGuardedFetch(guard) as unknown as typeof fetch;
  const tokenUri = account.token_uri ?? GOOGLE_TOKEN_URL;
  const auth = new JWT({
    email: account.client_email,
    key: account.private_key,
    ...(account.private_key_id ? { keyId: account.private_key_id } : {}),
    scopes: [SCOPE],
    transporterOptions: {
      fetchImplementation: ((input: string | URL | Request, init?: RequestInit) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        return guardedFetch(url === GOOGLE_TOKEN_URL ? tokenUri : input, init);
      }) as typeof fetch,
    },
  });
  const root = (endpoint.base_url ?? `https://${region}-aiplatform.googleapis.com/v1`).replace(/\/+$/, '');
  return {
    url: `${root}/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}/publishers/google/models/${encodeURIComponent(endpoint.model)}:generateContent`,
    tokenUri,
    fetch: guardedFetch,
    accessToken: async () => {
      const { token } = await auth.getAccessToken();
      if (!token) throw new Error(`the token request to ${new URL(tokenUri).host} gave no access token`);
      return token;
    },
  };
}

export function vertexClient(context: BackendContext): ModelClient {
  const { endpoint } = context;
  const { url, tokenUri, fetch: guardedFetch, accessToken } = vertexTarget(context);

  const once = async (request: ModelRequest): Promise<ModelAnswer> => {
    let response: Response;
    try {
      const token = await accessToken().catch((err: { status?: number; response?: { status?: number }; message: string }) => {
        throw new AttemptFailure(err.response?.status ?? err.status ?? null, oneLine(`token request to ${new URL(tokenUri).host} failed: ${err.message}`));
      });
      response = await guardedFetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          systemInstruction: { parts: [{ text: request.system }] },
          contents: [{ role: 'user', parts: [{ text: request.prompt }, ...request.images.map((image) => ({ inlineData: { mimeType: 'image/png', data: base64(image.png) } }))] }],
          generationConfig: { temperature: 0, responseMimeType: 'application/json', responseSchema: toVertexSchema(request.schema) },
        }),
        signal: AbortSignal.any([AbortSignal.timeout(endpoint.timeout_seconds * 1000), ...(request.signal ? [request.signal] : [])]),
      });
    } catch (err) {
      if (err instanceof AttemptFailure || request.signal?.aborted) throw err;
      const failure = attemptFailureOf(err, request.signal);
      throw failure instanceof AttemptFailure ? failure : new AttemptFailure(null, oneLine((err as Error).message));
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new AttemptFailure(response.status, oneLine(text || response.statusText), retryAfterMs(response.headers.get('retry-after')));
    }
    const body = await response.text();
    let answer: GenerateContentAnswer;
    try {
      answer = JSON.parse(body) as GenerateContentAnswer;
    } catch {
      throw notAnApiAnswer(body);
    }
    if (!answer || typeof answer !== 'object') throw notAnApiAnswer(body);
    const usage = { input_tokens: answer.usageMetadata?.promptTokenCount ?? 0, output_tokens: answer.usageMetadata?.candidatesTokenCount ?? 0 };
    if (answer.candidates?.[0]?.finishReason === 'MAX_TOKENS') throw cutOff(null, usage);
    const text = answer.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('');
    if (!text) throw new ModelAnswerError(`the answer has no text (finishReason ${answer.candidates?.[0]?.finishReason ?? 'none'})`, usage);
    return { json: parseJsonAnswer(text, usage), usage, model: answer.modelVersion ?? endpoint.model };
  };

  return { endpoint, extract: (request) => withRetries(endpoint, () => once(request), request.signal) };
}
