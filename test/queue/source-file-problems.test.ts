// Sources meet files they cannot take yet or at all: one over the upload limit is reported on the
// connection and never keeps the other files of the listing from becoming jobs. The poller runs
// here exactly as a worker runs it (pollDue), with no other poller beside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../src/storage/index.js';
import { SourcePoller } from '../../src/sources/source-poller.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const LIMIT = 4096;
let h: Harness;
let admin: string;
let poller: SourcePoller;
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-source-problems-'));

beforeAll(async () => {
  h = await startHarness({ localRoot, maxUploadBytes: LIMIT });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
  poller = new SourcePoller({ db: h.db, config: h.config, blobs: createBlobStore(h.config), log: pino({ level: 'silent' }), workerId: 'test-poller' });
});
afterAll(async () => {
  await h.close();
});

async function source(name: string, config: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name, protocol: 'local', direction: 'source', config, credentials: {} } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function jobNamesOf(connectionId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('jobs').select(['original_filename', 'metadata']).where('tenant_id', '=', 'acme').execute();
  return rows.filter((r) => (r.metadata as { source?: { connection_id: string } }).source?.connection_id === connectionId).map((r) => r.original_filename!).sort();
}

async function pollNow(connectionId: string): Promise<void> {
  await h.db.updateTable('connections').set({ next_poll_at: new Date() }).where('id', '=', connectionId).execute();
  await poller.pollDue();
}

describe('a file over the upload limit', () => {
  it('is reported on the connection and left in place while every other file becomes a job', async () => {
    const id = await source('with-big-file', { settle_seconds: 0, path: 'big-in', poll_seconds: 60, processing_mode: 'canonical' });
    const inbox = path.join(localRoot, 'acme/big-in');
    fs.mkdirSync(inbox, { recursive: true });
    // Every listing order has the big file before some of the others.
    fs.writeFileSync(path.join(inbox, 'a note.txt'), 'First note');
    fs.writeFileSync(path.join(inbox, 'big scan.txt'), 'x'.repeat(LIMIT + 1));
    fs.writeFileSync(path.join(inbox, 'c-note.txt'), 'Third note');
    fs.writeFileSync(path.join(inbox, 'd-note.txt'), 'Fourth note');

    await pollNow(id);
    expect(await jobNamesOf(id)).toEqual(['a note.txt', 'c-note.txt', 'd-note.txt']);
    const connection = await h.request('GET', `/v1/admin/connections/${id}`, { token: admin });
    expect(connection.body.last_poll_error).toBe(`1 file was not taken: big scan.txt is ${LIMIT + 1} bytes, over the upload limit of ${LIMIT} bytes (QUIRE_MAX_UPLOAD_BYTES).`);
    expect(fs.existsSync(path.join(inbox, 'big scan.txt'))).toBe(true);

    // Still there at the next poll: still reported, and nothing is taken twice.
    await pollNow(id);
    expect(await jobNamesOf(id)).toEqual(['a note.txt', 'c-note.txt', 'd-note.txt']);
    expect((await h.request('GET', `/v1/admin/connections/${id}`, { token: admin })).body.last_poll_error).toMatch(/^1 file was not taken: big scan\.txt/);

    // Cut down to size, it is a new file and becomes a job; the connection is clear again.
    fs.writeFileSync(path.join(inbox, 'big scan.txt'), 'A scan, now small');
    await pollNow(id);
    expect(await jobNamesOf(id)).toEqual(['a note.txt', 'big scan.txt', 'c-note.txt', 'd-note.txt']);
    expect((await h.request('GET', `/v1/admin/connections/${id}`, { token: admin })).body.last_poll_error).toBeNull();
  });
});

describe('a file still being written', () => {
  it('is taken once it has gone unwritten for settle_seconds, as one job of the whole file', async () => {
    const id = await source('slow-writer', { path: 'slow-in', processing_mode: 'canonical' });
    const inbox = path.join(localRoot, 'acme/slow-in');
    fs.mkdirSync(inbox, { recursive: true });
    const file = path.join(inbox, 'arriving.txt');
    fs.writeFileSync(file, 'Delivery note, first half');

    await pollNow(id);
    expect(await jobNamesOf(id)).toEqual([]);
    expect((await h.request('GET', `/v1/admin/connections/${id}`, { token: admin })).body.last_poll_error).toBeNull();

    fs.appendFileSync(file, ' and the second half.');
    // Its writer is done: the last write is older than the default settle time of 10 seconds.
    const written = new Date(Date.now() - 11_000);
    fs.utimesSync(file, written, written);
    await pollNow(id);
    await pollNow(id);
    const jobs = await h.db.selectFrom('jobs').select(['original_filename', 'size_bytes']).where('tenant_id', '=', 'acme').where('original_filename', '=', 'arriving.txt').execute();
    expect(jobs).toEqual([{ original_filename: 'arriving.txt', size_bytes: Buffer.byteLength('Delivery note, first half and the second half.') }]);
  });

  it('refuses settle_seconds outside 0 to 3600, and on a destination', async () => {
    const bad = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name: 'bad-settle', protocol: 'local', direction: 'source', config: { path: 'x', settle_seconds: 3601 }, credentials: {} } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'config', 'settle_seconds'] })]);
    const dest = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name: 'dest-settle', protocol: 'local', direction: 'destination', config: { path: 'x', settle_seconds: 5 }, credentials: {} } });
    expect(dest.status).toBe(422);
    expect(dest.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'config', 'settle_seconds'] })]);
  });
});
