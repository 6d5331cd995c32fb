// How typical a document is of a template's exemplars, feature by feature. Documents of one kind
// from different senders rarely look alike pair by pair (other words, other layouts), but they
// share proportions: a table report is mostly table and numbers, a slide is wide and short of
// words. Each measure of the document is compared with the spread of the exemplars' values
// (median and median absolute deviation, counts on a log scale), so a measure that is steady
// across the exemplars weighs and one that varies does not.
import { type Fingerprint, SHAPE_COUNTS, SHAPE_SHARES, type Shape } from './fingerprint.js';

/** Fewer exemplars than this give no spread worth the name. */
export const MIN_EXEMPLARS_FOR_TYPICALITY = 3;

// The least spread assumed: a handful of exemplars that agree exactly still leave room around them.
const MIN_SPREAD_LOG = 0.35;
const MIN_SPREAD_SHARE = 0.15;
// No single measure weighs more than this against the whole (a slide that carries a table).
const FLOOR = 0.05;

const median = (sorted: number[]) => {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// Median and median absolute deviation: one odd exemplar does not widen what counts as typical.
function closeness(x: number, values: number[], minSpread: number): number {
  const centre = median([...values].sort((a, b) => a - b));
  const spread = 1.4826 * median(values.map((v) => Math.abs(v - centre)).sort((a, b) => a - b));
  const z = Math.abs(x - centre) / Math.max(minSpread, spread);
  return Math.exp(-(z * z) / 2);
}

/** 0 to 1; null when there are too few exemplars to tell. */
export function typicality(doc: Fingerprint, exemplars: Fingerprint[]): number | null {
  if (exemplars.length < MIN_EXEMPLARS_FOR_TYPICALITY) return null;
  const scores: number[] = [];
  const measure = (key: keyof Shape, transform: (v: number) => number, minSpread: number) => {
    const own = doc.shape[key];
    if (own === undefined) return;
    const values = exemplars.map((e) => e.shape[key]).filter((v): v is number => typeof v === 'number').map(transform);
    if (values.length < MIN_EXEMPLARS_FOR_TYPICALITY) return;
    scores.push(closeness(transform(Number(own)), values, minSpread));
  };
  for (const key of SHAPE_COUNTS) measure(key, (v) => Math.log1p(v), MIN_SPREAD_LOG);
  for (const key of SHAPE_SHARES) measure(key, (v) => v, MIN_SPREAD_SHARE);
  if (!scores.length) return null;
  // A geometric mean: one measure far outside the exemplars' spread counts against the whole.
  const typical = Math.exp(scores.reduce((s, x) => s + Math.log(Math.max(FLOOR, x)), 0) / scores.length);
  // Format and source as in pairwise likeness, by the share of exemplars that agree.
  const sameFormat = exemplars.filter((e) => !doc.format || !e.format || e.format === doc.format).length / exemplars.length;
  const sameSource = exemplars.filter((e) => e.shape.source === doc.shape.source).length / exemplars.length;
  return typical * (0.3 + 0.7 * sameFormat) * (0.8 + 0.2 * sameSource);
}
