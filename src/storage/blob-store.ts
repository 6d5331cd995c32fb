// The blob store: every uploaded file and every artifact, addressed by the SHA-256 of its bytes.
// Two implementations behind one interface, chosen by configuration (style.md, "engines behind
// interfaces"): local disk under QUIRE_DATA_DIR (default) and any S3-compatible store.
import type { Readable } from 'node:stream';
import { QuireError } from '../lib/errors.js';

/** A file received into the staging area, hashed while it was written (see staging.ts). */
export interface StagedFile {
  path: string;
  sha256: string;
  size: number;
  /** The first bytes (up to 64 KiB), enough to sniff the type without reading the file again. */
  head: Buffer;
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Where uploads are staged while they are hashed (on the same disk as the store for local). */
  readonly stagingDir: string;
  /** Moves a staged file into the store under its SHA-256; storing the same content twice is a no-op. */
  putStaged(staged: StagedFile): Promise<void>;
  /**
   * Stores bytes already in memory (artifacts); returns their address. `sha256`: their digest when
   * the caller has just computed it (registration needs it first), so it is not computed twice.
   */
  putBytes(bytes: Uint8Array, sha256?: string): Promise<{ sha256: string; size: number }>;
  /** A stream of the blob, or of one byte range of it. Throws BlobNotFoundError. */
  read(sha256: string, range?: ByteRange): Promise<Readable>;
  readAll(sha256: string): Promise<Buffer>;
  /** Where the blob lies on this machine's disk, for a reader in another thread (local store only). */
  localPath?(sha256: string): string;
  exists(sha256: string): Promise<boolean>;
  delete(sha256: string): Promise<void>;
  /** Every blob in the store with when it was last written, in no particular order. */
  list(): AsyncIterable<StoredBlob>;
}

export interface StoredBlob {
  sha256: string;
  modifiedAt: Date;
}


/** A stored document's bytes are gone: never the caller's fault. */
export class BlobNotFoundError extends QuireError<'blob_not_found'> {
  constructor(readonly sha256: string) {
    super('blob_not_found', `blob ${sha256} is not in the store`);
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Whether a name in the store is a blob's (anything else there is not the store's to touch). */
export const isBlobName = (name: string): boolean => SHA256.test(name);

/** Blob keys are derived from hashes only; anything else is a bug, never a path to follow. */
export function assertSha256(sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a SHA-256 hex digest: ${sha256.slice(0, 80)}`);
  return sha256;
}

/** `sha256/ab/abcdef…`: two-character fan-out keeps directories (and S3 listings) small. */
export function blobKey(sha256: string): string {
  assertSha256(sha256);
  return `sha256/${sha256.slice(0, 2)}/${sha256}`;
}
