// Grids of labels over values: a row of captions ("INVOICE NO. | DATE | DUE DATE", "To | Company |
// Fax Number"), possibly stacked over two rows ("IND/LOR" over "VOLUME"), with one or more rows
// of values below, each value under the caption it overlaps. Item tables (a header naming a
// description, quantity, price or amount column) are line items, read from the tables, not
// pairs.
import type { KeyValue, Word } from '../canonical/model.js';
import { dropColon, foldKey, hasValueShape, keyness, wordsText } from './form-labels.js';
import { COLUMN_CONCEPTS } from '../extract/vocabulary.js';
import { maxOf, minOf, overlapX, union } from './geometry.js';
import { type Phrase, phrase } from './phrases.js';

interface Column {
  key: Word[];
  x0: number;
  x1: number;
}

/** Largest gap (× line height) between the rows of one grid. */
const ROW_GAP = 2.5;

export function gridKeyValues(rows: readonly Phrase[][]): KeyValue[] {
  const out: KeyValue[] = [];
  for (let r = 0; r < rows.length; r++) {
    const header = rows[r]!;
    if (!isCaptionRow(header)) continue;
    const columns: Column[] = header.map((p) => ({ key: [...p.words], x0: p.bbox[0], x1: p.bbox[2] }));
    const h = header[0]!.h;
    let next = r + 1;
    let bottom = maxOf(header.map((p) => p.bbox[3]));
    // Caption rows stacked under the first continue its captions ("IND/LOR" over "VOLUME", up to
    // three rows): set tight under it in the same capitals, or overlapping it, as OCR splits one
    // band of captions into rows when their baselines wander.
    const stacked: Phrase[] = [];
    for (let more = 0; more < 2 && next < rows.length; more++) {
      const below = rows[next]!;
      const top = minOf(below.map((p) => p.bbox[1]));
      const above = more === 0 ? header : rows[next - 1]!;
      const tight = top - bottom < 0.6 * h && allCaps(above) && allCaps(below);
      const overlapping = top < bottom - 0.25 * h;
      if (!isCaptionRow(below) || !(tight || overlapping)) break;
      for (const p of below) {
        if (!/[\p{L}\p{N}]/u.test(p.text)) continue; // a speck, not a caption
        const col = columnOf(columns, p);
        if (col) {
          for (const w of p.words) col.key.push(w);
          col.x0 = Math.min(col.x0, p.bbox[0]);
          col.x1 = Math.max(col.x1, p.bbox[2]);
        } else columns.push({ key: [...p.words], x0: p.bbox[0], x1: p.bbox[2] });
      }
      columns.sort((a, b) => a.x0 - b.x0);
      bottom = maxOf(below.map((p) => p.bbox[3]));
      stacked.push(...below);
      next++;
    }
    if (isItemHeader(columns)) continue;
    const caps = allCaps(header);
    const found: { col: Column; words: Word[] }[] = [];
    const valueRows: Phrase[][] = [];
    let records = 0;
    let firstRow: Phrase[] = [];
    let lastRow: Phrase[] = [];
    for (; next < rows.length; next++) {
      const printed = rows[next]!;
      if (printed[0]!.bbox[1] - bottom > ROW_GAP * h) break;
      // Another row of captions ends the grid.
      if (printed.some((p) => p.used || p.caption) || (caps && allCaps(printed) && !printed.some((p) => /\d/.test(p.text)))) break;
      if (records === 0) splitUnder(columns, printed);
      const row = printed.flatMap((p) => splitAcross(columns, p));
      const cols = row.map((p) => columnOf(columns, p));
      if (cols.some((c) => !c) || new Set(cols).size < cols.length) break;
      // A row filling fewer columns than the one above, each phrase set close under the value above
      // and starting where it starts, continues those values (a name or address over two lines);
      // otherwise a row is a record of its own when it fills at least half the columns.
      const above = cols.map((c) => [...found].reverse().find((f) => f.col === c));
      const continues =
        records > 0 &&
        row.length < lastRow.length &&
        (row.length === 1 || !row.some((p) => /\d/.test(p.text))) &&
        row.every((p, i) => {
          const a = above[i];
          const box = a && union(a.words.map((w) => w.bbox));
          // A value of a known shape (date, amount, id) is complete.
          // Where it starts, or indented under it (a hanging indent: "Ness, Motley," over "  Loadholt,").
          const indent = box ? p.bbox[0] - box[0] : Infinity;
          return a !== undefined && box !== undefined && !hasValueShape(wordsText(a.words)) && indent > -p.h && indent < 2 * p.h && p.bbox[1] - box[3] < 0.8 * p.h;
        });
      if (!continues && records > 0 && row.length < Math.max(1, Math.floor(firstRow.length / 2))) break;
      row.forEach((p, i) => {
        if (continues) for (const w of p.words) above[i]!.words.push(w);
        else found.push({ col: cols[i]!, words: [...p.words] });
      });
      if (!continues) records++;
      if (records === 1 && !continues) firstRow = row;
      // The record a continuation line belongs to stays the row to compare with.
      if (!continues) lastRow = row;
      valueRows.push(printed);
      bottom = maxOf(row.map((p) => p.bbox[3]));
    }
    if (found.length === 0) continue;
    // Captions the vocabulary knows (or that start or end with a word it knows: "Sender Voice
    // Number"), or values with digits, make it a grid rather than lines of text.
    // Captions nobody knows need a table's evidence: three columns and several records with digits.
    if (!header.some((p) => p.key !== 'plain' || p.caption) && (columns.length < 3 || records < 2 || !found.some((f) => f.words.some((w) => /\d/.test(w.text))))) continue;
    const base = records === 1 ? 0.6 : 0.5;
    for (const { col, words } of found) {
      const text = wordsText(words);
      out.push({
        key: dropColon(wordsText(col.key)),
        value: text,
        key_bbox: union(col.key.map((w) => w.bbox)),
        value_bbox: union(words.map((w) => w.bbox)),
        confidence: base + (hasValueShape(text) ? 0.05 : 0),
      });
    }
    for (const p of [...header, ...stacked, ...valueRows.flat()]) p.used = true;
    r = next - 1;
  }
  return out;
}

