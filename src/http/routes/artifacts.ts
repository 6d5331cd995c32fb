// GET /v1/artifacts/{artifact_id}: streams a stored file with its content type, tenant-scoped
// (another tenant's artifact is 404), with single-range requests (RFC 9110 §14) for large files
// and If-None-Match revalidation (a list, weak tags and `*` included).
// A page image not drawn yet is drawn on this first download (domain/documents/page-images.ts).
import { Type } from 'typebox';
import { findArtifact } from '../../domain/documents/jobs.repository.js';
import { drawPageImage } from '../../domain/documents/page-images.js';
import type { BlobStore, ByteRange } from '../../storage/index.js';
import { BlobNotFoundError } from '../../storage/index.js';
import { type App, type AppContext, caller } from '../context.js';
import { notFound } from '../../lib/errors.js';
import { ArtifactParams } from '../schemas/documents.js';

type RangeAnswer = { kind: 'full' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/** One `bytes=` range; several ranges, or anything unparsable, are served as the whole file (allowed by RFC 9110). */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'full' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' };
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return { kind: 'full' };
  }
  if (start >= size || size === 0) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}

/**
 * If-None-Match (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly (a `W/` prefix
 * does not matter), as caches and browsers send it.
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/**
 * The file name twice: a plain ASCII stand-in, and the exact name as an RFC 8187 ext-value, where
 * every character outside attr-char is percent-encoded (encodeURIComponent leaves ' ( ) * as
 * they are, and a ' there ends the value's language part early in a strict reader).
 */
export function disposition(filename: string, inline: boolean): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

export function serveArtifact(app: App, ctx: AppContext, blobs: BlobStore): void {
  app.get(
    '/v1/artifacts/:artifact_id',
    {
      config: { permission: 'member' },
      schema: {
        tags: ['documents'],
        operationId: 'artifacts.download',
        summary: 'Download an artifact (the source upload, canonical JSON, Markdown, page images); supports Range',
        params: ArtifactParams,
        headers: Type.Object({ range: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const artifact = await findArtifact(ctx.db, caller(request).tenantId, request.params.artifact_id);
      if (!artifact) throw notFound(`Artifact ${request.params.artifact_id}`);
      const file = artifact.sha256 !== null && artifact.size_bytes !== null ? { sha256: artifact.sha256, size_bytes: artifact.size_bytes } : await drawPageImage(ctx.db, blobs, artifact);
      const size = file.size_bytes;
      const etag = `"${file.sha256}"`;
      reply
        .header('content-type', artifact.content_type)
        .header('accept-ranges', 'bytes')
        .header('etag', etag)
        .header('cache-control', 'no-store')
        .header('content-disposition', disposition(artifact.filename, artifact.kind === 'page_image'))
        .header('x-content-type-options', 'nosniff');
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.status(304).send();
      // If-Range with another validator: the client's partial copy is stale, send it all.
      const ifRange = request.headers['if-range'];
      const answer = ifRange && ifRange !== etag ? ({ kind: 'full' } as const) : parseRange(request.headers.range, size);
      if (answer.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${size}`).header('content-type', 'application/json; charset=utf-8').removeHeader('content-disposition');
        return reply.status(416).send({ detail: `The requested range is outside the file (${size} bytes).`, code: 'range_not_satisfiable' });
      }
      try {
        if (answer.kind === 'partial') {
          const { start, end } = answer.range;
          reply.header('content-range', `bytes ${start}-${end}/${size}`).header('content-length', String(end - start + 1));
          return reply.status(206).send(await blobs.read(file.sha256, answer.range));
        }
        reply.header('content-length', String(size));
        return reply.status(200).send(await blobs.read(file.sha256));
      } catch (err) {
        if (err instanceof BlobNotFoundError) {
          request.log.error({ artifactId: artifact.id, sha256: artifact.sha256 }, 'artifact blob missing from the store');
          throw notFound(`The file of artifact ${artifact.id}`);
        }
        throw err;
      }
    },
  );
}
