// Receives an upload stream into a temporary file while hashing it, so a large upload is never
// held in memory and its content address is known the moment the last byte arrives.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { QuireError } from '../lib/errors.js';
import type { StagedFile } from './blob-store.js';
import { namesIn } from './dir-names.js';

const HEAD_BYTES = 64 * 1024;

export class UploadTooLargeError extends QuireError<'payload_too_large'> {
  constructor(readonly limit: number) {
    super('payload_too_large', `upload is larger than ${limit} bytes`);
  }
}

export async function stageStream(source: AsyncIterable<Buffer | Uint8Array> | Readable, dir: string, maxBytes: number): Promise<StagedFile> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `upload-${Date.now()}-${randomBytes(8).toString('hex')}`);
  const handle = await fs.open(file, 'wx', 0o600);
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headSize = 0;
  let size = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer | Uint8Array>) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buf.length;
      if (size > maxBytes) throw new UploadTooLargeError(maxBytes);
      hash.update(buf);
      if (headSize < HEAD_BYTES) {
        const part = buf.subarray(0, HEAD_BYTES - headSize);
        head.push(part);
        headSize += part.length;
      }
      await handle.write(buf);
    }
    // Durable before it is renamed into the store and a job row points at it.
    await handle.datasync();
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(file, { force: true });
    throw err;
  }
  return { path: file, sha256: hash.digest('hex'), size, head: Buffer.concat(head) };
}

export async function discardStaged(staged: StagedFile | null | undefined): Promise<void> {
  if (staged) await fs.rm(staged.path, { force: true });
}

/**
 * Removes files left in a staging directory by a process that died mid-upload or mid-write:
 * anything not written to for `graceSeconds`. A file being received is written to as its bytes
 * arrive, and a finished one is moved into the store at once.
 */
export async function sweepStaging(dir: string, graceSeconds: number): Promise<number> {
  const cutoff = Date.now() - graceSeconds * 1000;
  let removed = 0;
  for (const name of await namesIn(dir)) {
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => null);
    if (!stat?.isFile() || stat.mtimeMs >= cutoff) continue;
    await fs.rm(file, { force: true });
    removed++;
  }
  return removed;
}
