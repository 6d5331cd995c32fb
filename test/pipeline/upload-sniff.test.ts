// The upload-time sniffer (src/domain/documents/upload-sniff.ts) against the pipeline's: the same
// decision from a file's head, its ZIP directory and content types, or its compound-file directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { sniffUpload } from '../../src/domain/documents/upload-sniff.js';
import { deck, slide, sp } from './decks.js';

function staged(bytes: Buffer) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sniff-')), 'f');
  fs.writeFileSync(file, bytes);
  return { path: file, sha256: 'x', size: bytes.length, head: bytes.subarray(0, 64 * 1024) };
}

describe('sniffUpload agrees with the pipeline sniffer', () => {
  it('reads a presentation by its content types, and a stored PDF inside a ZIP does not make it a PDF', async () => {
    const renamed = Buffer.from(deck([slide(sp('x'))], { main: 'ppt/deck.xml' }));
    expect(await sniffUpload(staged(renamed))).toMatchObject({ kind: 'supported', format: 'pptx' });
    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
    const withPdf = Buffer.from(zipSync({ 'embedded.pdf': [pdf, { level: 0 }], ...unzipSync(deck([slide(sp('x'))])) }));
    expect(await sniffUpload(staged(withPdf))).toMatchObject({ kind: 'supported', format: 'pptx' });
    expect(await sniffUpload(staged(Buffer.from('About the %PDF-1.4 header\n')))).toMatchObject({ kind: 'supported', format: 'text' });
  });

  it('accepts Windows-1252 text instead of calling it binary', async () => {
    const cp1252 = Buffer.from([...Buffer.from('Preis: 12,50 '), 0x80, 0x0a]);
    expect(await sniffUpload(staged(cp1252))).toEqual({ kind: 'supported', format: 'text', contentType: 'text/plain; charset=windows-1252' });
  });

  it('leaves a password-protected Office file to the job (encrypted_document) even when its directory lies past the head', async () => {
    const b = Buffer.alloc(80 * 1024);
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(b);
    b.writeUInt16LE(9, 0x1e);
    b.writeUInt32LE(150, 0x30); // directory at (150 + 1) × 512 = 77,312 bytes
    ['Root Entry', 'EncryptionInfo', 'EncryptedPackage'].forEach((name, i) => b.write(name, 151 * 512 + i * 128, 'utf16le'));
    expect(await sniffUpload(staged(b))).toMatchObject({ kind: 'deferred', reason: 'encrypted_document' });
    b.fill(0, 151 * 512);
    expect((await sniffUpload(staged(b))).kind).toBe('unsupported');
  });
});
