// The real type of an upload, from its bytes alone: names and Content-Type headers lie (a PDF
// called invoice.png, text sent as application/octet-stream), and the worker must not crash on
// what a client claims. Unknown types are refused here, before any parser sees them.
import { unzipSync } from 'fflate';
import type { DocumentFormat } from '../canonical/model.js';
import { corruptDocument, emptyDocument, unsupportedFormat } from './errors.js';

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
  return { format, contentType: CONTENT_TYPES[format] };
}

function sniffFormat(b: Uint8Array): DocumentFormat {
  // PDF readers accept the header anywhere in the first 1024 bytes (ISO 32000-1, Annex H.3);
  // real files carry printer junk before it (pdf-realworld/issue-848.pdf starts "GPL Ghostscript").
  if (ascii(b, 0, Math.min(b.length, 1024)).includes('%PDF-')) return 'pdf';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06])) return sniffZip(b);
  if (isUtf8Text(b)) return 'text';
  if (startsWith(b, [0xd0, 0xcf, 0x11, 0xe0])) throw unsupportedFormat('a legacy Microsoft Office file (.doc/.ppt/.xls)');
  if (ascii(b, 0, 4) === 'GIF8') throw unsupportedFormat('a GIF image');
  throw unsupportedFormat('binary data of an unknown type');
}

/** OOXML packages are all ZIPs; only a presentation (ppt/presentation.xml) is ours. */
function sniffZip(b: Uint8Array): DocumentFormat {
  let names: string[];
  try {
    names = [];
    // The filter sees every entry's name and decompresses none of them.
    unzipSync(b, { filter: (f) => (names.push(f.name), false) });
  } catch (err) {
    throw corruptDocument(`the ZIP container is damaged: ${(err as Error).message}`);
  }
  if (names.includes('ppt/presentation.xml')) return 'pptx';
  if (names.includes('word/document.xml')) throw unsupportedFormat('a Word document (DOCX)');
  if (names.includes('xl/workbook.xml')) throw unsupportedFormat('an Excel workbook (XLSX)');
  throw unsupportedFormat('a ZIP archive without a presentation in it');
}

/**
 * UTF-8 that decodes strictly, without NUL bytes and with few control characters: binary data
 * almost never passes all three. Tab, line breaks and form feed (a page break) are allowed.
 */
function isUtf8Text(b: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return false;
  }
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) control++;
  }
  return control <= text.length / 100;
}
