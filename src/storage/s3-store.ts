// Blobs in any S3-compatible store (AWS S3, MinIO, Cloudflare R2, ...): QUIRE_BLOB_URL=s3://bucket/prefix.
// Uploads are staged on the local disk while hashed (the key is the hash), then sent with a
// streamed PutObject: no upload is ever held in memory whole.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { BlobNotFoundError, type BlobStore, type ByteRange, type StagedFile, type StoredBlob, blobKey, isBlobName } from './blob-store.js';
import { type S3Location, type S3Options, parseS3Url } from './s3-location.js';

function isMissing(err: unknown): boolean {
  if (err instanceof NoSuchKey || err instanceof NotFound) return true;
  return err instanceof S3ServiceException && (err.$metadata?.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly stagingDir: string;
  private readonly client: S3Client;
  private readonly location: S3Location;

  constructor(options: S3Options, client?: S3Client) {
    this.location = parseS3Url(options.url);
    this.stagingDir = options.stagingDir;
    this.client =
      client ??
      new S3Client({
        region: options.region,
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        forcePathStyle: options.forcePathStyle,
        // Compatible stores (older MinIO, R2, Ceph) reject the SDK's default CRC checksums on
        // every request; ask for them only where the API requires one.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
  }

  private key(sha256: string): string {
    const key = blobKey(sha256);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  async putStaged(staged: StagedFile): Promise<void> {
    try {
      if (!(await this.exists(staged.sha256))) {
        await this.client.send(
          new PutObjectCommand({
            Bucket: this.location.bucket,
            Key: this.key(staged.sha256),
            Body: createReadStream(staged.path),
            ContentLength: staged.size,
            ContentType: 'application/octet-stream',
          }),
        );
      }
    } finally {
      await fs.rm(staged.path, { force: true });
    }
  }

  async putBytes(bytes: Uint8Array, known?: string): Promise<{ sha256: string; size: number }> {
    const sha256 = known ?? createHash('sha256').update(bytes).digest('hex');
    if (!(await this.exists(sha256))) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.location.bucket, Key: this.key(sha256), Body: bytes, ContentLength: bytes.length, ContentType: 'application/octet-stream' }),
      );
    }
    return { sha256, size: bytes.length };
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(sha256), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      const body = out.Body;
      if (!body) throw new BlobNotFoundError(sha256);
      return body instanceof Readable ? body : Readable.fromWeb((body as { transformToWebStream(): ReadableStream }).transformToWebStream() as never);
    } catch (err) {
      if (isMissing(err)) throw new BlobNotFoundError(sha256);
      throw err;
    }
  }

  async readAll(sha256: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.read(sha256)) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  async exists(sha256: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.key(sha256) }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async delete(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.key(sha256) }));
  }

  async *list(): AsyncIterable<StoredBlob> {
    const prefix = this.location.prefix ? `${this.location.prefix}/sha256/` : 'sha256/';
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.location.bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(object.Key.lastIndexOf('/') + 1) ?? '';
        if (isBlobName(name) && object.LastModified) yield { sha256: name, modifiedAt: object.LastModified };
      }
    }
  }
}
