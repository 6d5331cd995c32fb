// A pg client for a few calls and an end: readiness probes, database creation.
import pg from 'pg';

/**
 * A short-lived client whose failures reach the caller through its awaited calls alone. The server
 * may end a session between two calls (a shutdown while a start is still being checked); without
 * a listener pg raises that as an 'error' event, which would crash the process.
 */
export function oneOffClient(url: string): pg.Client {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  return client;
}
