// Where S3 blobs live, from QUIRE_BLOB_URL: read without the SDK, so a bad URL fails at start-up.

export interface S3Location {
  bucket: string;
  prefix: string;
}

/** `s3://bucket/some/prefix` → {bucket, prefix: 'some/prefix'}; throws on anything else. */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new Error(`QUIRE_BLOB_URL must look like s3://bucket/prefix, got "${url}"`);
  return { bucket: m[1]!, prefix: (m[2] ?? '').replace(/^\/+|\/+$/g, '') };
}

export interface S3Options {
  url: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  stagingDir: string;
}
