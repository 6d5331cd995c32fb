// The real type of an upload, from its bytes alone: names and Content-Type headers lie (a PDF
// called invoice.png, text sent as application/octet-stream), and the worker must not crash on
// what a client claims. Unknown types are refused here, before any parser sees them.
import { unzipSync } from 'fflate';
import type { DocumentFormat } from '../canonical/model.js';
import { corruptDocument, emptyDocument, encryptedDocument, unsupportedFormat } from './errors.js';
import { decodeText } from './text-encoding.js';

export interface Sniffed {
  format: DocumentFormat;
  contentType: string;
}

const CONTENT_TYPES: Record<DocumentFormat, string> = {
  pdf: 'application/pdf',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  text: 'text/plain; charset=utf-8',
  png: 'image/png',
  jpeg: 'image/jpeg',
  tiff: 'image/tiff',
  webp: 'image/webp',
};

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** Throws PipelineError: empty_document (no bytes), unsupported_format, corrupt_document (broken ZIP). */
export function sniff(bytes: Uint8Array): Sniffed {
  if (bytes.length === 0) throw emptyDocument('the file is 0 bytes long');
  const format = sniffFormat(bytes);
  return format === 'text-windows-1252' ? { format: 'text', contentType: 'text/plain; charset=windows-1252' } : { format, contentType: CONTENT_TYPES[format] };
}

export const contentTypeOf = (format: DocumentFormat) => CONTENT_TYPES[format];

/** The format a stored content type names ("application/pdf" → "pdf"; any text/plain → "text"), or null. */
export function formatOfContentType(contentType: string | null): DocumentFormat | null {
  const base = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (base === 'text/plain') return 'text';
  return (Object.keys(CONTENT_TYPES) as DocumentFormat[]).find((f) => CONTENT_TYPES[f].split(';')[0] === base) ?? null;
}
const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
export const isCfb = (head: Uint8Array) => startsWith(head, CFB_SIGNATURE);

/**
 * Signatures that are certain come first (a PNG, JPEG, TIFF, WebP, ZIP or CFB is that, whatever
 * its payload: a deck whose first entry is a stored PDF, a PNG comment saying "%PDF-1.4"). A PDF
 * header at offset 0 is certain too; one further in is accepted only when nothing else matched.
 */
function sniffFormat(b: Uint8Array): DocumentFormat | 'text-windows-1252' {
  const signed = bySignature(b);
  if (signed) return signed;
  if (isCfb(b)) throw cfbFailure(...cfbRegions(b));
  if (ascii(b, 0, 4) === 'GIF8') throw unsupportedFormat('a GIF image');
  // PDF readers accept the header anywhere in the first 1024 bytes (ISO 32000-1, Annex H.3);
  // real files carry printer junk before it (pdf-realworld/issue-848.pdf starts "GPL Ghostscript").
  // Such a PDF is binary; a text that quotes a PDF header near its start is still text.
  const pdfHeader = ascii(b, 0, Math.min(b.length, 1024)).includes('%PDF-');
  const text = decodeText(b);
  if (text?.encoding === 'utf-8') return 'text';
  if (pdfHeader) return 'pdf';
  // Text that is not UTF-8 is Windows-1252 (text-encoding.ts); its content type says so.
  if (text) return 'text-windows-1252';
  throw unsupportedFormat('binary data of an unknown type');
}

/** The format a file's leading signature settles (ZIPs by their entries); null when none matches. */
function bySignature(b: Uint8Array): DocumentFormat | null {
  if (ascii(b, 0, 5) === '%PDF-') return 'pdf';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (isZip(b)) return sniffZip(b);
  return null;
}

/** A local file header or an empty archive's end record: the two ways a ZIP can start. */
export const isZip = (head: Uint8Array) => startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]);

function sniffZip(b: Uint8Array): DocumentFormat {
  let names: string[];
  let contentTypes: string | undefined;
  try {
    names = [];
    // The filter sees every entry's name and decompresses only the (small) content-type list.
    const files = unzipSync(b, { filter: (f) => (names.push(f.name), f.name === CONTENT_TYPES_PART && f.originalSize <= MAX_CONTENT_TYPES_BYTES) });
    const data = files[CONTENT_TYPES_PART];
    contentTypes = data && new TextDecoder().decode(data);
  } catch (err) {
    throw corruptDocument(`the ZIP container is damaged: ${(err as Error).message}`);
  }
  return zipFormat(names, contentTypes);
}

/** The OPC part listing each part's content type; the presentation is the part typed as one. */
export const CONTENT_TYPES_PART = '[Content_Types].xml';
/** Real content-type lists are a few KB; a larger one is not looked into. */
export const MAX_CONTENT_TYPES_BYTES = 1024 * 1024;
const PRESENTATION_MAIN = /ContentType\s*=\s*["']application\/vnd\.openxmlformats-officedocument\.presentationml\.(presentation|slideshow|template)\.main\+xml["']/;

/**
 * OOXML packages are all ZIPs; only a presentation is ours: ppt/presentation.xml, or a main part
 * of another name that [Content_Types].xml types as a presentation (what _rels/.rels points to).
 * The one decision for the upload (names from the central directory) and the worker.
 */
export function zipFormat(names: readonly string[], contentTypes: string | undefined): DocumentFormat {
  if (names.includes('ppt/presentation.xml') || (contentTypes !== undefined && PRESENTATION_MAIN.test(contentTypes))) return 'pptx';
  if (names.includes('word/document.xml')) throw unsupportedFormat('a Word document (DOCX)');
  if (names.includes('xl/workbook.xml')) throw unsupportedFormat('an Excel workbook (XLSX)');
  throw unsupportedFormat('a ZIP archive without a presentation in it');
}

const utf16 = (s: string) => Buffer.from(s, 'utf16le');
const ENCRYPTION_STREAMS = ['EncryptionInfo', 'EncryptedPackage'].map(utf16);

/** Where a compound file's first directory sector lies (its header names it), to look for stream names. */
export function cfbDirectoryRange(head: Uint8Array): { offset: number; length: number } | null {
  if (head.length < 0x34) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const shift = view.getUint16(0x1e, true);
  if (shift !== 9 && shift !== 12) return null;
  const size = 1 << shift;
  return { offset: (view.getUint32(0x30, true) + 1) * size, length: size };
}

/**
 * A compound (CFB) file is a legacy Office file, or an encrypted OOXML one: Office wraps a
 * password-protected .pptx/.docx in CFB with EncryptionInfo and EncryptedPackage streams
 * (MS-OFFCRYPTO 2.3.4). `regions` are the bytes to look for those stream names in.
 */
export function cfbFailure(...regions: Uint8Array[]) {
  const has = (r: Uint8Array, name: Buffer) => Buffer.from(r.buffer, r.byteOffset, r.byteLength).includes(name);
  const encrypted = regions.some((r) => ENCRYPTION_STREAMS.some((n) => has(r, n)));
  return encrypted ? encryptedDocument('office') : unsupportedFormat('a legacy Microsoft Office file (.doc/.ppt/.xls)');
}

function cfbRegions(b: Uint8Array): Uint8Array[] {
  const dir = cfbDirectoryRange(b);
  return [b.subarray(0, 64 * 1024), ...(dir ? [b.subarray(dir.offset, dir.offset + dir.length * 4)] : [])];
}
