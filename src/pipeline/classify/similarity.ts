// How alike two fingerprints are, from 0 to 1, with what they share (the evidence a user sees).
import { type Fingerprint, SHAPE_COUNTS, SHAPE_SHARES, type Shape } from './fingerprint.js';

export interface Likeness {
  score: number;
  labels: string[];
  keywords: string[];
  identifiers: string[];
  layout: number;
  shape: number;
}

/** Sørensen–Dice over two sets, and what they share. */
export function dice(a: readonly string[], b: readonly string[]): { score: number; shared: string[] } {
  if (!a.length || !b.length) return { score: 0, shared: [] };
  const set = new Set(b);
  const shared = a.filter((x) => set.has(x));
  return { score: (2 * shared.length) / (a.length + b.length), shared };
}

const EPS = 0.3;
// Counts where none against a few is a small difference (a page has many words, a table many cells).
const LARGE_COUNTS = new Set<keyof Shape>(['words_per_page', 'table_cells_per_page', 'amounts_per_page', 'dates_per_page', 'numeric_columns_per_table']);

/** Closeness of the counts (each as a ratio, so 10 vs 20 words weighs like 100 vs 200) and of the shares. */
export function shapeLikeness(a: Shape, b: Shape, formatA: string | null, formatB: string | null): number {
  let sum = 0;
  let compared = 0;
  for (const key of SHAPE_COUNTS) {
    // A fingerprint stored before a measure existed lacks it: compare what both have.
    if (a[key] === undefined || b[key] === undefined) continue;
    // Small counts (tables, headings per page) keep a small offset: none against some is a real difference.
    const offset = LARGE_COUNTS.has(key) ? 1 : EPS;
    const x = Number(a[key]) + offset;
    const y = Number(b[key]) + offset;
    sum += Math.min(x, y) / Math.max(x, y);
    compared++;
  }
  for (const key of SHAPE_SHARES) {
    if (a[key] === undefined || b[key] === undefined) continue;
    sum += 1 - Math.abs(Number(a[key]) - Number(b[key]));
    compared++;
  }
  let score = compared ? sum / compared : 0;
  if (formatA && formatB && formatA !== formatB) score *= 0.3;
  if (a.source !== b.source) score *= 0.8;
  return score;
}

// Weights of the four views; a shared identifier (tax id, IBAN, own domain) outweighs them all.
// Pair by pair, shape alone must not make two documents alike: any two invoices have similar
// proportions, and a template of one sender should not take another sender's invoice. What a
// kind's documents share in proportions is judged across all of a template's exemplars
// (typicality.ts). Measured on ../shared/data by `npm run eval`, see docs/classification.md.
const W = { labels: 0.25, keywords: 0.25, layout: 0.15, shape: 0.35 };
const SHARED_IDENTIFIER_FLOOR = 0.8;

export function likeness(a: Fingerprint, b: Fingerprint): Likeness {
  const labels = dice(a.labels, b.labels);
  const keywords = dice(a.keywords, b.keywords);
  const layout = dice(a.layout, b.layout);
  const identifiers = dice(a.identifiers, b.identifiers).shared;
  const shape = shapeLikeness(a.shape, b.shape, a.format, b.format);
  const base = W.labels * labels.score + W.keywords * keywords.score + W.layout * layout.score + W.shape * shape;
  const score = identifiers.length ? SHARED_IDENTIFIER_FLOOR + (1 - SHARED_IDENTIFIER_FLOOR) * base : base;
  return { score, labels: labels.shared, keywords: keywords.shared, identifiers, layout: layout.score, shape };
}
