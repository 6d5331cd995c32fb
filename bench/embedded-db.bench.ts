// The embedded PostgreSQL's two ways in, side by side on one server: loopback TCP and the Unix
// socket in its data dir (what Quire uses when the path allows). Sequential round trips
// (`SELECT 1`, and a one-row primary-key read like a session lookup) and 8 clients at once; wall
// time and this process's CPU per round trip. Writes bench/results/embedded-db-latest.json.
// Usage: npm run bench -- embedded-db [--round-trips N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { machineFacts, writeLatest } from './lib/results.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const roundTrips = arg('round-trips', 20_000);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-dbbench-'));
fs.chmodSync(dataDir, 0o711);
const server = await startEmbeddedPostgres(dataDir, pino({ level: 'silent' }), 'bench');
const socketUrl = server.url;
const tcpUrl = (() => {
  const u = new URL(server.url);
  u.searchParams.delete('host');
  return u.toString();
})();
if (socketUrl === tcpUrl) throw new Error('the embedded server opened no Unix socket here (data dir path too long?)');

const setup = new pg.Client({ connectionString: tcpUrl });
await setup.connect();
await setup.query('CREATE TABLE IF NOT EXISTS keyed (id text PRIMARY KEY, payload text)');
await setup.query(`INSERT INTO keyed SELECT 'k' || i, repeat('x', 200) FROM generate_series(1, 1000) i ON CONFLICT DO NOTHING`);
await setup.end();

async function measure(url: string, clients: number, query: () => [string, unknown[]]) {
  const pool = Array.from({ length: clients }, () => new pg.Client({ connectionString: url }));
  await Promise.all(pool.map((c) => c.connect()));
  for (const c of pool) for (let i = 0; i < 200; i++) await c.query(...query());
  const started = performance.now();
  const cpu = process.cpuUsage();
  let left = roundTrips;
  await Promise.all(pool.map(async (c) => {
    while (left-- > 0) await c.query(...query());
  }));
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  await Promise.all(pool.map((c) => c.end()));
  return { per_s: Math.round(roundTrips / (ms / 1000)), wall_us: round((ms * 1000) / roundTrips * clients), client_cpu_us: round((used.user + used.system) / roundTrips) };
}

const kinds: Record<string, () => [string, unknown[]]> = {
  select_1: () => ['SELECT 1', []],
  key_read: () => ['SELECT payload FROM keyed WHERE id = $1', [`k${1 + Math.floor(Math.random() * 1000)}`]],
};
const results: Record<string, unknown> = {};
try {
  for (const [kind, query] of Object.entries(kinds))
    for (const clients of [1, 8]) {
      // Alternating, twice each: the machine's load drifts.
      const runs = { tcp: [] as Awaited<ReturnType<typeof measure>>[], socket: [] as Awaited<ReturnType<typeof measure>>[] };
      for (let i = 0; i < 2; i++) {
        runs.tcp.push(await measure(tcpUrl, clients, query));
        runs.socket.push(await measure(socketUrl, clients, query));
      }
      const best = (xs: Awaited<ReturnType<typeof measure>>[]) => xs.reduce((a, b) => (b.per_s > a.per_s ? b : a));
      const row = { tcp: best(runs.tcp), socket: best(runs.socket) };
      results[`${kind}_${clients}_clients`] = { ...row, socket_vs_tcp_rate: round(row.socket.per_s / row.tcp.per_s, 2) };
      console.log(`${kind}, ${clients} client(s): tcp ${row.tcp.per_s}/s (${row.tcp.client_cpu_us} µs client CPU), socket ${row.socket.per_s}/s (${row.socket.client_cpu_us} µs): ${round(row.socket.per_s / row.tcp.per_s, 2)}×`);
    }
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
writeLatest('embedded-db', { at: new Date().toISOString(), machine: machineFacts(), round_trips: roundTrips, results });
