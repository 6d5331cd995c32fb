// A session the server ends between two calls (a shutdown while the embedded server's start is
// still being checked) fails the next call; it does not crash the process.
import { describe, expect, inject, it } from 'vitest';
import { oneOffClient } from '../../src/db/one-off-client.js';
import { waitFor } from '../helpers/documents.js';

async function terminateIdleSession(serverUrl: string, pid: number): Promise<void> {
  const admin = oneOffClient(serverUrl);
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe('oneOffClient', () => {
  it('turns a session ended while idle into a failed next call, with no uncaught error', async () => {
    const uncaught: unknown[] = [];
    const record = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', record);
    const client = oneOffClient(inject('serverUrl'));
    try {
      await client.connect();
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      let ended = false;
      client.once('end', () => (ended = true));
      await terminateIdleSession(inject('serverUrl'), pid);
      // The server's 57P01 is read and the socket closed, or the error escaped.
      await waitFor('the session to end', async () => ended || uncaught.length > 0, 10_000);
      expect(uncaught).toEqual([]);
      await expect(client.query('SELECT 1')).rejects.toThrow();
    } finally {
      process.off('uncaughtException', record);
      await client.end().catch(() => undefined);
    }
  });
});
