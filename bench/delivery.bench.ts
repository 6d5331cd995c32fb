// `npm run bench -- delivery [--count N] [--loops L]`: delivery throughput on this machine.
// Needs DATABASE_URL (a PostgreSQL server; a scratch database is created and dropped). N finished
// jobs are inserted with a destination (the trigger queues one delivery each), then L delivery
// loops send them: once to a local folder, once to an HTTPS webhook on loopback that checks every
// signature. Prints deliveries/second and per-attempt webhook latency; writes
// bench/results/delivery-latest.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createDb, migrateToLatest } from '../src/db/database.js';
import { DeliveryWorkers } from '../src/delivery/delivery-workers.js';
import { sealContext } from '../src/domain/connections/connections.service.js';
import { SecretBox } from '../src/lib/secret-box.js';
import { newId } from '../src/lib/ids.js';
import { createBlobStore } from '../src/storage/index.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const count = arg('count', 500);
const loops = arg('loops', 4);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  process.stderr.write('DATABASE_URL must name a PostgreSQL server (a scratch database is created there)\n');
  process.exit(2);
}

const dbName = `quire_bench_delivery_${Date.now()}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(serverUrl);
url.pathname = `/${dbName}`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'quire-bench-delivery-'));
const SECRET = 'whsec_bench_0123456789abcdef';
const receiver = await startWebhookReceiver(SECRET);
const config = { ...loadConfig({}), dataDir, localRoot: path.join(dataDir, 'local'), allowPrivateNetwork: true, extraCaCerts: receiver.caFile, deliveryRetryBaseMs: 100 };
const db = createDb(url.toString(), loops + 4);
const results: Record<string, unknown> = { count, loops, cores: (await import('node:os')).availableParallelism() };

try {
  await migrateToLatest(db);
  await db.insertInto('tenants').values({ id: 'bench', name: 'Bench' }).execute();
  const box = SecretBox.fromConfig(config);
  const connections = {
    local: { protocol: 'local' as const, config: { path: 'results' }, credentials: null as string | null },
    webhook: { protocol: 'webhook' as const, config: { url: receiver.url }, credentials: SECRET },
  };
  for (const [name, c] of Object.entries(connections)) {
    const id = newId('con');
    await db
      .insertInto('connections')
      .values({ id, tenant_id: 'bench', name, protocol: c.protocol, direction: 'destination', config: JSON.stringify(c.config), credentials_sealed: c.credentials ? box.sealJson({ secret: c.credentials }, sealContext(id)) : null, credential_keys: c.credentials ? ['secret'] : [] })
      .execute();
    const result = JSON.stringify({ canonical: { text: 'Invoice 42, total 1,234.56 EUR. '.repeat(40) } });
    const started = performance.now();
    for (let i = 0; i < count; i += 100) {
      const rows = Array.from({ length: Math.min(100, count - i) }, () => ({
        id: newId('job'), tenant_id: 'bench', status: 'completed' as const, processing_mode: 'canonical' as const, size_bytes: 10, sha256: '0'.repeat(64),
        destination_connection_id: id, run_after: new Date(), result, finished_at: new Date(), metadata: '{}',
      }));
      await db.insertInto('jobs').values(rows).execute();
    }
    const enqueueSeconds = (performance.now() - started) / 1000;
    const workers = new DeliveryWorkers({ db, config, blobs: createBlobStore(config), log: pino({ level: 'silent' }), workerId: 'bench', loops, pollMinMs: 10, pollMaxMs: 50 });
    const sendStarted = performance.now();
    workers.start();
    for (;;) {
      const { n } = await db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('connection_id', '=', id).where('status', '=', 'delivered').executeTakeFirstOrThrow();
      if (Number(n) >= count) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - sendStarted) / 1000;
    await workers.stop();
    const latencies = (await db.selectFrom('delivery_attempts').innerJoin('deliveries', 'deliveries.id', 'delivery_attempts.delivery_id').select('delivery_attempts.latency_ms').where('deliveries.connection_id', '=', id).execute()).map((r) => r.latency_ms).sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    results[name] = { jobs_inserted_per_second: Math.round(count / enqueueSeconds), deliveries_per_second: Math.round(count / seconds), seconds: Number(seconds.toFixed(2)), attempt_latency_ms: { p50: pct(50), p95: pct(95) } };
    process.stdout.write(`${name}: ${count} deliveries in ${seconds.toFixed(2)} s = ${Math.round(count / seconds)}/s with ${loops} loops (attempt p50 ${pct(50)} ms, p95 ${pct(95)} ms)\n`);
  }
  if (receiver.received.some((r) => !r.signatureValid)) throw new Error('a webhook signature did not verify');
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/delivery-latest.json', import.meta.url), `${JSON.stringify({ measured_at: new Date().toISOString(), ...results }, null, 2)}\n`);
} finally {
  await db.destroy();
  await receiver.close();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
