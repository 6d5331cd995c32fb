// Both blob stores behind one contract: content addressing, streamed staging with a size limit,
// ranges, deletion. The S3 store runs against a small in-process S3-compatible server (path-style,
// like MinIO), through the real AWS SDK.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobNotFoundError, type BlobStore } from '../../src/storage/blob-store.js';
import { createBlobStore } from '../../src/storage/index.js';
import { LocalBlobStore } from '../../src/storage/local-store.js';
import { parseS3Url } from '../../src/storage/s3-location.js';
import { S3BlobStore } from '../../src/storage/s3-store.js';
import { UploadTooLargeError, stageStream } from '../../src/storage/staging.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-blobs-'));
const objects = new Map<string, Buffer>();
/** When each object was last written (ListObjectsV2's LastModified). */
const writtenAt = new Map<string, Date>();
const requests: string[] = [];
let server: http.Server;
let endpoint = '';

/** ListObjectsV2 on /bucket?list-type=2&prefix=…, in pages of two keys (so the store must follow continuation tokens). */
function listObjects(url: URL, res: http.ServerResponse): void {
  const bucket = url.pathname.replace(/^\/+|\/+$/g, '');
  const prefix = url.searchParams.get('prefix') ?? '';
  const keys = [...objects.keys()].filter((k) => k.startsWith(`/${bucket}/${prefix}`)).sort();
  const start = Number(url.searchParams.get('continuation-token') ?? 0);
  const page = keys.slice(start, start + 2);
  const more = start + 2 < keys.length;
  const contents = page
    .map((k) => `<Contents><Key>${k.slice(bucket.length + 2)}</Key><LastModified>${writtenAt.get(k)!.toISOString()}</LastModified><Size>${objects.get(k)!.length}</Size></Contents>`)
    .join('');
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>${start + 2}</NextContinuationToken>` : ''}${contents}</ListBucketResult>`,
  );
}

/** Just enough of S3 for the store: HEAD, GET (with Range), PUT, DELETE on /bucket/key, and ListObjectsV2. */
function fakeS3(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  if (req.method === 'GET' && url.searchParams.get('list-type') === '2') return listObjects(url, res);
  const key = decodeURIComponent(url.pathname);
  requests.push(`${req.method} ${key}`);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const found = objects.get(key);
    const missing = () => {
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end(req.method === 'HEAD' ? undefined : '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>');
    };
    if (req.method === 'PUT') {
      objects.set(key, Buffer.concat(chunks));
      writtenAt.set(key, new Date());
      res.writeHead(200, { etag: '"x"' }).end();
    } else if (req.method === 'DELETE') {
      objects.delete(key);
      writtenAt.delete(key);
      res.writeHead(204).end();
    } else if (!found) {
      missing();
    } else if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': found.length }).end();
    } else {
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      const body = m ? found.subarray(Number(m[1]), Number(m[2]) + 1) : found;
      res.writeHead(m ? 206 : 200, { 'content-length': body.length }).end(body);
    }
  });
}

beforeAll(async () => {
  // The configured store takes its credentials from the SDK's usual chain, as in production.
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  server = http.createServer(fakeS3);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function stores(): [string, () => BlobStore][] {
  return [
    ['local disk', () => new LocalBlobStore(path.join(dir, 'local'))],
    [
      'S3-compatible',
      () =>
        new S3BlobStore(
          { url: 's3://quire-test/tenant-blobs', endpoint, region: 'us-east-1', forcePathStyle: true, stagingDir: path.join(dir, 's3-staging') },
          new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }),
        ),
    ],
    [
      'S3-compatible, chosen by QUIRE_BLOB_URL',
      () => createBlobStore({ dataDir: path.join(dir, 'configured'), blobUrl: 's3://quire-test/tenant-blobs', s3Endpoint: endpoint, s3Region: 'us-east-1', s3ForcePathStyle: true }),
    ],
  ];
}

