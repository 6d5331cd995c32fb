// Patterns a tenant writes run in the linear-time engine: a pattern rule, a `pattern` in the
// template's JSON schema and a classification keyword. One the engine cannot compile is a 422 when
// the template is saved; a catastrophic-backtracking one runs in one pass instead of stalling a
// pipeline thread or the server's event loop.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, waitFor } from '../helpers/documents.js';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let admin: string;
let member: string;
beforeAll(async () => {
  h = await startHarness();
  admin = (await h.seedUser(DEFAULT_TENANT_ID, 'admin')).token!;
  member = (await h.seedUser(DEFAULT_TENANT_ID, 'member')).token!;
});
afterAll(() => h.close());

const template = (name: string, pattern: string) => ({
  name,
  json_schema: { type: 'object', properties: { invoice_number: { type: 'string' } } },
  validation_rules: [{ kind: 'pattern', field: 'invoice_number', params: { pattern } }],
});

const schemaWith = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

const textFile = (text: string) => ({ name: 'note.txt', bytes: Buffer.from(text) });

describe('template pattern rules', () => {
  it('refuses backreferences and lookaround with 422 at the pattern, and stores nothing', async () => {
    for (const [i, pattern] of ['(a)\\1', '^(?=INV)', '(?<!x)y'].entries()) {
      const res = await h.request('POST', '/v1/templates', { token: admin, body: template(`regex-${i}`, pattern) });
      expect(res.status, pattern).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'validation_rules', 0, 'params', 'pattern'], type: 'value_error' });
    }
    const list = await h.request('GET', '/v1/templates', { token: admin });
    expect(list.body.items.filter((t: { name: string }) => t.name.startsWith('regex-'))).toEqual([]);
  });

  it('accepts a catastrophic-backtracking pattern, which the engine runs in linear time', async () => {
    const res = await h.request('POST', '/v1/templates', { token: admin, body: template('regex-ok', '^(a+)+$') });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('JSON schema patterns', () => {
  it('refuses a pattern or patternProperties key the engine cannot run with 422 at json_schema, and stores nothing', async () => {
    const schemas = [
      schemaWith({ code: { type: 'string', pattern: '^(?=INV)\\w+' } }),
      schemaWith({ code: { type: 'string', pattern: '(a)\\1' } }),
      schemaWith({ code: { type: 'string' } }, { patternProperties: { '^(?!x)': { type: 'string' } } }),
    ];
    for (const [i, json_schema] of schemas.entries()) {
      const res = await h.request('POST', '/v1/templates', { token: admin, body: { name: `schema-regex-${i}`, json_schema } });
      expect(res.status, JSON.stringify(json_schema)).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'json_schema'], type: 'json_schema_invalid' });
    }
    const list = await h.request('GET', '/v1/templates', { token: admin });
    expect(list.body.items.filter((t: { name: string }) => t.name.startsWith('schema-regex-'))).toEqual([]);
  });

  it('accepts the JavaScript escapes JSON schemas use (\\uXXXX) and extracts with them', async () => {
    const res = await postForm(h, '/v1/templates/test', member, [{ field: 'file', file: textFile('Code: caf\u00e9-42\n') }], {
      template: JSON.stringify({ name: 'escapes', json_schema: schemaWith({ code: { type: 'string', pattern: '^caf\\u00e9-\\d+$' } }) }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.extraction.data.code).toBe('caf\u00e9-42');
  });
});

describe('catastrophic-backtracking patterns', () => {
  // A backtracking match would hold the server for hours (keywords are matched on its event loop,
  // a template's extraction on one of its pipeline threads): the server runs as its own process
  // here, so a stalled one fails the test instead of hanging it.
  let base = '';
  let server: ChildProcess | null = null;
  let output = '';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-patterns-'));

  beforeAll(async () => {
    // A port the system says is free this moment, for the server process to listen on.
    const port = await new Promise<number>((resolve, reject) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
      probe.on('error', reject);
    });
    base = `http://127.0.0.1:${port}`;
    const root = path.resolve(import.meta.dirname, '../..');
    const serve = `const { main } = await import(${JSON.stringify(path.join(root, 'src/cli.ts'))}); await main(['serve', '--no-workers']);`;
    server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', serve], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: h.databaseUrl, QUIRE_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', QUIRE_WORKERS: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));
    await waitFor('the server to listen', async () => output.includes('Quire is serving') || (server!.exitCode !== null && Promise.reject(new Error(output))), 60_000, 200);
  }, 90_000);

  afterAll(() => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const live = async () => (await fetch(`${base}/v1/health/live`, { signal: AbortSignal.timeout(10_000) })).status;

  it('extract with a JSON schema pattern over a long run of its letter in one pass (a member can send one inline)', async () => {
    // A backtracking engine takes 2^n steps for (x+x+)+y against n x's and no y.
    const form = new FormData();
    form.append('template', JSON.stringify({ name: 'backtracking', json_schema: schemaWith({ code: { type: 'string', pattern: '(x+x+)+y' } }) }));
    form.append('file', new Blob([`Code: ${'x'.repeat(5_000)}\nRef: xxy\n`]), 'note.txt');
    const res = await fetch(`${base}/v1/templates/test`, { method: 'POST', headers: { authorization: `Bearer ${member}` }, body: form, signal: AbortSignal.timeout(45_000) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('completed');
    expect(await live()).toBe(200);
  }, 60_000);

  it('match a classification keyword pattern over a long run of its letter in one pass', async () => {
    const created = await h.request('POST', '/v1/templates', {
      token: admin,
      body: { name: 'keyword-backtracking', json_schema: schemaWith({ code: { type: 'string' } }, { 'x-classification': { keywords: ['(a+)+b'] } }) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const form = new FormData();
    form.append('file', new Blob([`Note\n${'a'.repeat(5_000)}\n`]), 'note.txt');
    const res = await fetch(`${base}/v1/templates/classify`, { method: 'POST', headers: { authorization: `Bearer ${member}` }, body: form, signal: AbortSignal.timeout(45_000) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { candidates: { name: string }[] };
    expect(body.candidates.map((c) => c.name)).toContain('keyword-backtracking');
    expect(await live()).toBe(200);
  }, 60_000);
});
