// SROIE receipts (../shared/data/sroie) as text documents: the ground-truth OCR lines of box/<id>.csv
// with their boxes (pixels of the receipt photo), and the expected key fields of key/<id>.json.
import type { BBox } from '../../src/pipeline/canonical/model.js';
import { type LineInput, documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import type { DocInput } from '../../src/pipeline/entities/text.js';
import { readDataJson, readDataText } from './data.js';

export function receiptDocument(id: string): DocInput {
  const lines: LineInput[] = [];
  for (const row of readDataText(`sroie/box/${id}.csv`).split(/\r?\n/)) {
    const parts = row.split(',');
    if (parts.length < 9) continue;
    const n = parts.slice(0, 8).map(Number);
    const text = parts.slice(8).join(',').trim();
    if (!text || n.some((v) => !Number.isFinite(v))) continue;
    const xs = [n[0]!, n[2]!, n[4]!, n[6]!];
    const ys = [n[1]!, n[3]!, n[5]!, n[7]!];
    lines.push({ text, bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as BBox });
  }
  lines.sort((a, b) => a.bbox![1] - b.bbox![1] || a.bbox![0] - b.bbox![0]);
  const width = Math.max(1000, ...lines.map((l) => l.bbox![2]));
  const height = Math.max(1000, ...lines.map((l) => l.bbox![3]));
  return documentFromLines(lines, { width, height });
}

export const receiptKey = (id: string) => readDataJson<{ company: string; date: string; address: string; total: string }>(`sroie/key/${id}.json`);

export const RECEIPT_SCHEMA = {
  type: 'object',
  properties: {
    company: { type: 'string' },
    date: { type: 'string', format: 'date' },
    address: { type: 'string' },
    total: { type: 'number' },
  },
};