describe.each(stores())('%s store', (_name, make) => {
  it('stages a stream while hashing, stores it by content, reads it back whole and by range', async () => {
    const store = make();
    const content = Buffer.alloc(300_000, 7);
    content.write('hello quire', 1000);
    const staged = await stageStream(Readable.from([content.subarray(0, 100_000), content.subarray(100_000)]), store.stagingDir, 1_000_000);
    expect(staged).toMatchObject({ sha256: sha(content), size: content.length });
    expect(staged.head.length).toBe(64 * 1024);
    await store.putStaged(staged);
    expect(fs.existsSync(staged.path)).toBe(false);
    expect(await store.exists(staged.sha256)).toBe(true);
    expect((await store.readAll(staged.sha256)).equals(content)).toBe(true);
    const chunks: Buffer[] = [];
    for await (const c of await store.read(staged.sha256, { start: 1000, end: 1010 })) chunks.push(Buffer.from(c as Uint8Array));
    expect(Buffer.concat(chunks).toString()).toBe('hello quire');
    // Same content again: same address, no second copy needed.
    const again = await store.putBytes(content);
    expect(again.sha256).toBe(staged.sha256);
    await store.delete(staged.sha256);
    expect(await store.exists(staged.sha256)).toBe(false);
    await expect(store.readAll(staged.sha256)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.read(staged.sha256)).rejects.toBeInstanceOf(BlobNotFoundError);
    // A coded error, and never the caller's fault: reaching the HTTP layer it is a 500, not a 404.
    await expect(store.read(staged.sha256)).rejects.toMatchObject({ code: 'blob_not_found', kind: 'internal' });
  });

  it('lists every blob it holds with when it was written', async () => {
    const store = make();
    const contents = ['first listed', 'second listed', 'third listed'].map((t) => Buffer.from(t));
    const before = Date.now() - 2_000;
    for (const c of contents) await store.putBytes(c);
    const listed = new Map<string, Date>();
    for await (const blob of store.list()) listed.set(blob.sha256, blob.modifiedAt);
    for (const c of contents) {
      expect(listed.has(sha(c))).toBe(true);
      expect(listed.get(sha(c))!.getTime()).toBeGreaterThan(before);
      await store.delete(sha(c));
    }
    const after: string[] = [];
    for await (const blob of store.list()) after.push(blob.sha256);
    expect(after.filter((h) => contents.some((c) => sha(c) === h))).toEqual([]);
  });

  it('refuses a stream over the limit and leaves nothing behind', async () => {
    const store = make();
    await expect(stageStream(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), store.stagingDir, 1000)).rejects.toBeInstanceOf(UploadTooLargeError);
    await expect(stageStream(Readable.from([Buffer.alloc(1200)]), store.stagingDir, 1000)).rejects.toMatchObject({ code: 'payload_too_large', kind: 'too_large' });
    expect(fs.readdirSync(store.stagingDir)).toEqual([]);
  });
});

describe('configuration', () => {
  it('puts S3 blobs under the URL prefix', () => {
    expect([...objects.keys()].every((k) => k.startsWith('/quire-test/tenant-blobs/sha256/'))).toBe(true);
    expect(requests.some((r) => r.startsWith('PUT /quire-test/tenant-blobs/sha256/'))).toBe(true);
  });

  it('parses s3:// URLs and picks the store from QUIRE_BLOB_URL', () => {
    expect(parseS3Url('s3://bucket')).toEqual({ bucket: 'bucket', prefix: '' });
    expect(parseS3Url('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b' });
    expect(() => parseS3Url('https://bucket')).toThrow(/s3:\/\/bucket/);
    const base = { dataDir: dir, s3Endpoint: endpoint, s3Region: 'us-east-1', s3ForcePathStyle: true };
    expect(createBlobStore({ ...base, blobUrl: null }).kind).toBe('local');
    expect(createBlobStore({ ...base, blobUrl: 's3://bkt/p' }).kind).toBe('s3');
  });
});
