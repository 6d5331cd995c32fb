// SFTP connections against a real SSH server on loopback (the ssh2 package's server): the first
// test pins the host key, a wrong pin is refused, password and private-key sign-in both work,
// results are delivered as files and a source's files become jobs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FILES, upload, uploadBatch, waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type SftpServer, startSftpServer } from '../helpers/sftp-server.js';

let h: Harness;
let admin: string;
let sftp: SftpServer;

beforeAll(async () => {
  sftp = await startSftpServer();
  h = await startHarness({ allowPrivateNetwork: true }, { workers: 1 });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
});
afterAll(async () => {
  await h.close();
  await sftp.close();
});

const base = () => ({ host: sftp.host, port: sftp.port, username: sftp.username });

async function create(name: string, direction: string, config: Record<string, unknown>, credentials: Record<string, unknown>) {
  const res = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name, protocol: 'sftp', direction, config: { ...base(), ...config }, credentials } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('sftp', () => {
  it('pins the host key on the first test and refuses a server that presents another', async () => {
    const conn = await create('drop', 'destination', { path: '/results' }, { password: sftp.password });
    expect(conn.config.host_key_sha256).toBeUndefined();
    const first = await h.request('POST', `/v1/admin/connections/${conn.id}/test`, { token: admin });
    expect(first.body, JSON.stringify(first.body)).toMatchObject({ ok: true });
    const pinned = await h.request('GET', `/v1/admin/connections/${conn.id}`, { token: admin });
    expect(pinned.body.config.host_key_sha256).toBe(sftp.hostKeySha256);
    expect(pinned.body.credentials).toEqual({ password: 'set' });

    const wrong = await create('wrong-pin', 'destination', { path: '/results', host_key_sha256: `SHA256:${'A'.repeat(43)}` }, { password: sftp.password });
    const refused = await h.request('POST', `/v1/admin/connections/${wrong.id}/test`, { token: admin });
    expect(refused.body.ok).toBe(false);
    expect(refused.body.detail).toContain(sftp.hostKeySha256);
  });

  it('signs in with a private key and with a password; a wrong password fails the test', async () => {
    // The SFTP library's own listeners would print plain lines into the JSON log as connections end.
    const printed = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error')];
    const keyed = await create('keyed', 'destination', { path: '/keyed', host_key_sha256: sftp.hostKeySha256 }, { private_key: sftp.clientPrivateKey });
    expect((await h.request('POST', `/v1/admin/connections/${keyed.id}/test`, { token: admin })).body).toMatchObject({ ok: true });
    const bad = await create('bad-password', 'destination', { path: '/keyed', host_key_sha256: sftp.hostKeySha256 }, { password: 'not-the-password' });
    const failed = await h.request('POST', `/v1/admin/connections/${bad.id}/test`, { token: admin });
    expect(failed.body.ok).toBe(false);
    expect(failed.body.detail).not.toContain('not-the-password');
    await new Promise((resolve) => setTimeout(resolve, 200)); // the connections' end and close events
    for (const spy of printed) {
      expect(spy.mock.calls.flat().join('\n')).not.toMatch(/Global (end|close|error) listener/);
      spy.mockRestore();
    }
  });

  it('delivers a finished job as <path>/<job_id>.json', async () => {
    const conn = await create('out', 'destination', { path: '/out', host_key_sha256: sftp.hostKeySha256 }, { password: sftp.password });
    const res = await upload(h, admin, { name: 'n.txt', bytes: Buffer.from('Invoice N total 5.00') }, { processing_mode: 'canonical', destination_connection_id: conn.id });
    const file = path.join(sftp.root, 'out', `${res.body.job_id}.json`);
    await waitFor('the delivered file', async () => fs.existsSync(file), 60_000, 100);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ job_id: res.body.job_id, status: 'completed' });
  });

  it('delivers the original of a batch job byte for byte, streamed from the blob store', async () => {
    const conn = await create('originals', 'destination', { path: '/originals', host_key_sha256: sftp.hostKeySha256 }, { password: sftp.password });
    const batch = await uploadBatch(h, admin, [FILES.bol], { processing_mode: 'canonical', destination_connection_id: conn.id, destination_config: JSON.stringify({ include_original: true }) });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const manifest = path.join(sftp.root, 'originals', batch.body.batch_id, 'manifest.json');
    await waitFor('the batch manifest', async () => fs.existsSync(manifest), 60_000, 100);
    const jobId = JSON.parse(fs.readFileSync(manifest, 'utf8')).jobs[0].job_id as string;
    const original = path.join(sftp.root, 'originals', jobId, 'original', path.basename(FILES.bol));
    expect(fs.readFileSync(original).equals(fs.readFileSync(FILES.bol))).toBe(true);
    // Nothing of the write is left under its temporary name.
    expect(fs.readdirSync(path.dirname(original))).toEqual([path.basename(FILES.bol)]);
  });

  it('turns files in a source path into jobs and moves them to processed/', async () => {
    fs.mkdirSync(path.join(sftp.root, 'in'));
    fs.writeFileSync(path.join(sftp.root, 'in', 'one.txt'), 'From SFTP one');
    fs.writeFileSync(path.join(sftp.root, 'in', 'two.txt'), 'From SFTP two');
    const conn = await create('inbox', 'source', { settle_seconds: 0, path: '/in', host_key_sha256: sftp.hostKeySha256, poll_seconds: 1, processing_mode: 'canonical', after: 'move' }, { password: sftp.password });
    await waitFor('both files to move', async () => fs.existsSync(path.join(sftp.root, 'in/processed/one.txt')) && fs.existsSync(path.join(sftp.root, 'in/processed/two.txt')), 60_000, 200);
    const files = await h.db.selectFrom('source_files').select(['path', 'job_id']).where('connection_id', '=', conn.id).orderBy('path').execute();
    expect(files.map((f) => f.path)).toEqual(['one.txt', 'two.txt']);
    expect(files.every((f) => f.job_id)).toBe(true);
  });
});
