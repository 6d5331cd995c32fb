// What a request's log line says of it: Fastify's fields, with the URL's secrets replaced. Tokens
// travel in two kinds of URL: the peek endpoints' path (`/v1/auth/invites/{raw_token}`,
// `/v1/auth/reset-tokens/{raw_token}`) and the console's invitation and reset links (`?token=`).
import type { FastifyRequest } from 'fastify';
import { REDACTED, namesSecret } from '../lib/redact.js';

// Matched on the decoded path with its slashes collapsed: "/v1/auth/%69nvites/<token>" and
// "//v1//auth/invites/<token>" reach (or miss) the same route, and must not log the token either.
const TOKEN_IN_PATH = /(\/auth\/+(?:invites|reset-tokens)\/+)[^/?#]+/i;

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // malformed escapes: judged as sent
  }
}

/** The URL with a path token and every query parameter that names a secret replaced. */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  const raw = q < 0 ? url : url.slice(0, q);
  const decoded = decodedPath(raw);
  const path = TOKEN_IN_PATH.test(decoded) ? decoded.replace(TOKEN_IN_PATH, `$1${REDACTED}`) : raw;
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq < 0 ? pair : pair.slice(0, eq);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      } catch {
        // an undecodable key is judged as sent
      }
      return namesSecret(key) ? `${rawKey}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Fastify's request serializer, field for field, with `loggableUrl`. */
export function loggableRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggableUrl(request.url),
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
