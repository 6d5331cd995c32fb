// Robustness: every file in pdf-realworld (rotated, malformed, encrypted, empty, annotated, plus a
// ZIP and a Python script that sit in the folder) ends in a canonical document or a PipelineError
// with a known code, within a per-file time limit, and nothing crashes.
import { describe, expect, it } from 'vitest';
import { PipelineError, runCanonical } from '../../src/pipeline/index.js';
import { listData, readData } from './data.js';

const KNOWN = ['unsupported_format', 'corrupt_document', 'encrypted_document', 'empty_document'];
/** The slowest file (65 pages) takes ~2 s on one core; 15 s leaves room for a loaded CI box. */
const PER_FILE_MS = 15_000;

describe('pdf-realworld: every file ends in a document or a clear failure', () => {
  const files = listData('pdf-realworld/pdfs');

  it('has the whole corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(53);
  });

  it.each(files)('%s', async (file) => {
    const started = performance.now();
    let outcome: string;
    try {
      const doc = await runCanonical(readData(`pdf-realworld/pdfs/${file}`));
      outcome = 'document';
      expect(doc.pages.length).toBeGreaterThan(0);
      for (const page of doc.pages) {
        expect(['text_layer', 'needs_ocr', 'plain_text']).toContain(page.source);
        expect(page.width).toBeGreaterThan(0);
        // A page is never silently empty: no text means it is marked for OCR (or truly blank).
        if (page.blocks.length === 0) expect(page.source === 'needs_ocr' || doc.pages.length > 1).toBe(true);
      }
      expect(typeof doc.markdown).toBe('string');
    } catch (err) {
      expect(err).toBeInstanceOf(PipelineError);
      expect(KNOWN).toContain((err as PipelineError).code);
      expect((err as PipelineError).message.length).toBeGreaterThan(20);
      outcome = (err as PipelineError).code;
    }
    expect(outcome).toBeTruthy();
    expect(performance.now() - started).toBeLessThan(PER_FILE_MS);
  }, PER_FILE_MS * 2);
});
