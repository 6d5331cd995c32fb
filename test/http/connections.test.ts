// Connections CRUD and test, through the real app: access (401/403/404 across tenants), 422 at the
// exact field per protocol, credentials sealed at rest and never returned, local paths kept under
// the root (symlinks resolved), and real round trips to an HTTPS receiver and an S3 server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { expect422, expectError } from '../helpers/expect-errors.js';
import { S3RVER_CREDENTIALS, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { type WebhookReceiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'whsec_0123456789abcdef';
let h: Harness;
let admin: string;
let member: string;
let globex: string;
let receiver: WebhookReceiver;
let s3: S3Server;
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-local-root-'));
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-outside-'));

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET);
  s3 = await startS3Server();
  h = await startHarness({ localRoot, extraCaCerts: receiver.caFile, allowPrivateNetwork: true });
  await h.seedTenant('acme');
  await h.seedTenant('globex');
  admin = (await h.seedUser('acme', 'admin')).token!;
  member = (await h.seedUser('acme', 'member')).token!;
  globex = (await h.seedUser('globex', 'admin')).token!;
});
afterAll(async () => {
  await h.close();
  await receiver.close();
  await s3.close();
});

const create = (token: string, body: unknown) => h.request('POST', '/v1/admin/connections', { token, body });

describe('access', () => {
  it('answers 401 without a credential, 403 to members, 404 for another tenant', async () => {
    expect((await h.request('GET', '/v1/admin/connections')).status).toBe(401);
    expectError(await h.request('GET', '/v1/admin/connections', { token: member }), 403, 'insufficient_role');
    const theirs = await create(globex, { name: 'drop', protocol: 'local', direction: 'destination', config: { path: 'globex' }, credentials: {} });
    expect(theirs.status).toBe(201);
    const id = theirs.body.id;
    expectError(await h.request('GET', `/v1/admin/connections/${id}`, { token: admin }), 404, 'not_found');
    expectError(await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { name: 'x' } }), 404, 'not_found');
    expectError(await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin }), 404, 'not_found');
    expectError(await h.request('DELETE', `/v1/admin/connections/${id}`, { token: admin }), 404, 'not_found');
    expect((await h.request('GET', '/v1/admin/connections', { token: admin })).body.items.map((c: any) => c.id)).not.toContain(id);
  });
});

