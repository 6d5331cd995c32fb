// Stored credentials are only ever sent where they were entered for. An update that points an
// endpoint or connection somewhere else (another base_url origin, SMTP or SFTP host, port) must
// carry its credentials again: otherwise one admin could re-point another admin's endpoint at a
// server of their own and receive the key it holds.
import { validationError } from '../../lib/errors.js';

function originOf(value: unknown): string | null {
  if (typeof value !== 'string' || !value) return null;
  try {
    return new URL(value).origin;
  } catch {
    return value;
  }
}

/** Where credentials go, from an endpoint's or connection's settings: the URL's origin, or host and port. */
export function destinationOf(settings: Record<string, unknown>, urlKey = 'base_url'): string {
  return JSON.stringify([originOf(settings[urlKey]), settings.host ?? null, settings.port ?? null]);
}

/** 422 when stored credentials would follow a change of destination. */
export function assertCredentialsFollow(before: Record<string, unknown>, after: Record<string, unknown>, urlKey = 'base_url'): void {
  if (destinationOf(before, urlKey) === destinationOf(after, urlKey)) return;
  throw validationError([
    {
      loc: ['body', 'credentials'],
      msg: 'Field required: the address changed, so the credentials must be sent again (stored ones are only sent where they were entered for)',
      type: 'missing',
    },
  ]);
}
