// Key-value pairs of a scanned form (FUNSD), laid out from its annotated words as OCR words:
// a label ending in ":" takes the value across a gap on its row or right below it, and a value
// is never a key of its own.
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/pipeline/canonical/assemble.js';
import type { BBox } from '../../src/pipeline/canonical/model.js';
import { readDataJson } from './data.js';

interface Entity {
  words: { text: string; box: BBox }[];
}

function keyValuesOf(form: string) {
  const entities = readDataJson<{ form: Entity[] }>(`funsd/annotations/${form}.json`).form;
  const words = entities.flatMap((e) => e.words).filter((w) => w.text.trim()).map((w) => ({ text: w.text, bbox: [...w.box] as BBox, confidence: 1 }));
  const doc = assemble('png', 1, [{ page_number: 1, width: 1000, height: 1000, rotation: 0, source: 'ocr_tesseract', words }]);
  return doc.pages[0]!.key_values.map((kv) => [kv.key, kv.value]);
}

describe('key-value pairs on a form', () => {
  it('pairs "TO:" and "FROM:" with the names across the gap, and the name is no key', () => {
    const pairs = keyValuesOf('82200067_0069');
    expect(pairs).toContainEqual(['TO', 'K. A. Sparrow']);
    expect(pairs).toContainEqual(['FROM', 'T. D. Blachly']);
    expect(pairs.map(([k]) => k)).not.toContain('T. D. Blachly');
  });

  it('reads "Key: value" inside the cells of a table', () => {
    const pairs = keyValuesOf('82200067_0069');
    expect(pairs.filter(([k]) => k === 'DIVISION').map(([, v]) => v)).toEqual(expect.arrayContaining(['Portland', 'Boise', 'Eugene', 'Seattle South']));
  });

  it('takes the value right below a label that ends in ":"', () => {
    const pairs = keyValuesOf('82200067_0069');
    expect(pairs).toContainEqual(['REGION', '(ONLY IF PARTIAL REGION CONTINUE WITH DIVISION (S) SCOPE)']);
  });
});
