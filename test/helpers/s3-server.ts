// An S3-compatible server (s3rver, from npm) on loopback, reached through the real AWS SDK.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  bucket: string;
  directory: string;
  close(): Promise<void>;
}

/** s3rver's fixed credentials. */
export const S3RVER_CREDENTIALS = { access_key_id: 'S3RVER', secret_access_key: 'S3RVER' };

export async function startS3Server(bucket = 'results'): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = (await server.run()) as unknown as { address: string; port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    directory,
    close: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
