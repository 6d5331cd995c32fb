// Sources: files dropped into a polled connection become exactly one job each, with the
// connection's template and mode, even with several pollers at once; nothing more on later
// polls; config.after moves or deletes a file once its job ends; an S3 prefix works the same.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../src/storage/index.js';
import { newId } from '../../src/lib/ids.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { guardOptionsFromConfig } from '../../src/lib/ssrf-guard.js';
import { pollSource } from '../../src/sources/poll-source.js';
import { SourcePoller } from '../../src/sources/source-poller.js';
import { waitFor } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { S3RVER_CREDENTIALS, type S3Server, startS3Server } from '../helpers/s3-server.js';

let h: Harness;
let admin: string;
let s3: S3Server;
const localRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sources-root-'));

beforeAll(async () => {
  s3 = await startS3Server('inbox');
  h = await startHarness({ localRoot, allowPrivateNetwork: true }, { workers: 1 });
  await h.seedTenant('acme');
  admin = (await h.seedUser('acme', 'admin')).token!;
});
afterAll(async () => {
  await h.close();
  await s3.close();
});

async function source(name: string, protocol: string, config: Record<string, unknown>, credentials: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('POST', '/v1/admin/connections', { token: admin, body: { name, protocol, direction: 'source', config, credentials } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Jobs a source made carry metadata.source.connection_id. */
async function jobsOf(connectionId: string) {
  const rows = await h.db.selectFrom('jobs').select(['id', 'status', 'processing_mode', 'original_filename', 'metadata']).where('tenant_id', '=', 'acme').execute();
  return rows.filter((r) => (r.metadata as { source?: { connection_id: string } }).source?.connection_id === connectionId);
}

describe('local source', () => {
  // Two pollers of our own, plus the harness worker's, all polling the same connection.
  it('turns 50 files dropped while two pollers run into 50 jobs, and no more on later polls', async () => {
    const id = await source('drop', 'local', { settle_seconds: 0, path: 'inbox', poll_seconds: 1, processing_mode: 'canonical' });
    const inbox = path.join(localRoot, 'acme/inbox');
    fs.mkdirSync(inbox, { recursive: true });
    const log = pino({ level: 'silent' });
    const blobs = createBlobStore(h.config);
    const pollers = [0, 1].map((i) => new SourcePoller({ db: h.db, config: h.config, blobs, log, workerId: `test-poller-${i}` }));
    const pollAll = () => Promise.all(pollers.map((p) => p.pollDue()));
    // A job result a delivery wrote into the same folder (a `both` connection) is not taken.
    fs.writeFileSync(path.join(inbox, `${newId('job')}.json`), JSON.stringify({ job_id: 'delivered', status: 'completed' }));
    for (let chunk = 0; chunk < 5; chunk++) {
      for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(inbox, `note-${chunk}-${i}.txt`), `Delivery note ${chunk}-${i}`);
      await pollAll();
      await h.db.updateTable('connections').set({ next_poll_at: new Date() }).where('id', '=', id).execute();
    }
    for (let round = 0; round < 4; round++) {
      await h.db.updateTable('connections').set({ next_poll_at: new Date() }).where('id', '=', id).execute();
      await pollAll();
    }
    // The harness worker's poller may hold the last claim and still be making its jobs.
    const jobs = await waitFor('50 jobs from the dropped files', async () => {
      const now = await jobsOf(id);
      return now.length >= 50 && now;
    });
    expect(jobs).toHaveLength(50);
    expect(new Set(jobs.map((j) => j.original_filename)).size).toBe(50);
    expect(jobs.every((j) => j.processing_mode === 'canonical')).toBe(true);
    expect(await h.db.selectFrom('source_files').select('id').where('connection_id', '=', id).execute()).toHaveLength(50);

    // A file that changes (new size and time) is a new file; an untouched one is not.
    fs.writeFileSync(path.join(inbox, 'note-0-0.txt'), 'Delivery note 0-0, corrected and longer');
    fs.utimesSync(path.join(inbox, 'note-0-0.txt'), new Date(), new Date(Date.now() + 5_000));
    await h.db.updateTable('connections').set({ next_poll_at: new Date() }).where('id', '=', id).execute();
    await pollAll();
    // Whichever poller claimed the connection makes the job; wait for it, then count exactly.
    await waitFor('a job for the changed file', async () => (await jobsOf(id)).length >= 51);
    expect(await jobsOf(id)).toHaveLength(51);
  });

  it('moves a file to processed/ once its job ends (after: move), and deletes it with after: delete', async () => {
    const moved = await source('moving', 'local', { settle_seconds: 0, path: 'move-in', poll_seconds: 1, processing_mode: 'canonical', after: 'move' });
    const deleted = await source('deleting', 'local', { settle_seconds: 0, path: 'delete-in', poll_seconds: 1, processing_mode: 'canonical', after: 'delete' });
    fs.mkdirSync(path.join(localRoot, 'acme/move-in'), { recursive: true });
    fs.mkdirSync(path.join(localRoot, 'acme/delete-in'), { recursive: true });
    fs.writeFileSync(path.join(localRoot, 'acme/move-in/m.txt'), 'Move me');
    fs.writeFileSync(path.join(localRoot, 'acme/delete-in/d.txt'), 'Delete me');
    await waitFor('the moved file', async () => fs.existsSync(path.join(localRoot, 'acme/move-in/processed/m.txt')), 60_000, 200);
    expect(fs.existsSync(path.join(localRoot, 'acme/move-in/m.txt'))).toBe(false);
    await waitFor('the deleted file', async () => !fs.existsSync(path.join(localRoot, 'acme/delete-in/d.txt')), 60_000, 200);
    expect((await jobsOf(moved)).map((j) => j.status)).toEqual(['completed']);
    expect((await jobsOf(deleted)).map((j) => j.status)).toEqual(['completed']);
  });
});

describe('interrupted poll', () => {
  it('leaves nothing behind when a poll dies before its commit; the next poll makes exactly one job', async () => {
    // A fixture straight in the database, not due for an hour: only this test polls it (directly).
    const id = newId('con');
    const connection = await h.db
      .insertInto('connections')
      .values({ id, tenant_id: 'acme', name: 'flaky', protocol: 'local', direction: 'source', config: JSON.stringify({ settle_seconds: 0, path: 'flaky', processing_mode: 'canonical' }), next_poll_at: new Date(Date.now() + 3_600_000) })
      .returningAll()
      .executeTakeFirstOrThrow();
    fs.mkdirSync(path.join(localRoot, 'acme/flaky'), { recursive: true });
    fs.writeFileSync(path.join(localRoot, 'acme/flaky/x.txt'), 'Interrupted');
    const deps = { db: h.db, box: SecretBox.fromConfig(h.config), blobs: createBlobStore(h.config), config: h.config, guard: guardOptionsFromConfig(h.config), log: pino({ level: 'silent' }) };
    // The database refuses the job insert, as if the process died inside the transaction.
    await sql`CREATE FUNCTION test_refuse_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated crash'; END $$`.execute(h.db);
    await sql`CREATE TRIGGER test_refuse_job BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION test_refuse_job()`.execute(h.db);
    try {
      await expect(pollSource(deps, connection)).rejects.toThrow(/simulated crash/);
    } finally {
      await sql`DROP TRIGGER test_refuse_job ON jobs`.execute(h.db);
      await sql`DROP FUNCTION test_refuse_job()`.execute(h.db);
    }
    expect(await h.db.selectFrom('source_files').select('id').where('connection_id', '=', id).execute()).toEqual([]);
    expect(await jobsOf(id)).toEqual([]);
    for (let round = 0; round < 3; round++) await pollSource(deps, connection);
    expect((await jobsOf(id)).map((j) => j.original_filename)).toEqual(['x.txt']);
  });
});

describe('s3 source', () => {
  it('polls a prefix, remembering objects by ETag', async () => {
    const id = await source('bucket-in', 's3', { bucket: s3.bucket, prefix: 'drop', endpoint_url: s3.endpoint, force_path_style: true, poll_seconds: 1, processing_mode: 'canonical' }, S3RVER_CREDENTIALS);
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'drop/s3-note.txt', Body: 'From the bucket' }));
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'drop/nested/ignored.txt', Body: 'Not top level' }));
    const jobs = await waitFor('the bucket job', async () => ((await jobsOf(id)).length ? jobsOf(id) : undefined), 60_000, 200);
    expect(jobs.map((j) => j.original_filename)).toEqual(['s3-note.txt']);
    const seen = await h.db.selectFrom('source_files').select(['path', 'fingerprint']).where('connection_id', '=', id).execute();
    expect(seen).toEqual([{ path: 's3-note.txt', fingerprint: expect.stringMatching(/^"[0-9a-f]{32}"$/) }]);
    client.destroy();
  });

  it('takes and moves objects whose names have spaces and letters beyond ASCII', async () => {
    const id = await source('bucket-unicode', 's3', { bucket: s3.bucket, prefix: 'eingang', endpoint_url: s3.endpoint, force_path_style: true, poll_seconds: 1, processing_mode: 'canonical', after: 'move' }, S3RVER_CREDENTIALS);
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    // (No & or +: the test server decodes the copy source with decodeURI, which keeps %26 and %2B.)
    const name = 'Größe Maß – facture été №7.txt';
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `eingang/${name}`, Body: 'Unicode name' }));
    const keys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'eingang/' }))).Contents ?? []).map((o) => o.Key).sort();
    // A move is a copy, then a delete of the original: both halves are waited for.
    await waitFor('the object moved to processed/', async () => JSON.stringify(await keys()) === JSON.stringify([`eingang/processed/${name}`]), 60_000, 200);
    expect(await keys()).toEqual([`eingang/processed/${name}`]);
    expect((await jobsOf(id)).map((j) => [j.original_filename, j.status])).toEqual([[name, 'completed']]);
    client.destroy();
  });
});
