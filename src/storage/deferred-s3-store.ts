// The S3 blob store behind QUIRE_BLOB_URL, its SDK loaded with the first call: a process that
// never touches a blob (an API answering reads from the database) does not carry the SDK.
import type { Readable } from 'node:stream';
import type { BlobStore, ByteRange, StagedFile, StoredBlob } from './blob-store.js';
import { type S3Options, parseS3Url } from './s3-location.js';

export class DeferredS3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly stagingDir: string;
  private loaded?: Promise<BlobStore>;

  constructor(private readonly options: S3Options) {
    parseS3Url(options.url);
    this.stagingDir = options.stagingDir;
  }

  private store(): Promise<BlobStore> {
    return (this.loaded ??= import('./s3-store.js').then(({ S3BlobStore }) => new S3BlobStore(this.options)));
  }

  async putStaged(staged: StagedFile): Promise<void> {
    return (await this.store()).putStaged(staged);
  }

  async putBytes(bytes: Uint8Array, sha256?: string): Promise<{ sha256: string; size: number }> {
    return (await this.store()).putBytes(bytes, sha256);
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    return (await this.store()).read(sha256, range);
  }

  async readAll(sha256: string): Promise<Buffer> {
    return (await this.store()).readAll(sha256);
  }

  async exists(sha256: string): Promise<boolean> {
    return (await this.store()).exists(sha256);
  }

  async delete(sha256: string): Promise<void> {
    return (await this.store()).delete(sha256);
  }

  async *list(): AsyncIterable<StoredBlob> {
    yield* (await this.store()).list();
  }
}
