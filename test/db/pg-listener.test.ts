// The one LISTEN connection both the queue and the credential cache hold: notifications arrive,
// a connection killed by the server is noticed (onLost) and re-established (onListening), and
// notifications flow again after it.
import pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgListener } from '../../src/db/pg-listener.js';
import { waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

it('hears notifications, notices a killed connection, reconnects and hears them again', async () => {
  const heard: string[] = [];
  const edges: string[] = [];
  let pid = 0;
  const listener = new PgListener(
    async () => {
      const client = new pg.Client({ connectionString: h.databaseUrl });
      await client.connect();
      pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      return { client, close: () => client.end() };
    },
    { name: 'test listener', channels: ['quire_test_a', 'quire_test_b'], onNotification: (channel, payload) => heard.push(`${channel}:${payload}`), onListening: () => edges.push('up'), onLost: () => edges.push('down') },
    pino({ level: 'silent' }),
  );
  await listener.start();
  expect(edges).toEqual(['up']);
  await sql`select pg_notify('quire_test_a', 'one'), pg_notify('quire_test_b', 'two')`.execute(h.db);
  await waitFor('both notifications', async () => heard.length === 2);
  expect(heard).toEqual(['quire_test_a:one', 'quire_test_b:two']);

  const first = pid;
  await sql`select pg_terminate_backend(${first})`.execute(h.db);
  await waitFor('the listener to come back', async () => edges.join(',') === 'up,down,up', 15_000);
  expect(pid).not.toBe(first);
  await sql`select pg_notify('quire_test_a', 'three')`.execute(h.db);
  await waitFor('a notification after the reconnect', async () => heard.includes('quire_test_a:three'));

  await listener.stop();
  expect(edges).toEqual(['up', 'down', 'up', 'down']);
});
