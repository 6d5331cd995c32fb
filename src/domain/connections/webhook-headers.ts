// A webhook's custom headers often carry a receiver's key ("Authorization", "X-Api-Key"): their
// values are sealed with the connection's credentials, and config keeps only the names, each with
// a placeholder. A PATCH that sends the placeholder back keeps the value stored under that name.
import { validationError } from '../../lib/errors.js';

export const HIDDEN_HEADER_VALUE = '[hidden]';
/** The key of the sealed credentials that holds the header values (not a credential of the API). */
const SEALED_KEY = 'webhook_headers';

type Headers = Record<string, string>;

function headersIn(config: Record<string, unknown>): Headers | null {
  const headers = config.headers;
  return headers && typeof headers === 'object' ? (headers as Headers) : null;
}

/**
 * What to store: config with its header values hidden, and the credentials to seal with the
 * values. `stored` are the values kept so far (a placeholder sent back keeps one).
 */
export function sealHeaders(config: Record<string, unknown>, credentials: Record<string, unknown>, stored: Headers = {}): { config: Record<string, unknown>; sealed: Record<string, unknown> } {
  const headers = headersIn(config);
  if (!headers) return { config, sealed: credentials };
  const values: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== HIDDEN_HEADER_VALUE) values[name] = value;
    else if (stored[name] !== undefined) values[name] = stored[name]!;
    else throw validationError([{ loc: ['body', 'config', 'headers', name], msg: `Value error, send the value of header ${name} itself: a stored value is kept only while the URL's origin stays the same`, type: 'value_error', input: value }]);
  }
  const hidden = Object.fromEntries(Object.keys(values).map((name) => [name, HIDDEN_HEADER_VALUE]));
  return { config: { ...config, headers: hidden }, sealed: Object.keys(values).length ? { ...credentials, [SEALED_KEY]: values } : credentials };
}

/** The stored header values: sealed, or, for a connection written before they were, its config's. */
export function storedHeaders(config: Record<string, unknown>, opened: Record<string, unknown>): Headers {
  const sealed = opened[SEALED_KEY];
  if (sealed && typeof sealed === 'object') return sealed as Headers;
  return Object.fromEntries(Object.entries(headersIn(config) ?? {}).filter(([, v]) => v !== HIDDEN_HEADER_VALUE));
}

/** The config a request is sent with: the real header values in place of the placeholders. */
export function configWithHeaders(config: Record<string, unknown>, opened: Record<string, unknown>): Record<string, unknown> {
  return headersIn(config) ? { ...config, headers: storedHeaders(config, opened) } : config;
}

/** The credentials as the API knows them (the header values are not one of them). */
export function apiCredentials(opened: Record<string, unknown>): Record<string, unknown> {
  const { [SEALED_KEY]: _headers, ...rest } = opened;
  return rest;
}

/** Config as answered: header values hidden, also those of a connection written before they were sealed. */
export function configForAnswer(config: Record<string, unknown>): Record<string, unknown> {
  const headers = headersIn(config);
  return headers ? { ...config, headers: Object.fromEntries(Object.keys(headers).map((name) => [name, HIDDEN_HEADER_VALUE])) } : config;
}
