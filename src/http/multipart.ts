// Reading a multipart upload: each file part is streamed straight into the blob store's staging
// area (hashed on the way, never held whole in memory), text fields are collected. Limits map to
// the API's errors: a file over QUIRE_MAX_UPLOAD_BYTES → 413, too many files → 422 on the field.
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { StagedFile } from '../storage/blob-store.js';
import { UploadTooLargeError, discardStaged, stageStream } from '../storage/staging.js';
import type { App } from './context.js';
import { type ValidationItem, badRequest, payloadTooLarge, unsupportedMedia, validationError } from '../lib/errors.js';

export interface ReceivedFile {
  field: string;
  filename: string | null;
  staged: StagedFile;
}

export interface ReceivedForm {
  fields: Record<string, string>;
  files: ReceivedFile[];
}

export interface FormSpec {
  /** The field that carries files, and how many it takes. */
  fileField: string;
  maxFiles: number;
  maxFileBytes: number;
  stagingDir: string;
}

const tooLarge = (limit: number) =>
  payloadTooLarge(`A file is larger than this server accepts (${limit} bytes, QUIRE_MAX_UPLOAD_BYTES). Split it or compress it, then upload again.`);

/** Registers the multipart parser on an (encapsulated) scope. Files are limited per request by receiveForm. */
export async function registerMultipart(scope: App, maxFileBytes: number): Promise<void> {
  await scope.register(multipart, {
    limits: { fileSize: maxFileBytes, files: 1000, fields: 50, fieldSize: 1024 * 1024, parts: 1100, headerPairs: 100 },
  });
}

function asCodedError(err: unknown, spec: FormSpec): unknown {
  const code = (err as { code?: string }).code;
  if (err instanceof UploadTooLargeError || code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(spec.maxFileBytes);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return validationError([{ loc: ['body', spec.fileField], msg: `List should have at most ${spec.maxFiles} items after validation`, type: 'too_long', ctx: { max_length: spec.maxFiles } }]);
  }
  if (code === 'FST_FIELDS_LIMIT') return validationError([{ loc: ['body'], msg: 'Too many form fields', type: 'value_error' }]);
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return unsupportedMedia('unsupported_media_type', 'Send the upload as multipart/form-data.');
  if (code === 'FST_MP_PREMATURE_CLOSE' || (err instanceof Error && /terminated early|Unexpected end of form|Malformed|Boundary not found|Unexpected end of multipart|Multipart:/i.test(err.message))) {
    return badRequest('malformed_upload', 'The multipart body ended early or is malformed. Send the upload again.');
  }
  return err;
}

export async function receiveForm(request: FastifyRequest, spec: FormSpec): Promise<ReceivedForm> {
  if (!request.isMultipart()) throw unsupportedMedia('unsupported_media_type', 'Send the upload as multipart/form-data.');
  const fields: Record<string, string> = {};
  const files: ReceivedFile[] = [];
  // A file under another name (`-F metadata=@meta.json`, `files[]`) is refused once the body is
  // read, never dropped: the job would run without what the client meant to send.
  const stray: ValidationItem[] = [];
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== spec.fileField) {
        part.file.resume();
        stray.push({ loc: ['body', part.fieldname], msg: `Only \`${spec.fileField}\` takes files: send ${part.fieldname} as a text field`, type: 'value_error', input: part.filename || null });
        continue;
      }
      if (files.length >= spec.maxFiles) {
        part.file.resume();
        throw Object.assign(new Error('too many files'), { code: 'FST_FILES_LIMIT' });
      }
      const staged = await stageStream(part.file, spec.stagingDir, spec.maxFileBytes);
      files.push({ field: part.fieldname, filename: part.filename || null, staged });
      // busboy stops a file at the limit and marks it truncated rather than failing the stream.
      if (part.file.truncated) throw new UploadTooLargeError(spec.maxFileBytes);
    }
  } catch (err) {
    for (const file of files) await discardStaged(file.staged);
    throw asCodedError(err, spec);
  }
  if (stray.length) {
    for (const file of files) await discardStaged(file.staged);
    throw validationError(stray);
  }
  return { fields, files };
}

export async function discardForm(form: ReceivedForm | null): Promise<void> {
  for (const file of form?.files ?? []) await discardStaged(file.staged);
}
