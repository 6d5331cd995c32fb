// How alike two fingerprints are, from 0 to 1, with what they share (the evidence a user sees).
import type { Fingerprint, Shape } from './fingerprint.js';

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
const NUMERIC: (keyof Shape)[] = ['pages', 'words_per_page', 'key_values_per_page', 'tables_per_page', 'table_cells_per_page', 'headings_per_page', 'list_items_per_page', 'aspect'];

/** Closeness of the counts (each as a ratio, so 10 vs 20 words weighs like 100 vs 200). */
export function shapeLikeness(a: Shape, b: Shape, formatA: string | null, formatB: string | null): number {
  let sum = 0;
  for (const key of NUMERIC) {
    // Small counts (tables, headings per page) keep a small offset: none against some is a real difference.
    const offset = key === 'words_per_page' || key === 'table_cells_per_page' ? 1 : EPS;
    const x = Number(a[key]) + offset;
    const y = Number(b[key]) + offset;
    sum += Math.min(x, y) / Math.max(x, y);
  }
  let score = sum / NUMERIC.length;
  if (formatA && formatB && formatA !== formatB) score *= 0.3;
  if (a.source !== b.source) score *= 0.8;
  return score;
}

// Weights of the four views; a shared identifier (tax id, IBAN, own domain) outweighs them all.
// Shape carries half: across senders of one kind the words differ, the proportions of the page do
// not (measured on ../shared/data by `npm run eval`, see docs/classification.md).
const W = { labels: 0.2, keywords: 0.2, layout: 0.1, shape: 0.5 };
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
