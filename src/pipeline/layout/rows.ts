// Words → rows (words sharing a baseline band, across the whole page width) → segments (runs of
// a row separated by wide gaps). Rows feed table detection; segments are the units that reading
// order moves around, so that two columns sharing a baseline are never glued into one line.
import type { BBox, Word } from '../canonical/model.js';
import { centerY, height, median, overlapY, union } from './geometry.js';

export interface Row {
  words: Word[];
  bbox: BBox;
}

export interface Segment {
  words: Word[];
  bbox: BBox;
  /** Index of the row it was cut from. */
  row: number;
}

/**
 * Same text row: vertical centres closer than 0.4 of the taller height. Centres of loose glyph
 * boxes are stable per font, whereas their extents overlap between lines set with tight leading
 * (a 14 pt box on an 8 pt pitch), so overlap alone would glue lines together; 0.4 still keeps a
 * superscript (centre ~0.3 em higher) on its line.
 */
export const sameRow = (a: BBox, b: BBox) =>
  Math.abs(centerY(a) - centerY(b)) <= 0.4 * Math.max(height(a), height(b)) && overlapY(a, b) > 0;

/** Rows from top to bottom, each with its words left to right. */
export function groupRows(words: readonly Word[]): Row[] {
  const rows: (Row & { core: BBox })[] = [];
  const isSideways = sidewaysTest(words);
  const sideways: Word[] = [];
  for (const w of byCentreY(words)) {
    if (isSideways(w)) {
      sideways.push(w);
      continue;
    }
    // The row's "core" is its first word's box: comparing with the growing union would let a
    // row creep downwards word by word.
    let target: (typeof rows)[number] | undefined;
    for (let i = rows.length - 1; i >= 0 && i >= rows.length - 4; i--) {
      if (sameRow(rows[i].core, w.bbox)) {
        target = rows[i];
        break;
      }
    }
    if (target) {
      target.words.push(w);
      target.bbox = union([target.bbox, w.bbox]);
    } else rows.push({ words: [w], bbox: [...w.bbox], core: w.bbox });
  }
  for (const w of sideways) rows.push({ words: [w], bbox: [...w.bbox], core: w.bbox });
  for (const r of rows) if (!leftToRight(r.words)) r.words.sort((a, b) => a.bbox[0] - b.bbox[0]);
  // Top to bottom by where most of a row's words stand: one tall word in it (a number printed
  // sideways in the margin) would put the row above the lines it sits between.
  const at = new Map(rows.map((r) => [r, median(r.words.map((w) => centerY(w.bbox)))]));
  return rows.sort((a, b) => at.get(a)! - at.get(b)! || a.bbox[1] - b.bbox[1]).map(({ words: ws, bbox }) => ({ words: ws, bbox }));
}

/**
 * A word read down the page (a Bates number printed sideways in the margin): far taller than the
 * page's words and taller than it is wide. It stands in a row of its own; joined to a text row it
 * would stretch the row over the lines around it.
 */
function sidewaysTest(words: readonly Word[]): (w: Word) => boolean {
  const h = median(words.map((w) => height(w.bbox)));
  return (w) => height(w.bbox) > 3 * h && readsDown(w);
}

/** A word of three characters or more taller than twice its width: text set down the page. */
const readsDown = (w: Word) => w.text.length >= 3 && height(w.bbox) > 2 * (w.bbox[2] - w.bbox[0]);

/**
 * A row that is one word set down the page (groupRows gives such a word a row of its own). It
 * belongs to no table and is neither a key nor a value; reading order still places it.
 */
export const isSidewaysRow = (r: Row) => r.words.length === 1 && readsDown(r.words[0]!);

/**
 * Words by vertical centre, then left edge; ties keep their input order (a stable sort). The
 * keys are computed once instead of in every comparison.
 */
function byCentreY(words: readonly Word[]): Word[] {
  const n = words.length;
  const cy = new Float64Array(n);
  const x0 = new Float64Array(n);
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const b = words[i].bbox;
    cy[i] = centerY(b);
    x0[i] = b[0];
    order[i] = i;
  }
  order.sort((a, b) => cy[a] - cy[b] || x0[a] - x0[b]);
  return order.map((i) => words[i]);
}

/** Already ordered by left edge (then sorting would leave it as it is). */
function leftToRight(words: readonly Word[]): boolean {
  for (let i = 1; i < words.length; i++) if (words[i].bbox[0] < words[i - 1].bbox[0]) return false;
  return true;
}

/** Words with a letter or digit: dot leaders (". . . .") would otherwise set every metric. */
const hasText = (w: Word) => {
  // ASCII letters and digits answer without the Unicode regex; other text still asks it.
  const t = w.text;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return true;
    if (c > 0x7f) return /[\p{L}\p{N}]/u.test(t);
  }
  return false;
};

/** Typical line height of a set of rows (median word height), the unit for gaps and gutters. */
export function typicalHeight(words: readonly Word[]): number {
  return median(words.filter(hasText).map((w) => height(w.bbox))) || median(words.map((w) => height(w.bbox))) || 10;
}

/**
 * Typical word space: the median gap between neighbouring words of a row that is narrower than
 * a line height. Gutters are measured in spaces, because loose glyph boxes make the line height
 * vary from 1.1 to 1.6 em between fonts while a word space stays near 0.25-0.33 em.
 */
export function typicalSpace(rows: readonly Row[], lineHeight: number): number {
  const gaps: number[] = [];
  for (const r of rows)
    for (let i = 1; i < r.words.length; i++) {
      const g = r.words[i].bbox[0] - r.words[i - 1].bbox[2];
      if (g > 0 && g < lineHeight && hasText(r.words[i]) && hasText(r.words[i - 1])) gaps.push(g);
    }
  return gaps.length >= 5 ? median(gaps) : lineHeight * 0.25;
}

/** Splits every row where the gap between words exceeds `gapRatio` × the row's height. */
export function splitSegments(rows: readonly Row[], gapRatio: number): Segment[] {
  const out: Segment[] = [];
  rows.forEach((row, index) => {
    const h = median(row.words.map((w) => height(w.bbox)));
    let cur: Word[] = [];
    for (const w of row.words) {
      const prev = cur[cur.length - 1];
      if (prev && w.bbox[0] - prev.bbox[2] > gapRatio * h) {
        out.push({ words: cur, bbox: union(cur.map((x) => x.bbox)), row: index });
        cur = [];
      }
      cur.push(w);
    }
    if (cur.length > 0) out.push({ words: cur, bbox: union(cur.map((x) => x.bbox)), row: index });
  });
  return out;
}
