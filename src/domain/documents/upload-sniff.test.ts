// The upload-time type check reads only a file's head (and a ZIP's central directory).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
