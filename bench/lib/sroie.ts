// SROIE receipts (../shared/data/sroie) as text documents, for the eval and the tests alike: the
// ground-truth OCR lines of box/<id>.csv (eight corner coordinates in photo pixels, then the
// text) laid out on a page as wide as their text reaches, and the schema of key/<id>.json.
import type { BBox } from '../../src/pipeline/canonical/model.js';
import { type LineInput, documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import type { DocInput } from '../../src/pipeline/entities/text.js';
import { readingOrderText } from '../../src/pipeline/ocr/metrics.js';

/** The box lines (text and bounding box in photo pixels) of box/<id>.csv, in file order. */
function boxLines(boxCsv: string): (LineInput & { bbox: BBox })[] {
  const lines: (LineInput & { bbox: BBox })[] = [];
  for (const row of boxCsv.split(/\r?\n/)) {
    const parts = row.split(',');
    if (parts.length < 9) continue;
    const n = parts.slice(0, 8).map(Number);
    const text = parts.slice(8).join(',').trim();
    if (!text || n.some((v) => !Number.isFinite(v))) continue;
    const xs = [n[0]!, n[2]!, n[4]!, n[6]!];
    const ys = [n[1]!, n[3]!, n[5]!, n[7]!];
    lines.push({ text, bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as BBox });
  }
  return lines;
}

export function sroieDocument(boxCsv: string): DocInput {
  const lines = boxLines(boxCsv);
  lines.sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  let width = 1000;
  let height = 1000;
  for (const l of lines) [width, height] = [Math.max(width, l.bbox[2]), Math.max(height, l.bbox[3])];
  return documentFromLines(lines, { width, height });
}

/**
 * The receipt's transcript as a plain-text file: its box lines in reading order, one printed line
 * a line (what a job reads from a receipt's text).
 */
export const sroieText = (boxCsv: string): string => readingOrderText(boxLines(boxCsv));

export const SROIE_SCHEMA = {
  type: 'object',
  properties: {
    company: { type: 'string' },
    date: { type: 'string', format: 'date' },
    address: { type: 'string' },
    total: { type: 'number' },
  },
};
