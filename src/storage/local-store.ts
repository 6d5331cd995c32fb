// Blobs on the local disk: <root>/sha256/ab/<sha256>, written by rename from a staging directory
// on the same file system, so a blob is either absent or complete (never half written).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobStore, type ByteRange, type StagedFile, type StoredBlob, blobKey, isBlobName } from './blob-store.js';
import { namesIn } from './dir-names.js';

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly stagingDir: string;

  constructor(private readonly root: string) {
    this.stagingDir = path.join(root, '.staging');
  }

  private file(sha256: string): string {
    return path.join(this.root, ...blobKey(sha256).split('/'));
  }

  async putStaged(staged: StagedFile): Promise<void> {
    const target = this.file(staged.sha256);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Same name, same bytes: replacing an existing blob atomically is harmless and keeps this simple.
    await fs.rename(staged.path, target);
  }

  async putBytes(bytes: Uint8Array, known?: string): Promise<{ sha256: string; size: number }> {
    const sha256 = known ?? createHash('sha256').update(bytes).digest('hex');
    const target = this.file(sha256);
    if (await this.exists(sha256)) return { sha256, size: bytes.length };
    await fs.mkdir(this.stagingDir, { recursive: true });
    const tmp = path.join(this.stagingDir, `bytes-${randomBytes(8).toString('hex')}`);
    const handle = await fs.open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(tmp, target);
    return { sha256, size: bytes.length };
  }

  localPath(sha256: string): string {
    return this.file(sha256);
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    const file = this.file(sha256);
    const handle = await fs.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new BlobNotFoundError(sha256);
      throw err;
    });
    // The stream owns the handle from here (autoClose) and closes it when done or destroyed.
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async readAll(sha256: string): Promise<Buffer> {
    return fs.readFile(this.file(sha256)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new BlobNotFoundError(sha256);
      throw err;
    });
  }

  async exists(sha256: string): Promise<boolean> {
    return fs.stat(this.file(sha256)).then(
      () => true,
      () => false,
    );
  }

  async delete(sha256: string): Promise<void> {
    await fs.rm(this.file(sha256), { force: true });
  }

  async *list(): AsyncIterable<StoredBlob> {
    const top = path.join(this.root, 'sha256');
    for (const dir of await namesIn(top)) {
      for (const name of await fs.readdir(path.join(top, dir)).catch(() => [] as string[])) {
        if (!isBlobName(name)) continue;
        const stat = await fs.stat(path.join(top, dir, name)).catch(() => null);
        if (stat?.isFile()) yield { sha256: name, modifiedAt: stat.mtime };
      }
    }
  }
}
