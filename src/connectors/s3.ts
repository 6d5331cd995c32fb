// `s3`: any S3-compatible store through the AWS SDK (endpoint URL and path-style addressing for
// MinIO, R2, Ceph...). Every connection the SDK opens resolves its host through the SSRF guard.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type GuardOptions, assertOutboundAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import type { FileStore, PutBody, RemoteFile } from './types.js';

export interface S3Config {
  bucket: string;
  prefix?: string;
  region?: string;
  endpoint_url?: string;
  force_path_style?: boolean;
}

export interface S3Credentials {
  access_key_id: string;
  secret_access_key: string;
  session_token?: string;
}

export class S3Store implements FileStore {
  private readonly client: S3Client;
  private readonly prefix: string;

  constructor(
    private readonly config: S3Config,
    credentials: S3Credentials,
    private readonly guard: GuardOptions,
  ) {
    this.prefix = (config.prefix ?? '').replace(/^\/+|\/+$/g, '');
    const lookup = guardedLookup(guard) as never;
    this.client = new S3Client({
      region: config.region ?? 'us-east-1',
      ...(config.endpoint_url ? { endpoint: config.endpoint_url } : {}),
      forcePathStyle: config.force_path_style ?? !!config.endpoint_url,
      credentials: { accessKeyId: credentials.access_key_id, secretAccessKey: credentials.secret_access_key, ...(credentials.session_token ? { sessionToken: credentials.session_token } : {}) },
      requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ lookup }), httpsAgent: new https.Agent({ lookup }), connectionTimeout: 10_000, requestTimeout: 60_000 }),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
  }

  private key(name: string): string {
    return this.prefix ? `${this.prefix}/${name}` : name;
  }

  private async checkEndpoint(): Promise<void> {
    if (this.config.endpoint_url) await assertOutboundAllowed(this.config.endpoint_url, this.guard);
  }

  async put(name: string, body: PutBody, contentType: string, meta: Record<string, string>): Promise<void> {
    await this.checkEndpoint();
    // A stream goes as it is read; its length is given, as a single PUT of a stream needs it.
    const content = Buffer.isBuffer(body) ? { Body: body } : { Body: body.stream, ContentLength: body.size };
    await this.client.send(new PutObjectCommand({ Bucket: this.config.bucket, Key: this.key(name), ...content, ContentType: contentType, Metadata: meta }));
  }

  async list(): Promise<RemoteFile[]> {
    await this.checkEndpoint();
    const files: RemoteFile[] = [];
    const Prefix = this.prefix ? `${this.prefix}/` : undefined;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix, Delimiter: '/', ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        const name = object.Key!.slice(Prefix?.length ?? 0);
        if (!name || name.endsWith('/')) continue;
        // An object is listed only once its upload is complete: nothing to wait for.
        files.push({ name, size: object.Size ?? 0, fingerprint: object.ETag ?? `${object.Size}:${object.LastModified?.getTime()}`, modifiedMs: null });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return files;
  }

  async read(name: string): Promise<Readable> {
    await this.checkEndpoint();
    const answer = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.key(name) }));
    return answer.Body as Readable;
  }

  async move(name: string, dir: string): Promise<void> {
    await this.checkEndpoint();
    const source = encodeURIComponent(`${this.config.bucket}/${this.key(name)}`).replace(/%2F/g, '/');
    await this.client.send(new CopyObjectCommand({ Bucket: this.config.bucket, Key: this.key(`${dir}/${name}`), CopySource: source }));
    await this.remove(name);
  }

  async remove(name: string): Promise<void> {
    await this.checkEndpoint();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.key(name) }));
  }

  async probe(writable: boolean): Promise<string> {
    await this.checkEndpoint();
    await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: this.prefix ? `${this.prefix}/` : undefined, MaxKeys: 1 }));
    if (writable) {
      const name = `.quire-probe-${Date.now()}`;
      await this.put(name, Buffer.from('ok'), 'text/plain', {});
      await this.remove(name);
    }
    return `Bucket ${this.config.bucket} is ${writable ? 'readable and writable' : 'readable'}${this.prefix ? ` under ${this.prefix}/` : ''}.`;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
