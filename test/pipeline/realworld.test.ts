// Robustness with pinned outcomes: every file in pdf-realworld (rotated, malformed, encrypted,
// empty, annotated, plus a ZIP and a Python script that sit in the folder) ends exactly as pinned
// here: a canonical document with this many pages, or a PipelineError with this code. A readable
// file that regresses to a failure, or a failure that changes code, fails its own test.
import { describe, expect, it } from 'vitest';
import { PipelineError, runCanonical } from '../../src/pipeline/index.js';
import { listData, readData } from './data.js';

/** Page count of the canonical document, or the failure code. */
const EXPECTED: Record<string, number | string> = {
  '150109DSP-Milw-505-90D.pdf': 2,
  '2023-06-20-PV.pdf': 2,
  'WARN-Report-for-7-1-2015-to-03-25-2016.pdf': 16,
  'annotations.pdf': 1,
  'chelsea_pdta.pdf': 65,
  'cupertino_usd_4-6-16.pdf': 1,
  'empty.pdf': 'empty_document',
  'extra-attrs-example.pdf': 1,
  'federal-register-2020-17221.pdf': 15,
  'figure_structure.pdf': 1,
  'hello_structure.pdf': 2,
  'image_structure.pdf': 1,
  'issue-1054-example.pdf': 1,
  'issue-13-151201DSP-Fond-581-90D.pdf': 2,
  'issue-140-example.pdf': 1,
  'issue-192-example.pdf': 1,
  'issue-203-decimalize.pdf': 3,
  'issue-297-example.pdf': 'empty_document',
  'issue-316-example.pdf': 17,
  'issue-33-lorem-ipsum.pdf': 2,
  'issue-336-example.pdf': 1,
  'issue-461-example.pdf': 1,
  'issue-463-example.pdf': 3,
  'issue-466-example.pdf': 1,
  'issue-53-example.pdf': 5,
  'issue-598-example.pdf': 1,
  'issue-67-example.pdf': 22,
  'issue-71-duplicate-chars-2.pdf': 20,
  'issue-71-duplicate-chars.pdf': 2,
  'issue-842-example.pdf': 1,
  'issue-848.pdf': 8,
  'issue-90-example.pdf': 1,
  'issue-912.pdf': 2,
  'issue-948.zip': 'unsupported_format',
  'issue-982-example.pdf': 8,
  'issue-987-test.pdf': 1,
  'la-precinct-bulletin-2014-p1.pdf': 1,
  'line-char-render-example.pdf': 1,
  'make_xref.py': 1,
  'malformed-from-issue-932.pdf': 1,
  'mcid_example.pdf': 1,
  'nics-background-checks-2015-11-rotated.pdf': 1,
  'nics-background-checks-2015-11.pdf': 1,
  'password-example.pdf': 'encrypted_document',
  'pdf_structure.pdf': 1,
  'pdffill-demo.pdf': 7,
  'pr-136-example.pdf': 6,
  'pr-138-example.pdf': 2,
  'pr-88-example.pdf': 1,
  'scotus-transcript-p1.pdf': 1,
  'senate-expenditures.pdf': 1,
  'table-curves-example.pdf': 1,
  'test-punkt.pdf': 4,
  'word365_structure.pdf': 1,
};

describe('pdf-realworld: every file ends exactly as pinned', () => {
  const files = listData('pdf-realworld/pdfs');

  it('has the whole corpus, and a pin for every file', () => {
    expect(files.length).toBeGreaterThanOrEqual(53);
    expect([...files].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(files)('%s', async (file) => {
    const expected = EXPECTED[file];
    let outcome: number | string;
    try {
      const doc = await runCanonical(readData(`pdf-realworld/pdfs/${file}`));
      outcome = doc.pages.length;
      for (const page of doc.pages) {
        expect(['text_layer', 'needs_ocr', 'plain_text']).toContain(page.source);
        expect(page.width).toBeGreaterThan(0);
        // A page is never silently empty: no text means it is marked for OCR (or truly blank).
        if (page.blocks.length === 0) expect(page.source === 'needs_ocr' || doc.pages.length > 1).toBe(true);
      }
      expect(typeof doc.markdown).toBe('string');
    } catch (err) {
      if (!(err instanceof PipelineError)) throw err;
      expect(err.message.length).toBeGreaterThan(20);
      outcome = err.code;
    }
    expect(outcome).toBe(expected);
  }, 60_000);
});
