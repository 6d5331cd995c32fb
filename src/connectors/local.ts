// `local`: a directory in the tenant's folder under QUIRE_LOCAL_ROOT (local-path.ts). Writes go
// to a temporary name and are renamed into place, so a reader never sees half a result.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { resolveUnderRoot } from './local-path.js';
import type { FileStore, PutBody, RemoteFile } from './types.js';

export class LocalStore implements FileStore {
  private readonly base: string;

  /** `folder`: the tenant's folder (tenantFolder); `relative`: the connection's path inside it. */
  constructor(
    folder: string,
    private readonly relative: string,
  ) {
    this.base = resolveUnderRoot(folder, relative);
  }

  private file(name: string): string {
    // Resolved again under the base: a name can never climb out of it.
    return resolveUnderRoot(this.base, name);
  }

  async put(name: string, body: PutBody): Promise<void> {
    const target = this.file(name);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(path.dirname(target), `.quire-tmp-${randomBytes(6).toString('hex')}`);
    try {
      if (Buffer.isBuffer(body)) await fsp.writeFile(temp, body);
      else await pipeline(body.stream, fs.createWriteStream(temp));
      await fsp.rename(temp, target);
    } catch (err) {
      await fsp.rm(temp, { force: true });
      throw err;
    }
  }

  async list(): Promise<RemoteFile[]> {
    await fsp.mkdir(this.base, { recursive: true });
    const files: RemoteFile[] = [];
    for (const entry of await fsp.readdir(this.base, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name.startsWith('.')) continue;
      const stat = await fsp.stat(path.join(this.base, entry.name)).catch(() => null);
      if (stat) files.push({ name: entry.name, size: stat.size, fingerprint: `${stat.size}:${Math.round(stat.mtimeMs)}`, modifiedMs: stat.mtimeMs });
    }
    return files;
  }

  async read(name: string): Promise<Readable> {
    return fs.createReadStream(this.file(name));
  }

  async move(name: string, dir: string): Promise<void> {
    const target = this.file(`${dir}/${name}`);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(this.file(name), target).catch(ignoreMissing);
  }

  async remove(name: string): Promise<void> {
    await fsp.unlink(this.file(name)).catch(ignoreMissing);
  }

  async probe(writable: boolean): Promise<string> {
    await fsp.mkdir(this.base, { recursive: true });
    if (writable) {
      const probe = path.join(this.base, `.quire-probe-${randomBytes(6).toString('hex')}`);
      await fsp.writeFile(probe, 'ok');
      await fsp.unlink(probe);
    } else {
      await fsp.readdir(this.base);
    }
    return `The folder ${JSON.stringify(this.relative)} is ${writable ? 'writable' : 'readable'}.`;
  }

  async close(): Promise<void> {}
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
