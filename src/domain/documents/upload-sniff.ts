// The real type of an upload, decided at upload time from its bytes (never from the file name or
// the Content-Type header), reading only the staged file's first bytes and, for ZIP containers,
// its central directory. The pipeline's sniffer (src/pipeline/ingest/sniff.ts) decides; this
// file only feeds it enough bytes without loading a large upload into memory.
// - supported → the job records the sniffed content type;
// - surely unsupported (a DOCX, a GIF, random binary) → 415 at upload;
// - undecidable here (empty, damaged ZIP) → accepted; the worker's full read fails the job with
//   the precise code (empty_document, corrupt_document), so those codes are reachable with a real file.
import fs from 'node:fs/promises';
import { isPipelineError } from '../../pipeline/ingest/errors.js';
import { sniff } from '../../pipeline/ingest/sniff.js';
import type { StagedFile } from '../../storage/blob-store.js';

export type UploadVerdict =
  | { kind: 'supported'; format: string; contentType: string }
  | { kind: 'unsupported'; message: string }
  | { kind: 'deferred'; reason: string };

const ZIP_MAGIC = [0x50, 0x4b];
const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
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

/** Entry names of a ZIP from its central directory, or null when it cannot be read. */
export async function zipEntryNames(path: string, size: number): Promise<string[] | null> {
  const handle = await fs.open(path, 'r');
  try {
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
    const names: string[] = [];
    for (let p = 0; p + 46 <= cd.length; ) {
      if (cd.readUInt32LE(p) !== CENTRAL_SIGNATURE) return null;
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      names.push(cd.toString('utf8', p + 46, p + 46 + nameLength));
      p += 46 + nameLength + extraLength + commentLength;
    }
    return names;
  } finally {
    await handle.close();
  }
}

const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

export async function sniffUpload(staged: StagedFile): Promise<UploadVerdict> {
  if (staged.size === 0) return { kind: 'deferred', reason: 'empty' };
  const head = staged.head;
  if (head[0] === ZIP_MAGIC[0] && head[1] === ZIP_MAGIC[1] && head[2] !== undefined && head[2] < 0x09) {
    const names = await zipEntryNames(staged.path, staged.size);
    if (!names) return { kind: 'deferred', reason: 'zip directory unreadable' };
    if (names.includes('ppt/presentation.xml')) return { kind: 'supported', format: 'pptx', contentType: PPTX };
    if (names.includes('word/document.xml')) return unsupported('a Word document (DOCX)');
    if (names.includes('xl/workbook.xml')) return unsupported('an Excel workbook (XLSX)');
    return unsupported('a ZIP archive without a presentation in it');
  }
  const whole = staged.size === head.length;
  try {
    const found = sniff(whole ? head : trimPartialUtf8(head));
    return { kind: 'supported', format: found.format, contentType: found.contentType };
  } catch (err) {
    if (isPipelineError(err) && err.code === 'unsupported_format') return { kind: 'unsupported', message: err.message };
    return { kind: 'deferred', reason: isPipelineError(err) ? err.code : 'unknown' };
  }
}

function unsupported(what: string): UploadVerdict {
  return {
    kind: 'unsupported',
    message: `The file is ${what}, which Quire cannot read. Send a PDF, PPTX, PNG, JPEG, TIFF, WebP or UTF-8 text file.`,
  };
}
