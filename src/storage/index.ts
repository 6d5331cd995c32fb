// Chooses the blob store from configuration: QUIRE_BLOB_URL=s3://… or the local disk.
import path from 'node:path';
import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-store.js';
import { DeferredS3BlobStore } from './deferred-s3-store.js';

export type { BlobStore, StagedFile, ByteRange } from './blob-store.js';
export { BlobNotFoundError } from './blob-store.js';

export function createBlobStore(config: Pick<Config, 'dataDir' | 'blobUrl' | 's3Endpoint' | 's3Region' | 's3ForcePathStyle'>): BlobStore {
  if (config.blobUrl) {
    return new DeferredS3BlobStore({
      url: config.blobUrl,
      endpoint: config.s3Endpoint,
      region: config.s3Region,
      forcePathStyle: config.s3ForcePathStyle,
      // Uploads are hashed on local disk before they go to S3 (the key is the hash).
      stagingDir: path.join(config.dataDir, 'staging'),
    });
  }
  return new LocalBlobStore(path.join(config.dataDir, 'blobs'));
}
