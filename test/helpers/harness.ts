// Per test file: a fresh database cloned from the migrated template, the real app listening on a
// loopback port, and a small HTTP client. Fixtures that set up state the test is not about go
// straight to the database; the behaviour under test always goes through HTTP.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { type Db, createDb } from '../../src/db/database.js';
import type { Role } from '../../src/db/schema.js';
import { bootstrapPlatform, DEFAULT_TENANT_ID } from '../../src/domain/tenants/bootstrap.js';
import { buildApp } from '../../src/http/app.js';
import type { App } from '../../src/http/context.js';
import { hashPassword } from '../../src/lib/secrets.js';
import { newId } from '../../src/lib/ids.js';
import { Workers } from '../../src/queue/workers.js';
import { PolicyService } from '../../src/domain/policy/policy.service.js';

export const ADMIN_EMAIL = 'root@quire.test';
export const ADMIN_PASSWORD = 'correct horse battery staple';
export const PASSWORD = 'a-long-enough-password';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  tenant?: string;
  headers?: Record<string, string>;
  /** Raw body sent as-is (with its own content type in headers). */
  raw?: string | Buffer;
}

export interface Harness {
  app: App;
  db: Db;
  config: Config;
  baseUrl: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  login(email: string, password: string): Promise<string>;
  adminToken(): Promise<string>;
  seedTenant(id: string, name?: string): Promise<void>;
  seedUser(tenantId: string, role: Role, options?: { email?: string; password?: string; status?: 'active' | 'invited' | 'suspended' }): Promise<{ id: string; email: string; token: string | null }>;
  /** Connection string of this file's database (for processes the test starts itself). */
  databaseUrl: string;
  /** In-process document workers, when started with `{ workers: n }`. */
  workers: Workers | null;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Document workers to run in this process (default 0: jobs stay queued). */
  workers?: number;
  /** Where the app's and the workers' log lines go (default: nowhere), at debug level. */
  logStream?: NodeJS.WritableStream;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function cloneTemplate(serverUrl: string, template: string): Promise<string> {
  const name = `quire_t_${inject('runId')}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // Concurrent clones of one template can collide briefly ("source database is being accessed").
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (err) {
        if (attempt >= 20 || (err as { code?: string }).code !== '55006') throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return name;
}

export async function startHarness(overrides: Partial<Config> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const serverUrl = inject('serverUrl');
  const dbName = await cloneTemplate(serverUrl, inject('templateDb'));
  // Blobs and other files of this test file live in a directory of its own.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-data-'));
  const config: Config = { ...loadConfig({}), dataDir, adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, ...overrides };
  const db = createDb(withDatabase(serverUrl, dbName), 5);
  await bootstrapPlatform(db, config, pino({ level: 'silent' }));
  // With workers, the app and the workers share one policy service, so a policy change made
  // through the API reaches the next job at once (across processes it takes up to a second).
  const policy = options.workers ? new PolicyService(db) : undefined;
  const workers = options.workers
    ? new Workers({ db, databaseUrl: withDatabase(serverUrl, dbName), config, log: options.logStream ? pino({ level: 'debug' }, options.logStream) : pino({ level: 'silent' }), count: options.workers, pollMaxMs: 1_000, policy })
    : null;
  await workers?.start();
  const app = await buildApp({ db, config, version: 'test', workerCount: () => workers?.size ?? 0, ...(policy ? { policy } : {}) }, options.logStream ? { level: 'debug', stream: options.logStream } : false);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let cachedAdminToken: string | null = null;

  const request: Harness['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.tenant) headers['x-tenant-id'] = options.tenant;
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = typeof options.raw === 'string' ? options.raw : new Uint8Array(options.raw);
    else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body as BodyInit | undefined });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as never, headers: res.headers };
  };

  const login = async (email: string, password: string) => {
    const res = await request('POST', '/v1/auth/login', { body: { email, password } });
    if (res.status !== 200) throw new Error(`login failed for ${email}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.access_token as string;
  };

  return {
    app,
    db,
    config,
    baseUrl,
    request,
    login,
    adminToken: async () => (cachedAdminToken ??= await login(ADMIN_EMAIL, ADMIN_PASSWORD)),
    seedTenant: async (id, name = `Tenant ${id}`) => {
      await db.insertInto('tenants').values({ id, name }).execute();
    },
    seedUser: async (tenantId, role, options = {}) => {
      const email = options.email ?? `${role}-${randomBytes(4).toString('hex')}@${tenantId}.test`;
      const status = options.status ?? 'active';
      const password = options.password ?? PASSWORD;
      const id = newId('usr');
      await db
        .insertInto('users')
        .values({ id, tenant_id: tenantId, email, display_name: null, role, status, password_hash: status === 'invited' ? null : await hashPassword(password) })
        .execute();
      return { id, email, token: status === 'active' ? await login(email, password) : null };
    },
    workers,
    databaseUrl: withDatabase(serverUrl, dbName),
    close: async () => {
      await workers?.stop(0);
      await app.close();
      await policy?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await db.destroy();
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export { DEFAULT_TENANT_ID };
