// The one way the console talks to the API: openapi-fetch over the types generated from
// /openapi.json, with the session's bearer token and (for a platform admin) the chosen tenant.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { session } from '../session';

export type { paths };

const auth: Middleware = {
  onRequest({ request }) {
    const { token, tenant } = session.get();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    if (tenant) request.headers.set('x-tenant-id', tenant);
    return request;
  },
  onResponse({ response, request }) {
    // An expired or revoked session sends the person back to sign in (not for the sign-in call itself).
    if (response.status === 401 && !request.url.endsWith('/v1/auth/login')) session.end();
    return response;
  },
  // No answer at all (the server is down, the network dropped): a sentence, not the browser's "Failed to fetch".
  onError() {
    return new Error(NO_ANSWER);
  },
};

/** What a screen says when a request got no answer. */
export const NO_ANSWER = 'The server did not answer (it may be down, or the connection dropped). Check the connection and try again.';

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(auth);

/** One item of a 422 answer: where (`loc`, e.g. ['body', 'patch', 'total']) and what is wrong. */
export interface ValidationItem {
  loc?: unknown[];
  msg?: string;
}

/**
 * The sentence to show for an error answer: the API's detail, or every validation item, one a
 * line, each with the place it names ("patch.line_items.0.amount: Expected number").
 */
export function errorText(error: unknown, status?: number): string {
  if (!error) return status ? `The request failed (${status}).` : 'The request failed.';
  if (typeof error === 'string') {
    // A page from something in front of the API (a proxy's "502 Bad Gateway") is no message to show as it is.
    if (/^\s*</.test(error)) return `The server answered with an error page (${status ?? 'no status'}${status && STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ''}), not from the API. Try again in a moment.`;
    return error.trim() ? `${error.slice(0, 300)}${status ? ` (${status})` : ''}` : `The request failed (${status}).`;
  }
  const e = error as { detail?: unknown; message?: string };
  if (typeof e.detail === 'string') return e.detail;
  if (Array.isArray(e.detail) && e.detail.length) {
    return (e.detail as ValidationItem[]).map((item) => `${(item.loc ?? []).slice(1).join('.') || 'request'}: ${item.msg ?? 'invalid'}`).join('\n');
  }
  return e.message ?? (status ? `The request failed (${status}).` : 'The request failed.');
}

const STATUS_TEXT: Record<number, string> = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout', 413: 'Payload Too Large', 429: 'Too Many Requests' };

/** An error answer: its sentence, with the status and the API's stable code for screens that act on them. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** Throws the API's error sentence, so screens can show it; returns the data otherwise. */
export function must<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const code = (result.error as { code?: unknown } | undefined)?.code;
    throw new ApiError(errorText(result.error, result.response.status), result.response.status, typeof code === 'string' ? code : null);
  }
  return result.data as T;
}

/** Multipart upload with progress (fetch has no upload progress in browsers; XHR does). */
export function uploadWithProgress(url: string, form: FormData, onProgress: (fraction: number) => void): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    const { token, tenant } = session.get();
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    if (tenant) xhr.setRequestHeader('x-tenant-id', tenant);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: any = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON: keep the text */
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new Error('The upload could not reach the server.'));
    xhr.send(form);
  });
}
