// `sftp`: password or private key, with the server's host key pinned. config.host_key_sha256 is
// the OpenSSH-style fingerprint ("SHA256:<base64>"); when absent, the first `test` records the key
// it sees, and every later connection must present that same key. The host goes through the SSRF
// guard before any socket opens, and the connection is made to the address the guard approved.
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path/posix';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { SFTPWrapper } from 'ssh2';
import SftpClient from 'ssh2-sftp-client';
import { type GuardOptions, guardedLookup } from '../lib/ssrf-guard.js';
import { openRemoteRead } from './sftp-read.js';
import { ConnectorError, type FileStore, type PutBody, type RemoteFile } from './types.js';

export interface SftpConfig {
  host: string;
  port?: number;
  path: string;
  username: string;
  host_key_sha256?: string;
}

export interface SftpCredentials {
  password?: string;
  private_key?: string;
  passphrase?: string;
}

export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

const normalise = (fingerprint: string) => (fingerprint.startsWith('SHA256:') ? fingerprint : `SHA256:${fingerprint}`).replace(/=+$/, '');

export class SftpStore implements FileStore {
  /** The host key fingerprint the server presented (recorded on a first `test`). */
  seenHostKey: string | null = null;
  private client: SftpClient | null = null;
  /** The SFTP session under the client, for streamed reads. */
  private session: SFTPWrapper | null = null;

  constructor(
    private readonly config: SftpConfig,
    private readonly credentials: SftpCredentials,
    private readonly guard: GuardOptions,
  ) {}

  private async connected(): Promise<SftpClient> {
    if (this.client) return this.client;
    const lookup = promisify(guardedLookup(this.guard) as never) as (host: string, options: object) => Promise<string>;
    const address = await lookup(this.config.host, {});
    // The library's default listeners print plain lines ("Global end listener: …") to stdout, into
    // the middle of the JSON log. An error outside an operation needs no line of its own: the
    // next operation on the connection fails with it, and that failure is reported.
    const client = new SftpClient('quire', { error: () => undefined, end: () => undefined, close: () => undefined });
    const pinned = this.config.host_key_sha256 ? normalise(this.config.host_key_sha256) : null;
    let session: SFTPWrapper;
    try {
      session = await client.connect({
        host: address,
        port: this.config.port ?? 22,
        username: this.config.username,
        ...(this.credentials.password ? { password: this.credentials.password } : {}),
        ...(this.credentials.private_key ? { privateKey: this.credentials.private_key, passphrase: this.credentials.passphrase } : {}),
        readyTimeout: 15_000,
        retries: 0,
        hostVerifier: (key: Buffer) => {
          this.seenHostKey = hostKeyFingerprint(key);
          return pinned === null || pinned === this.seenHostKey;
        },
      } as never);
    } catch (err) {
      if (pinned && this.seenHostKey && this.seenHostKey !== pinned) {
        throw new ConnectorError(`The server presented host key ${this.seenHostKey}, not the pinned ${pinned}. If the server's key really changed, update config.host_key_sha256.`);
      }
      throw err;
    }
    this.client = client;
    this.session = session;
    return client;
  }

  private file(name: string): string {
    const full = path.normalize(path.join(this.config.path, name));
    if (!full.startsWith(path.normalize(this.config.path))) throw new ConnectorError(`${name} leaves the connection's path`);
    return full;
  }

  async put(name: string, body: PutBody): Promise<void> {
    const sftp = await this.connected();
    const target = this.file(name);
    await sftp.mkdir(path.dirname(target), true).catch(() => undefined);
    // Written under a hidden name and renamed, as a local folder is: a reader polling the folder
    // never sees half a file.
    const temp = path.join(path.dirname(target), `.quire-tmp-${randomBytes(6).toString('hex')}`);
    await sftp.put(Buffer.isBuffer(body) ? body : body.stream, temp);
    try {
      await sftp.posixRename(temp, target);
    } catch {
      // Servers without the posix-rename extension refuse a rename onto an existing file.
      if (await sftp.exists(target)) await sftp.delete(target);
      await sftp.rename(temp, target);
    }
  }

  async list(): Promise<RemoteFile[]> {
    const sftp = await this.connected();
    const entries = await sftp.list(this.config.path);
    return entries
      .filter((e) => e.type === '-' && !e.name.startsWith('.'))
      .map((e) => ({ name: e.name, size: e.size, fingerprint: `${e.size}:${e.modifyTime}`, modifiedMs: e.modifyTime }));
  }

  /** Streamed: a large file is never held in memory (the poll stages it on disk as it arrives). */
  async read(name: string): Promise<Readable> {
    await this.connected();
    return openRemoteRead(this.session!, this.file(name));
  }

  async move(name: string, dir: string): Promise<void> {
    const sftp = await this.connected();
    const target = this.file(`${dir}/${name}`);
    await sftp.mkdir(path.dirname(target), true).catch(() => undefined);
    if (await sftp.exists(target)) await sftp.delete(target);
    if (await sftp.exists(this.file(name))) await sftp.rename(this.file(name), target);
  }

  async remove(name: string): Promise<void> {
    const sftp = await this.connected();
    await sftp.delete(this.file(name), true);
  }

  async probe(writable: boolean): Promise<string> {
    const sftp = await this.connected();
    await sftp.mkdir(this.config.path, true).catch(() => undefined);
    await sftp.list(this.config.path);
    if (writable) {
      const probe = this.file(`.quire-probe-${Date.now()}`);
      await sftp.put(Buffer.from('ok'), probe);
      await sftp.delete(probe);
    }
    return `${this.config.username}@${this.config.host}:${this.config.path} is ${writable ? 'writable' : 'readable'} (host key ${this.seenHostKey}).`;
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
    this.client = null;
    this.session = null;
  }
}
