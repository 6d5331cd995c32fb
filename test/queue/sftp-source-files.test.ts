// An SFTP source's files are streamed into the blob store, never read whole into memory: a large
// file arrives byte for byte, one over the upload limit by its listed size is never read, and one
// that grew past the limit after the listing is read only up to about the limit, then refused and
// reported, leaving nothing in the staging area. A real SSH server on loopback (the ssh2 package's
// server) counts the bytes it sends; the poller runs as a worker runs it (pollDue).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourcePoller } from '../../src/sources/source-poller.js';
import { createBlobStore } from '../../src/storage/index.js';
import { DATA } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type SftpServer, startSftpServer } from '../helpers/sftp-server.js';

const MiB = 2 ** 20;
const LIMIT = 4 * MiB;
let h: Harness;
let admin: string;
let sftp: SftpServer;
let poller: SourcePoller;

beforeAll(async () => {
  sftp = await startSftpServer();
  h = await startHarness({ allowPrivateNetwork: true, maxUploadBytes: LIMIT });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
  poller = new SourcePoller({ db: h.db, config: h.config, blobs: createBlobStore(h.config), log: pino({ level: 'silent' }), workerId: 'test-poller' });
});
afterAll(async () => {
  await h.close();
  await sftp.close();
});

async function source(name: string, dir: string): Promise<string> {
  fs.mkdirSync(path.join(sftp.root, dir), { recursive: true });
  const config = { host: sftp.host, port: sftp.port, username: sftp.username, host_key_sha256: sftp.hostKeySha256, path: `/${dir}`, settle_seconds: 0, poll_seconds: 3600, processing_mode: 'canonical' };
  const res = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name, protocol: 'sftp', direction: 'source', config, credentials: { password: sftp.password } } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function pollNow(connectionId: string): Promise<void> {
  await h.db.updateTable('connections').set({ next_poll_at: new Date() }).where('id', '=', connectionId).execute();
  await poller.pollDue();
}

async function jobsOf(connectionId: string) {
  const rows = await h.db.selectFrom('jobs').select(['original_filename', 'sha256', 'size_bytes', 'metadata']).where('tenant_id', '=', 'acme').execute();
  return rows.filter((r) => (r.metadata as { source?: { connection_id: string } }).source?.connection_id === connectionId);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('an sftp source', () => {
  it('streams a file into the blob store intact and never reads one over the upload limit', async () => {
    const id = await source('scans', 'scans');
    const pdf = fs.readFileSync(path.join(DATA, 'pdf-realworld/pdfs/pr-136-example.pdf'));
    fs.writeFileSync(path.join(sftp.root, 'scans/report.pdf'), pdf);
    const big = Buffer.concat([pdf, pdf]);
    fs.writeFileSync(path.join(sftp.root, 'scans/twice.pdf'), big);

    await pollNow(id);
    const jobs = await jobsOf(id);
    expect(jobs.map((j) => [j.original_filename, j.sha256, j.size_bytes])).toEqual([['report.pdf', sha256(pdf), pdf.length]]);
    expect((await createBlobStore(h.config).readAll(sha256(pdf))).equals(pdf)).toBe(true);
    expect(sftp.bytesServed.get('/scans/report.pdf')).toBe(pdf.length);
    // Judged by its listed size: not a byte of it is read.
    expect(sftp.bytesServed.get('/scans/twice.pdf')).toBeUndefined();
    const connection = await h.request('GET', `/v1/admin/connections/${id}`, { token: admin });
    expect(connection.body.last_poll_error).toBe(`1 file was not taken: twice.pdf is ${big.length} bytes, over the upload limit of ${LIMIT} bytes (QUIRE_MAX_UPLOAD_BYTES).`);
  });

  it('stops reading a file that grew past the upload limit after the listing, and reports it', async () => {
    const id = await source('growing', 'growing');
    const file = path.join(sftp.root, 'growing/scan.pdf');
    fs.writeFileSync(file, fs.readFileSync(path.join(DATA, 'pdf-realworld/pdfs/issue-912.pdf')));
    // Listed at about 1 MiB; its writer appends 30 MiB more just as the poll opens it.
    sftp.onOpen = (opened) => {
      if (opened === '/growing/scan.pdf') fs.appendFileSync(file, Buffer.alloc(30 * MiB, 0x20));
    };
    try {
      await pollNow(id);
    } finally {
      sftp.onOpen = null;
    }
    expect(await jobsOf(id)).toEqual([]);
    const connection = await h.request('GET', `/v1/admin/connections/${id}`, { token: admin });
    expect(connection.body.last_poll_error).toBe(`1 file was not taken: scan.pdf grew past the upload limit of ${LIMIT} bytes (QUIRE_MAX_UPLOAD_BYTES).`);
    // Read up to the limit and a little more (the blocks asked for ahead), not the 31 MiB file.
    expect(sftp.bytesServed.get('/growing/scan.pdf')).toBeGreaterThan(LIMIT);
    expect(sftp.bytesServed.get('/growing/scan.pdf')).toBeLessThan(LIMIT + 2 * MiB);
    expect(fs.readdirSync(createBlobStore(h.config).stagingDir)).toEqual([]);
    expect(fs.existsSync(file)).toBe(true);
  });
});
