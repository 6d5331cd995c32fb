// The one contract every store-like protocol (local, s3, sftp) meets, for deliveries and sources.
// Names are relative to the connection's base (the s3 prefix, the local or sftp path) and use "/".
import type { Readable } from 'node:stream';

export interface RemoteFile {
  /** File name relative to the base (sources list the top level only). */
  name: string;
  size: number;
  /** Size and modified time, or the ETag on S3: a changed file is a new file. */
  fingerprint: string;
  /**
   * When the file was last written (ms since the epoch), for a store where a file can be seen while
   * it is still being written (a folder, an SFTP server); null where an object appears whole (S3).
   */
  modifiedMs: number | null;
}

/** What a put writes: bytes in memory, or a stream of a known length (an original, up to the upload limit). */
export type PutBody = Buffer | { stream: Readable; size: number };

export interface FileStore {
  put(name: string, body: PutBody, contentType: string, meta: Record<string, string>): Promise<void>;
  list(): Promise<RemoteFile[]>;
  read(name: string): Promise<Readable>;
  /** Moves a file into `<base>/<dir>/` (config.after = move). */
  move(name: string, dir: string): Promise<void>;
  remove(name: string): Promise<void>;
  /** A real round trip; answers a sentence describing what was reached. */
  probe(writable: boolean): Promise<string>;
  close(): Promise<void>;
}

/** The folder files go to after their job ends when config.after is `move`. */
export const PROCESSED_DIR = 'processed';

/** A failure worth retrying later vs one that needs a person (wrong credentials still retry: they may be fixed). */
export class ConnectorError extends Error {}