/**
 * A value phrase reaching over two or more columns ("Wachtell, Lipton  (212) 403-1000" set
 * close) split at its widest word gaps, one fewer than the columns it spans, when those gaps
 * stand out (half again the phrase's usual word space).
 */
function splitAcross(columns: readonly Column[], p: Phrase): Phrase[] {
  const over = columns.filter((c) => overlapX([c.x0, 0, c.x1, 0], p.bbox) > 0).length;
  if (over < 2 || p.words.length < 2) return [p];
  const gaps = p.words.slice(1).map((w, i) => ({ at: i + 1, size: w.bbox[0] - p.words[i]!.bbox[2] }));
  const usual = [...gaps].sort((a, b) => a.size - b.size)[gaps.length >> 1]!.size;
  const cuts = [...gaps].sort((a, b) => b.size - a.size).slice(0, over - 1).filter((g) => g.size > 1.5 * Math.max(usual, 0.2 * p.h)).map((g) => g.at).sort((a, b) => a - b);
  if (!cuts.length) {
    // No gap stands out: cut where words without digits turn into a value of known shape set
    // under another column ("Brown Rudnick Freed 617-330-9000" over Company and Phone).
    const at = p.words.findIndex((w, i) => i > 0 && !/\d/.test(p.words[i - 1]!.text) && hasValueShape(wordsText(p.words.slice(i))) && columnAt(columns, w) !== columnAt(columns, p.words[0]!));
    return at > 0 ? [phrase(p.words.slice(0, at), p.row, p.h), phrase(p.words.slice(at), p.row, p.h)] : [p];
  }
  return [0, ...cuts].map((from, i) => phrase(p.words.slice(from, cuts[i] ?? p.words.length), p.row, p.h));
}

/** The column whose extent holds a word's centre. */
const columnAt = (columns: readonly Column[], w: Word) => columns.find((c) => (w.bbox[0] + w.bbox[2]) / 2 >= c.x0 && (w.bbox[0] + w.bbox[2]) / 2 <= c.x1) ?? null;

/**
 * A caption over two values of the first row ("Numéro de ligne  Id.client" set close over
 * "FO10479674   10577874") holds two captions: its words go to the value they stand over.
 */
function splitUnder(columns: Column[], row: readonly Phrase[]): void {
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c]!;
    const under = row.filter((p) => columnOf(columns, p) === col);
    if (under.length < 2 || col.key.length < under.length) continue;
    // Each word to the value whose extent is nearest to its centre.
    const groups = under.map(() => [] as Word[]);
    for (const w of col.key) {
      const centre = (w.bbox[0] + w.bbox[2]) / 2;
      const dist = under.map((p) => (centre < p.bbox[0] ? p.bbox[0] - centre : centre > p.bbox[2] ? centre - p.bbox[2] : 0));
      groups[dist.indexOf(minOf(dist))]!.push(w);
    }
    if (groups.some((g) => g.length === 0)) continue;
    const parts = groups.map((g) => ({ key: g, x0: minOf(g.map((w) => w.bbox[0])), x1: maxOf(g.map((w) => w.bbox[2])) }));
    // Contiguous groups only: words of one caption are not interleaved with another's.
    if (parts.some((p, i) => i > 0 && p.x0 < parts[i - 1]!.x1)) continue;
    columns.splice(c, 1, ...parts);
    c += parts.length - 1;
  }
}

