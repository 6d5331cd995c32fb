// The real type of an upload, decided at upload time from its bytes (never from the file name or
// the Content-Type header), reading only the staged file's first bytes and, for ZIP containers,
// its central directory. The pipeline's sniffer (src/pipeline/ingest/sniff.ts) decides; this
// file only feeds it enough bytes without loading a large upload into memory.
// - supported → the job records the sniffed content type;
// - surely unsupported (a DOCX, a GIF, random binary) → 415 at upload;
// - undecidable here (empty, damaged ZIP) → accepted; the worker's full read fails the job with
//   the precise code (empty_document, corrupt_document), so those codes are reachable with a real file.
import fs from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { isPipelineError } from '../../pipeline/ingest/errors.js';
import { CONTENT_TYPES_PART, MAX_CONTENT_TYPES_BYTES, cfbDirectoryRange, cfbFailure, contentTypeOf, isCfb, isZip, sniff, zipFormat } from '../../pipeline/ingest/sniff.js';
import type { StagedFile } from '../../storage/blob-store.js';

export type UploadVerdict =
  | { kind: 'supported'; format: string; contentType: string }
  | { kind: 'unsupported'; message: string }
  | { kind: 'deferred'; reason: string };

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
// A central directory larger than this is not a presentation we could handle anyway.
const MAX_CENTRAL_DIRECTORY = 16 * 1024 * 1024;

/** Drops a UTF-8 sequence cut off at the end of a prefix, so strict decoding judges only whole characters. */
function trimPartialUtf8(bytes: Buffer): Buffer {
  let i = bytes.length - 1;
  let back = 0;
  while (i >= 0 && back < 4 && (bytes[i]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return bytes;
  const lead = bytes[i]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? bytes.subarray(0, i) : bytes;
}

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** Entries of a ZIP from its central directory, or null when it cannot be read. */
async function zipEntries(handle: fs.FileHandle, size: number): Promise<ZipEntry[] | null> {
  const tailSize = Math.min(size, 22 + 65535);
  const tail = Buffer.alloc(tailSize);
  await handle.read(tail, 0, tailSize, size - tailSize);
  let eocd = -1;
  for (let i = tailSize - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const cdSize = tail.readUInt32LE(eocd + 12);
  const cdOffset = tail.readUInt32LE(eocd + 16);
  if (cdSize > MAX_CENTRAL_DIRECTORY || cdOffset + cdSize > size) return null;
  const cd = Buffer.alloc(cdSize);
  await handle.read(cd, 0, cdSize, cdOffset);
  const entries: ZipEntry[] = [];
  for (let p = 0; p + 46 <= cd.length; ) {
    if (cd.readUInt32LE(p) !== CENTRAL_SIGNATURE) return null;
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    entries.push({
      name: cd.toString('utf8', p + 46, p + 46 + nameLength),
      method: cd.readUInt16LE(p + 10),
      compressedSize: cd.readUInt32LE(p + 20),
      size: cd.readUInt32LE(p + 24),
      localOffset: cd.readUInt32LE(p + 42),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** One small entry's text (stored or deflated), or undefined when it cannot be read. */
async function entryText(handle: fs.FileHandle, size: number, entry: ZipEntry | undefined): Promise<string | undefined> {
  if (!entry || entry.size > MAX_CONTENT_TYPES_BYTES || entry.compressedSize > MAX_CONTENT_TYPES_BYTES) return undefined;
  const header = Buffer.alloc(30);
  await handle.read(header, 0, 30, entry.localOffset);
  if (header.readUInt32LE(0) !== LOCAL_SIGNATURE) return undefined;
  const start = entry.localOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + entry.compressedSize > size) return undefined;
  const data = Buffer.alloc(entry.compressedSize);
  await handle.read(data, 0, entry.compressedSize, start);
  try {
    if (entry.method === 0) return data.toString('utf8');
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: MAX_CONTENT_TYPES_BYTES }).toString('utf8');
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The pipeline sniffer's decision for a ZIP, from its central directory and its content-type
 * list, without reading the rest; null when the directory cannot be read (a damaged ZIP).
 */
async function zipVerdict(staged: StagedFile): Promise<UploadVerdict | null> {
  const handle = await fs.open(staged.path, 'r');
  try {
    const entries = await zipEntries(handle, staged.size);
    if (!entries) return null;
    const contentTypes = await entryText(handle, staged.size, entries.find((e) => e.name === CONTENT_TYPES_PART));
    const format = zipFormat(
      entries.map((e) => e.name),
      contentTypes,
    );
    return { kind: 'supported', format, contentType: contentTypeOf(format) };
  } catch (err) {
    if (isPipelineError(err) && err.code === 'unsupported_format') return { kind: 'unsupported', message: err.message };
    throw err;
  } finally {
    await handle.close();
  }
}

/** A compound file's directory sector, read from the file: it may lie past the head. */
async function cfbDirectory(staged: StagedFile): Promise<Uint8Array> {
  const range = cfbDirectoryRange(staged.head);
  if (!range || range.offset >= staged.size) return new Uint8Array(0);
  const handle = await fs.open(staged.path, 'r');
  try {
    const length = Math.min(range.length * 4, staged.size - range.offset);
    const dir = Buffer.alloc(length);
    await handle.read(dir, 0, length, range.offset);
    return dir;
  } finally {
    await handle.close();
  }
}

export async function sniffUpload(staged: StagedFile): Promise<UploadVerdict> {
  if (staged.size === 0) return { kind: 'deferred', reason: 'empty' };
  const head = staged.head;
  if (isZip(head)) return (await zipVerdict(staged)) ?? { kind: 'deferred', reason: 'zip directory unreadable' };
  const whole = staged.size === head.length;
  try {
    const found = sniff(whole ? head : trimPartialUtf8(head));
    return { kind: 'supported', format: found.format, contentType: found.contentType };
  } catch (err) {
    if (isPipelineError(err) && err.code === 'unsupported_format' && isCfb(head)) {
      // The head may not reach the compound file's directory: look there before calling it legacy.
      const failure = cfbFailure(head, await cfbDirectory(staged));
      if (failure.code !== 'unsupported_format') return { kind: 'deferred', reason: failure.code };
    }
    if (isPipelineError(err) && err.code === 'unsupported_format') return { kind: 'unsupported', message: err.message };
    return { kind: 'deferred', reason: isPipelineError(err) ? err.code : 'unknown' };
  }
}