describe('validation', () => {
  it('sends no secret back: no input for a secret field, secrets inside an echoed body replaced', async () => {
    const kept = 'kept-secret-value-0123456789';
    const tooShort = await create(admin, { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: 'tiny-secret' } });
    expect422(tooShort, { loc: ['body', 'credentials', 'secret'], msg: expect.any(String), type: 'string_too_short', ctx: expect.any(Object) });
    // A missing name echoes the body it is missing from, with the credentials replaced.
    const nameless = await create(admin, { protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: kept } });
    expect422(nameless, expect.objectContaining({ loc: ['body', 'name'], type: 'missing', input: expect.objectContaining({ credentials: '[redacted]' }) }));
    for (const res of [tooShort, nameless]) {
      expect(JSON.stringify(res.body)).not.toContain('tiny-secret');
      expect(JSON.stringify(res.body)).not.toContain(kept);
    }
  });

  it('names the exact field per protocol', async () => {
    expect422(await create(admin, { name: 'a', protocol: 'ftp', direction: 'destination', config: {}, credentials: {} }), { loc: ['body', 'protocol'], msg: expect.any(String), type: 'enum', input: 'ftp', ctx: expect.any(Object) });
    expect422(await create(admin, { name: 'a/b', protocol: 'local', direction: 'destination', config: { path: 'x' }, credentials: {} }), expect.objectContaining({ loc: ['body', 'name'], type: 'string_pattern_mismatch' }));
    expect422(await create(admin, { name: 's3', protocol: 's3', direction: 'destination', config: { prefix: 'p' }, credentials: { access_key_id: 'a' } }),
      expect.objectContaining({ loc: ['body', 'config', 'bucket'], type: 'missing' }),
      expect.objectContaining({ loc: ['body', 'credentials', 'secret_access_key'], type: 'missing' }));
    expect422(await create(admin, { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: 'http://example.com/x' }, credentials: { secret: SECRET } }),
      expect.objectContaining({ loc: ['body', 'config', 'url'], type: 'string_pattern_mismatch' }));
    expect422(await create(admin, { name: 'hook', protocol: 'webhook', direction: 'both', config: { url: receiver.url }, credentials: { secret: 'short' } }),
      expect.objectContaining({ loc: ['body', 'direction'] }),
      expect.objectContaining({ loc: ['body', 'credentials', 'secret'], type: 'string_too_short' }));
    expect422(await create(admin, { name: 'sftp', protocol: 'sftp', direction: 'source', config: { host: 'h', path: '/in', username: 'u', port: 70000, poll_seconds: 0 }, credentials: { password: 'p' } }),
      expect.objectContaining({ loc: ['body', 'config', 'port'], type: 'less_than_equal' }),
      expect.objectContaining({ loc: ['body', 'config', 'poll_seconds'], type: 'greater_than_equal' }));
    expect422(await create(admin, { name: 'l', protocol: 'local', direction: 'destination', config: { path: 'x', after: 'move' }, credentials: {} }),
      expect.objectContaining({ loc: ['body', 'config', 'after'] }));
    const extra = await create(admin, { name: 'l', protocol: 'local', direction: 'destination', config: { path: 'x' }, credentials: {}, region: 'eu' });
    expect422(extra, expect.objectContaining({ loc: ['body', 'region'], type: 'extra_forbidden' }));
    // Headers that could never be sent: a name that is no HTTP token, a value that would split the request.
    const headers = await create(admin, { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url, headers: { 'bad header': 'v', 'X-Ok': 'a\r\nInjected: 1' } }, credentials: { secret: SECRET } });
    expect(headers.status).toBe(422);
    const locs = headers.body.detail.map((d: { loc: unknown }) => JSON.stringify(d.loc));
    expect(locs).toContain(JSON.stringify(['body', 'config', 'headers', 'bad header']));
    expect(locs).toContain(JSON.stringify(['body', 'config', 'headers', 'X-Ok']));
    expect((await h.request('GET', '/v1/admin/connections', { token: admin })).body.items).toEqual([]);
  });

  it('keeps local paths under the root, resolving symlinks first', async () => {
    expect422(await create(admin, { name: 'up', protocol: 'local', direction: 'destination', config: { path: '../elsewhere' }, credentials: {} }), expect.objectContaining({ loc: ['body', 'config', 'path'], type: 'value_error' }));
    expect422(await create(admin, { name: 'abs', protocol: 'local', direction: 'destination', config: { path: outside }, credentials: {} }), expect.objectContaining({ loc: ['body', 'config', 'path'] }));
    fs.mkdirSync(path.join(localRoot, 'acme'), { recursive: true });
    fs.symlinkSync(outside, path.join(localRoot, 'acme', 'sneaky'));
    expect422(await create(admin, { name: 'link', protocol: 'local', direction: 'destination', config: { path: 'sneaky/results' }, credentials: {} }), expect.objectContaining({ loc: ['body', 'config', 'path'] }));
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it("keeps each tenant's local paths in its own folder, and names no server directory", async () => {
    for (const p of ['../globex', '../globex/results', '..', '../..']) {
      const res = await create(admin, { name: 'theirs', protocol: 'local', direction: 'source', config: { path: p, poll_seconds: 60 }, credentials: {} });
      expect422(res, expect.objectContaining({ loc: ['body', 'config', 'path'], type: 'value_error' }));
      expect(JSON.stringify(res.body)).not.toContain(localRoot);
    }
    // The folder named "globex" in acme's connection is acme's own.
    const own = await create(admin, { name: 'named-like-them', protocol: 'local', direction: 'destination', config: { path: 'globex' }, credentials: {} });
    const tested = await h.request('POST', `/v1/admin/connections/${own.body.id}/test`, { token: admin });
    expect(tested.body).toMatchObject({ ok: true, detail: 'The folder "globex" is writable.' });
    expect(fs.existsSync(path.join(localRoot, 'acme', 'globex'))).toBe(true);
  });

  it('refuses private addresses unless the platform allows them', async () => {
    const strict = await startHarness({ localRoot, allowPrivateNetwork: false });
    try {
      await strict.seedTenant('acme');
      const token = (await strict.seedUser('acme', 'admin')).token!;
      const res = await strict.request('POST', '/v1/admin/connections', { token, body: { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } } });
      expect422(res, expect.objectContaining({ loc: ['body', 'config', 'url'], type: 'value_error' }));
    } finally {
      await strict.close();
    }
  });
});

