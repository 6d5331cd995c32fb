// What a request's log line says of it: Fastify's fields, with the URL's secrets replaced. Tokens
// travel in two kinds of URL: the peek endpoints' path (`/v1/auth/invites/{raw_token}`,
// `/v1/auth/reset-tokens/{raw_token}`) and the console's invitation and reset links (`?token=`).
import type { FastifyRequest } from 'fastify';
import { REDACTED, namesSecret } from '../lib/redact.js';

const TOKEN_IN_PATH = /^(\/v1\/auth\/(?:invites|reset-tokens)\/)[^/?#]+/;

/** The URL with a path token and every query parameter that names a secret replaced. */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(TOKEN_IN_PATH, `$1${REDACTED}`);
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
