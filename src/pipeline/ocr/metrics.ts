// Accuracy measures for OCR output against ground truth (tests and `npm run bench -- ocr`).
import type { BBox } from './types.js';

/** Collapses every run of whitespace to one space and trims. */
export function normaliseText(s: string): string {
  return s.normalize('NFKC').replace(/\s+/g, ' ').trim();
}

/** Levenshtein distance over code points, in O(min(a,b)) memory. */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length < y.length) return editDistance(b, a);
  if (y.length === 0) return x.length;
  let prev = new Uint32Array(y.length + 1);
  let cur = new Uint32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      const sub = prev[j - 1] + (xi === y[j - 1] ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length];
}

/** Character error rate: edits to turn the hypothesis into the truth, per truth character. */
export function cer(hypothesis: string, truth: string): number {
  const t = normaliseText(truth);
  const h = normaliseText(hypothesis);
  if (t.length === 0) return h.length === 0 ? 0 : 1;
  return editDistance(h, t) / [...t].length;
}

/** Share of truth words (multiset, exact, case-sensitive) that the hypothesis contains. */
export function wordRecall(hypothesis: string, truth: string): number {
  const bag = new Map<string, number>();
  for (const w of normaliseText(hypothesis).split(' ')) if (w) bag.set(w, (bag.get(w) ?? 0) + 1);
  const words = normaliseText(truth).split(' ').filter(Boolean);
  if (words.length === 0) return 1;
  let hit = 0;
  for (const w of words) {
    const n = bag.get(w) ?? 0;
    if (n > 0) {
      hit++;
      bag.set(w, n - 1);
    }
  }
  return hit / words.length;
}

/**
 * Text in reading order from boxed lines: lines whose vertical centres are within half a line
 * height of each other form one row, rows go top to bottom, lines in a row left to right. Used on
 * both the OCR output and boxed ground truth, so the engines' different line splitting (paddle
 * cuts a receipt row at wide gaps, tesseract keeps it) does not count as errors.
 */
export function readingOrderText(lines: readonly { text: string; bbox: BBox }[]): string {
  const sorted = [...lines].sort((a, b) => (a.bbox[1] + a.bbox[3]) / 2 - (b.bbox[1] + b.bbox[3]) / 2);
  const rows: { cy: number; h: number; items: { text: string; bbox: BBox }[] }[] = [];
  for (const l of sorted) {
    const cy = (l.bbox[1] + l.bbox[3]) / 2;
    const h = Math.max(1, l.bbox[3] - l.bbox[1]);
    const row = rows[rows.length - 1];
    if (row && Math.abs(cy - row.cy) < 0.5 * Math.min(h, row.h)) row.items.push(l);
    else rows.push({ cy, h, items: [l] });
  }
  return rows.map((r) => r.items.sort((a, b) => a.bbox[0] - b.bbox[0]).map((i) => i.text).join(' ')).join('\n');
}