/**
 * A caption row with another caption row overlapping it from below: one band of captions that OCR
 * split into rows (its captions head columns; none is the value of the one before it).
 */
export function startsCaptionBand(rows: readonly Phrase[][], r: number): boolean {
  const row = rows[r];
  const below = rows[r + 1];
  if (!row || !below || !isCaptionRow(row) || !isCaptionRow(below)) return false;
  return minOf(below.map((p) => p.bbox[1])) < maxOf(row.map((p) => p.bbox[3])) - 0.25 * row[0]!.h;
}

/**
 * A caption row over a row of values (no caption among them, a number among them), each set under
 * one of its captions ("ITEMS | QUANTITY REQUIRED" over "BASEBALL CAP | 1500"): the captions head
 * columns; none is the value of the one before it.
 */
export function headsValueRow(rows: readonly Phrase[][], r: number): boolean {
  const row = rows[r];
  const below = rows[r + 1];
  if (!row || !below || !isCaptionRow(row) || below.length < 2) return false;
  const h = row[0]!.h;
  if (minOf(below.map((p) => p.bbox[1])) - maxOf(row.map((p) => p.bbox[3])) > ROW_GAP * h) return false;
  // A "Key:" before a phrase without a colon is a key with its value, not a caption among captions.
  if (row.some((p, i) => p.key === 'colon' && row[i + 1] && row[i + 1]!.key !== 'colon')) return false;
  if (below.some((p) => p.caption || p.used || /:$/.test(p.text)) || !below.some((p) => /\d/.test(p.text))) return false;
  const columns: Column[] = row.map((p) => ({ key: p.words, x0: p.bbox[0], x1: p.bbox[2] }));
  const cols = below.map((p) => columnOf(columns, p));
  return cols.every((c) => c) && new Set(cols).size === cols.length;
}

/** Two or more unused captions and nothing else on the row (specks OCR reads as punctuation aside). */
const isCaptionRow = (row: readonly Phrase[]) => {
  // One pass: the first real phrase that is no unused caption answers no.
  let real = 0;
  for (const p of row) {
    if (!/[\p{L}\p{N}]/u.test(p.text)) continue;
    real++;
    if (p.used) return false;
    const key = captionKey(p);
    if (key === null || (key !== 'colon' && /\d/.test(p.text))) return false;
  }
  return real >= 2;
};

/** An empty box before a phrase: an option to tick ("☐ Retention"), never a caption of a grid. */
const OPTION_BOX = /^[☐□❑❒○◯]/u;

/** A phrase's keyness without the punctuation-only words OCR reads from specks and rules (". Name"). */
const captionKey = (p: Phrase) => OPTION_BOX.test(p.text) ? null : p.key ?? (p.words.some((w) => !/[\p{L}\p{N}]/u.test(w.text)) ? keyness(p.words.filter((w) => /[\p{L}\p{N}]/u.test(w.text))) : null);

/** In capitals: nearly every letter upper case (OCR reads the odd capital as lower case, "INDILOr"). */
const allCaps = (row: readonly Phrase[]) => {
  const letters = row.map((p) => p.text).join('').replace(/[^\p{L}]/gu, '');
  return letters.length > 0 && letters.replace(/[^\p{Lu}]/gu, '').length >= 0.85 * letters.length;
};

/** The column a phrase sits under: the most overlapped one, else the one whose extent (widened by a line height) holds its centre. */
function columnOf(columns: Column[], p: Phrase): Column | null {
  let best: Column | null = null;
  let most = 0;
  for (const c of columns) {
    const o = overlapX([c.x0, 0, c.x1, 0], p.bbox);
    if (o > most) [best, most] = [c, o];
  }
  if (best) return best;
  const centre = (p.bbox[0] + p.bbox[2]) / 2;
  return columns.find((c) => centre >= c.x0 - p.h && centre <= c.x1 + p.h) ?? null;
}

const ITEM_COLUMNS = new Map(COLUMN_CONCEPTS.filter((c) => ['description', 'quantity', 'unit_price', 'line_total'].includes(c.id)).flatMap((c) => c.labels.map((l) => [l, c.id] as const)));

/** Captions naming two of description, quantity, price and amount: a line-item table. */
function isItemHeader(columns: readonly Column[]): boolean {
  const named = new Set(columns.map((c) => ITEM_COLUMNS.get(foldKey(dropColon(wordsText(c.key))))).filter(Boolean));
  return named.size >= 2;
}