describe('lifecycle', () => {
  it('creates, reads, lists, updates and deletes, never returning or storing credentials in clear', async () => {
    const res = await create(admin, { name: 'results bucket', protocol: 's3', direction: 'destination', config: { bucket: s3.bucket, prefix: 'out', endpoint_url: s3.endpoint, force_path_style: true }, credentials: S3RVER_CREDENTIALS });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^con_/), protocol: 's3', direction: 'destination', credentials: { access_key_id: 'set', secret_access_key: 'set' } });
    const id = res.body.id;
    expect(JSON.stringify(res.body)).not.toContain('S3RVER');
    const row = await h.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.credentials_sealed).toMatch(/^v1:/);
    expect(row.credentials_sealed).not.toContain('S3RVER');
    const audit = await h.db.selectFrom('audit_log').select('details').where('resource_id', '=', id).execute();
    expect(JSON.stringify(audit)).not.toContain('S3RVER');

    expect((await h.request('GET', `/v1/admin/connections/${id}`, { token: admin })).body.credentials).toEqual({ access_key_id: 'set', secret_access_key: 'set' });
    expectError(await create(admin, { name: 'Results Bucket', protocol: 'local', direction: 'destination', config: { path: 'x' }, credentials: {} }), 409, 'duplicate_name');

    const tested = await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin });
    expect(tested.body, JSON.stringify(tested.body)).toMatchObject({ ok: true, latency_ms: expect.any(Number) });

    const renamed = await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { name: 'renamed', config: { bucket: 'missing-bucket', endpoint_url: s3.endpoint }, credentials: { access_key_id: 'NOPE', secret_access_key: 'wrong-secret' } } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('renamed');
    const failed = await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin });
    expect(failed.body.ok).toBe(false);
    expect(failed.body.detail).not.toContain('wrong-secret');
    expect422(await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { config: { bucket: 'B!' } } }), expect.objectContaining({ loc: ['body', 'config', 'bucket'] }));
    // The protocol cannot change: naming it is refused, not ignored.
    expect422(await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { protocol: 'local' } }), expect.objectContaining({ loc: ['body', 'protocol'], type: 'extra_forbidden' }));

    expect((await h.request('DELETE', `/v1/admin/connections/${id}`, { token: admin })).status).toBe(204);
    expectError(await h.request('GET', `/v1/admin/connections/${id}`, { token: admin }), 404, 'not_found');
  });

  it('tests a webhook with a signed round trip over TLS trusted through QUIRE_EXTRA_CA_CERTS', async () => {
    const res = await create(admin, { name: 'hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url, headers: { 'x-team': 'ops' } }, credentials: { secret: SECRET } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tested = await h.request('POST', `/v1/admin/connections/${res.body.id}/test`, { token: admin });
    expect(tested.body).toMatchObject({ ok: true });
    const ping = receiver.received.at(-1)!;
    expect(ping).toMatchObject({ event: 'connection.test', signatureValid: true });
  });

  it("seals a webhook's header values, answers their names only, and keeps a value sent back as its placeholder", async () => {
    const res = await create(admin, { name: 'keyed hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url, headers: { Authorization: 'Bearer RECEIVER-KEY-123', 'X-Team': 'ops' } }, credentials: { secret: SECRET } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.id;
    const hidden = { Authorization: '[hidden]', 'X-Team': '[hidden]' };
    expect(res.body.config.headers).toEqual(hidden);
    expect(res.body.credentials).toEqual({ secret: 'set' });
    expect((await h.request('GET', `/v1/admin/connections/${id}`, { token: admin })).body.config.headers).toEqual(hidden);
    const row = await h.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('RECEIVER-KEY-123');
    expect(row.credential_keys).toEqual(['secret']);
    // Sent with the real values.
    expect((await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin })).body).toMatchObject({ ok: true });
    expect(receiver.received.at(-1)!.headers).toMatchObject({ authorization: 'Bearer RECEIVER-KEY-123', 'x-team': 'ops' });
    // A PATCH of the config sending the placeholder back keeps the stored value; a new value replaces it.
    const patched = await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { config: { url: receiver.url, headers: { Authorization: '[hidden]', 'X-Team': 'finance' }, timeout_seconds: 10 } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.config).toEqual({ url: receiver.url, headers: hidden, timeout_seconds: 10 });
    expect((await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin })).body).toMatchObject({ ok: true });
    expect(receiver.received.at(-1)!.headers).toMatchObject({ authorization: 'Bearer RECEIVER-KEY-123', 'x-team': 'finance' });
    // New credentials keep the headers; a placeholder for a header never stored is refused.
    expect((await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { credentials: { secret: `${SECRET}-2` } } })).status).toBe(200);
    const opened = await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { credentials: { secret: SECRET } } });
    expect(opened.body.config.headers).toEqual(hidden);
    expect((await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin })).body).toMatchObject({ ok: true });
    expect(receiver.received.at(-1)!.headers).toMatchObject({ authorization: 'Bearer RECEIVER-KEY-123' });
    expect422(await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { config: { url: receiver.url, headers: { 'X-New': '[hidden]' } } } }), expect.objectContaining({ loc: ['body', 'config', 'headers', 'X-New'] }));
    // Stored values go to the URL's origin only: another receiver needs them sent again.
    const elsewhere = receiver.url.replace('127.0.0.1', 'localhost');
    expect422(await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { config: { url: elsewhere, headers: { Authorization: '[hidden]' } } } }), expect.objectContaining({ loc: ['body', 'config', 'headers', 'Authorization'] }));
    const sftp = await create(admin, { name: 'drop box', protocol: 'sftp', direction: 'destination', config: { host: '127.0.0.1', port: 2222, path: 'in', username: 'quire' }, credentials: { password: 'sftp-password-1' } });
    expect(sftp.status, JSON.stringify(sftp.body)).toBe(201);
    expect422(await h.request('PATCH', `/v1/admin/connections/${sftp.body.id}`, { token: admin, body: { config: { host: '127.0.0.2', port: 2222, path: 'in', username: 'quire' } } }), expect.objectContaining({ loc: ['body', 'credentials'], type: 'missing' }));
    expect((await h.request('PATCH', `/v1/admin/connections/${sftp.body.id}`, { token: admin, body: { config: { host: '127.0.0.1', port: 2222, path: 'out', username: 'quire' } } })).status).toBe(200);
    expect422(await create(admin, { name: 'placeholder hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url, headers: { 'X-Key': '[hidden]' } }, credentials: { secret: SECRET } }), expect.objectContaining({ loc: ['body', 'config', 'headers', 'X-Key'] }));
    const audit = await h.db.selectFrom('audit_log').select('details').where('resource_id', '=', id).execute();
    expect(JSON.stringify(audit)).not.toContain('RECEIVER-KEY-123');
  });

  it('answers a webhook written before its header values were sealed with the values hidden, and seals them at its next change', async () => {
    const res = await create(admin, { name: 'old hook', protocol: 'webhook', direction: 'destination', config: { url: receiver.url }, credentials: { secret: SECRET } });
    const id = res.body.id;
    await h.db.updateTable('connections').set({ config: JSON.stringify({ url: receiver.url, headers: { 'X-Api-Key': 'LEGACY-KEY-9' } }) as never }).where('id', '=', id).execute();
    expect((await h.request('GET', `/v1/admin/connections/${id}`, { token: admin })).body.config.headers).toEqual({ 'X-Api-Key': '[hidden]' });
    expect((await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin })).body).toMatchObject({ ok: true });
    expect(receiver.received.at(-1)!.headers).toMatchObject({ 'x-api-key': 'LEGACY-KEY-9' });
    expect((await h.request('PATCH', `/v1/admin/connections/${id}`, { token: admin, body: { credentials: { secret: SECRET } } })).status).toBe(200);
    const row = await h.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row.config)).not.toContain('LEGACY-KEY-9');
    expect((await h.request('POST', `/v1/admin/connections/${id}/test`, { token: admin })).body).toMatchObject({ ok: true });
    expect(receiver.received.at(-1)!.headers).toMatchObject({ 'x-api-key': 'LEGACY-KEY-9' });
  });

  it('tests a local destination by writing a probe file', async () => {
    const res = await create(admin, { name: 'folder', protocol: 'local', direction: 'destination', config: { path: 'results' }, credentials: {} });
    const tested = await h.request('POST', `/v1/admin/connections/${res.body.id}/test`, { token: admin });
    expect(tested.body).toMatchObject({ ok: true });
    expect(fs.existsSync(path.join(localRoot, 'acme/results'))).toBe(true);
  });
});
