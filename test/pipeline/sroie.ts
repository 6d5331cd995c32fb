// SROIE receipts (../shared/data/sroie) by id: the ground-truth text document (bench/lib/sroie.ts,
// shared with the eval) and the expected key fields of key/<id>.json.
import { SROIE_SCHEMA, sroieDocument } from '../../bench/lib/sroie.js';
import type { DocInput } from '../../src/pipeline/entities/text.js';
import type { BBox } from '../../src/pipeline/canonical/model.js';
import { readingOrderText } from '../../src/pipeline/ocr/metrics.js';
import { readDataJson, readDataText } from './data.js';

export const receiptDocument = (id: string): DocInput => sroieDocument(readDataText(`sroie/box/${id}.csv`));

export const receiptKey = (id: string) => readDataJson<{ company: string; date: string; address: string; total: string }>(`sroie/key/${id}.json`);

export const RECEIPT_SCHEMA = SROIE_SCHEMA;

/**
 * The receipt's transcript as a plain-text file (its box lines in reading order, one printed line
 * a line): what a job reads from the receipt's text, for tests that upload it through the API.
 */
export function receiptText(id: string): { name: string; bytes: Buffer } {
  const lines = readDataText(`sroie/box/${id}.csv`)
    .split(/\r?\n/)
    .map((row) => row.split(','))
    .filter((parts) => parts.length >= 9 && parts.slice(8).join(',').trim())
    .map((parts) => {
      const n = parts.slice(0, 8).map(Number);
      const xs = [n[0]!, n[2]!, n[4]!, n[6]!];
      const ys = [n[1]!, n[3]!, n[5]!, n[7]!];
      return { text: parts.slice(8).join(',').trim(), bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as BBox };
    });
  return { name: `sroie-${id}.txt`, bytes: Buffer.from(readingOrderText(lines)) };
}
