// The upload-time type check reads only a file's head (and a ZIP's central directory).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unzipSync, zipSync } from 'fflate';
import { deck, slide, sp } from '../../../test/pipeline/decks.js';
import { sniffUpload } from './upload-sniff.js';

const data = path.resolve(import.meta.dirname, '../../../../shared/data');

function staged(bytes: Buffer) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sniff-')), 'f');
  fs.writeFileSync(file, bytes);
  return { path: file, sha256: 'x', size: bytes.length, head: bytes.subarray(0, 64 * 1024) };
}

describe('sniffUpload', () => {
  it('recognises PDF and PPTX from their bytes', async () => {
    expect(await sniffUpload(staged(fs.readFileSync(path.join(data, 'pdf-realworld/pdfs/issue-912.pdf'))))).toMatchObject({ kind: 'supported', format: 'pdf' });
    expect(await sniffUpload(staged(fs.readFileSync(path.join(data, 'pptx-python-pptx/files/prs-notes.pptx'))))).toMatchObject({ kind: 'supported', format: 'pptx' });
  });

  it('accepts long UTF-8 text cut mid-character at the head boundary', async () => {
    const text = Buffer.from('é'.repeat(40_000));
    expect(await sniffUpload(staged(text))).toMatchObject({ kind: 'supported', format: 'text' });
  });

  it('refuses what Quire cannot read, and leaves damaged or empty files to the job', async () => {
    expect((await sniffUpload(staged(fs.readFileSync(path.join(data, 'pdf-realworld/pdfs/issue-948.zip'))))).kind).toBe('unsupported');
    expect((await sniffUpload(staged(Buffer.from([0, 1, 2, 3, 0, 0, 255, 254]))))).toMatchObject({ kind: 'unsupported' });
    const pptx = fs.readFileSync(path.join(data, 'pptx-python-pptx/files/prs-notes.pptx'));
    expect((await sniffUpload(staged(pptx.subarray(0, 20_000)))).kind).toBe('deferred');
    expect((await sniffUpload(staged(Buffer.alloc(0)))).kind).toBe('deferred');
  });
});

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
