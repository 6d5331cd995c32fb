// Key-value pairs, the raw material for extraction, found from the page's layout. Each key is
// paired with its value where forms put it, most certain first:
//  1. after a colon in the same phrase ("Invoice No: 123"; several pairs in one phrase split at
//     each further key);
//  2. right of it across a gap on its row ("Name:      K. A. Sparrow", "Total     1,939.00"), a key
//     printed over two lines ("LORILLARD" over "ENTITIES:") read whole, and the value going on
//     below while the key's column beside it stays empty (a firm and its address);
//  3. under it in a grid: a row of labels (possibly stacked over two rows) over rows of values,
//     each value under the label it overlaps ("INVOICE NO. | DATE | DUE DATE" over their values);
//  4. right below a label that has nothing after it, with the lines continuing that value.
// A phrase is used once: a value is never the key of another pair. Confidence says how sure the
// pattern is; a known label and a value of the expected shape (date, amount, id) raise it.
import type { BBox, KeyValue, Line, Table, Word } from '../canonical/model.js';
import { dropColon, hasValueShape, isKnownLabel, isLabel, wordsText } from './form-labels.js';
import { overlapX, overlapY, union } from './geometry.js';
import { gridKeyValues, headsValueRow, startsCaptionBand } from './key-grid.js';
import { type Phrase, phraseRows } from './phrases.js';
import { type Row, groupRows, isSidewaysRow } from './rows.js';

import { tableCellKeyValues, tableKeyValues } from './table-key-values.js';

/** Pairs among words laid out in lines (slides, text blocks): the same pairing on their words. */
export function findKeyValues(lines: readonly Line[]): KeyValue[] {
  return pageKeyValues(lines.flatMap((l) => l.words));
}

/**
 * A page's pairs from its words, then those its tables state through their cells (where the
 * words gave none). `rows` is groupRows(words), when the caller has it already.
 */
export function pageKeyValues(words: readonly Word[], tables: readonly Table[] = [], rows?: readonly Row[]): KeyValue[] {
  const found = wordKeyValues(rows ?? groupRows(words));
  const fromCells = [...tableKeyValues(tables), ...tableCellKeyValues(tables)].filter((t) => !found.some((kv) => sameValue(kv, t)));
  return [...found, ...fromCells].sort((a, b) => a.key_bbox[1] - b.key_bbox[1] || a.key_bbox[0] - b.key_bbox[0]);
}

/** The cell's value overlaps a found pair's value box by most of its area, or both read the same. */
function sameValue(a: KeyValue, b: KeyValue): boolean {
  if (a.value === b.value) return true;
  const area = (x: BBox) => Math.max(1e-6, (x[2] - x[0]) * (x[3] - x[1]));
  return (overlapX(a.value_bbox, b.value_bbox) * overlapY(a.value_bbox, b.value_bbox)) / Math.min(area(a.value_bbox), area(b.value_bbox)) > 0.5;
}

function wordKeyValues(textRows: readonly Row[]): KeyValue[] {
  const rows = phraseRows(textRows.filter((r) => !isSidewaysRow(r)));
  const out: KeyValue[] = [];
  for (const row of rows) for (const pair of checkedBoxes(row)) out.push(pair);
  const inline = rows.flatMap((row) => row.map((p) => ({ phrase: p, pairs: inlinePairs(p) })));
  for (const { pairs } of inline) for (const pair of pairs) out.push(pair);
  // A row of captions over a row of values (stacked keys) pairs by column in the grid pass: neither
  // row pairs across its own gaps.
  const right = rows.flatMap((row, r) => (startsCaptionBand(rows, r) || headsValueRow(rows, r) || headsValueRow(rows, r - 1) ? [] : rightPairs(row, inList(rows, r))));
  for (const { pair, key, value } of right) {
    keyLinesAbove(rows, pair, key, value);
    out.push(pair);
  }
  for (const pair of gridKeyValues(rows)) out.push(pair);
  for (const row of rows) for (const p of row) {
    const kv = belowPair(rows, p);
    if (kv) out.push(kv);
  }
  // A "Key: value" that ends its phrase may go on over the next lines (an address, a sentence);
  // what no other pair took there continues it.
  for (const { phrase, pairs } of inline) {
    const last = pairs[pairs.length - 1];
    if (!last || last.value_bbox[2] < phrase.bbox[2] - 1) continue;
    carryOn(rows, last, phrase, last.value_bbox[0], 3);
  }
  // A value right of its key goes on below at its own left edge: wrapped as a paragraph, or as
  // the lines of a name and address while the key's column beside them stays empty.
  for (const { pair, key, value } of right) carryOn(rows, pair, value, value.bbox[0], 0, key.bbox[0]);
  return out.filter((kv) => /[\p{L}\p{N}]/u.test(kv.value) && isKeyText(kv.key));
}

/**
 * The pair's value, whose line is `from`, carried on over the rest of that line (`lineParts`) and
 * the lines below that continue it at `left` (`continuedLines`, at most `max` unless wrapped).
 */
function carryOn(rows: readonly Phrase[][], kv: KeyValue, from: Phrase, left: number, max: number, keyLeft?: number): void {
  const parts = lineParts(rows, from);
  const more = [...parts.slice(1), ...continuedLines(rows, asOneLine(parts), left, max, keyLeft)];
  if (!more.length) return;
  kv.value = [kv.value, ...more.map((m) => m.text)].join(' ');
  kv.value_bbox = union([kv.value_bbox, ...more.map((m) => m.bbox)]);
}

/**
 * A key says what it names: a label of the vocabulary, or a word of three letters or more. OCR
 * reads specks and stamps as "f-1", "xC", "R"; a value is never punctuation alone (a ditto mark,
 * a speck read as "©").
 */
const isKeyText = (key: string) => /\p{L}/u.test(key) && (isKnownLabel(key) || /\p{L}{3}/u.test(key));

// ---------------------------------------------------------------- 0. check boxes

/** An "X" (or a tick) that OCR read in a ticked box. */
const CHECK_MARK = /^[xX✓✔☑☒]$/;

/**
 * A ticked box: the mark right after its caption ("PARTIAL  X", "DEC 21 X") pairs the caption with
 * the mark, as a form's annotation does. The caption is the words before the mark in its phrase,
 * or the phrase before it on the row when the mark stands alone (within a few line heights).
 */
function checkedBoxes(row: Phrase[]): KeyValue[] {
  const out: KeyValue[] = [];
  row.forEach((p, i) => {
    const mark = p.words[p.words.length - 1]!;
    if (p.used || !CHECK_MARK.test(mark.text)) return;
    const prev = row[i - 1];
    const key = p.words.length > 1 ? p.words.slice(0, -1) : prev && !prev.used && mark.bbox[0] - prev.bbox[2] < 5 * p.h ? prev.words : null;
    if (!key || key.length > 4 || !/\p{L}/u.test(wordsText(key)) || /:$/.test(wordsText(key)) || CHECK_MARK.test(key[key.length - 1]!.text)) return;
    out.push(pair(key, [mark], 0.6));
    p.used = true;
    if (p.words.length === 1) prev!.used = true;
  });
  return out;
}

/**
 * The rest of a line on a skewed scan: a phrase on the row above or below that starts right where
 * this one ends and overlaps it in height ("ARRIVAL DATE AND TIME: 2/18/80 7:00" then "P.M." a
 * few points lower), when it is no caption or key of its own.
 */
function driftedOn(rows: readonly Phrase[][], from: Phrase): Phrase | null {
  for (const r of [from.row - 1, from.row + 1]) {
    for (const p of rows[r] ?? []) {
      const gap = p.bbox[0] - from.bbox[2];
      const shared = Math.min(p.bbox[3], from.bbox[3]) - Math.max(p.bbox[1], from.bbox[1]);
      if (p.used || p.caption || p.key === 'colon' || p.key === 'known' || /\p{L}:/u.test(p.text)) continue;
      if (gap > -0.5 * from.h && gap < from.h && shared > 0.3 * Math.min(from.h, p.h)) return p;
    }
  }
  return null;
}

/** `first` with the rest of its line (`lineParts`), all taken, as one phrase on `first`'s row. */
function wholeLine(rows: readonly Phrase[][], first: Phrase): Phrase {
  return asOneLine(lineParts(rows, first));
}

/** Pieces of one line as one phrase, on the first piece's row. */
function asOneLine(parts: readonly Phrase[]): Phrase {
  const first = parts[0]!;
  if (parts.length === 1) return first;
  const words = parts.flatMap((p) => p.words);
  return { ...first, words, text: wordsText(words), bbox: union(words.map((w) => w.bbox)) };
}

/**
 * `first` and the pieces of its line after it, left to right, taken: those a skewed scan put on the
 * rows around it, and a sentence that runs on across a wide gap on its own row.
 */
function lineParts(rows: readonly Phrase[][], first: Phrase): Phrase[] {
  const parts = [first];
  for (let d = nextPiece(rows, first); d && parts.length < 4; d = nextPiece(rows, d)) {
    d.used = true;
    parts.push(d);
  }
  return parts;
}

const nextPiece = (rows: readonly Phrase[][], from: Phrase) => driftedOn(rows, from) ?? runOnRight(rows, from);

/** The next phrase on `from`'s row, within two line heights, when the sentence runs on into it ("… just following | on the old"). */
function runOnRight(rows: readonly Phrase[][], from: Phrase): Phrase | null {
  const next = rows[from.row]!.find((p) => p.bbox[0] > from.bbox[2]);
  if (!next || next.used || next.key || next.caption || next.bbox[0] - from.bbox[2] > 2 * from.h) return null;
  return runsOn(from, next) ? next : null;
}

/**
 * Unused lines below `from` that continue its value: starting at `left`, set close, no caption and
 * no colon; at most `max`, unless the text wraps into them as a paragraph does (`wrapsInto`),
 * which carries on through running text to the paragraph's end, across a line gap of up to a line
 * height (a skewed scan's lines stand further apart in their boxes).
 */
function continuedLines(rows: readonly Phrase[][], from: Phrase, left: number, max: number, keyLeft?: number): Phrase[] {
  const out: Phrase[] = [];
  let paragraph = false;
  for (let cur = from; ; ) {
    const next = phraseBelow(rows, cur.row, cur, (p) => Math.abs(p.bbox[0] - left) < cur.h, 1);
    if (!next || next.caption || next.key === 'known') break;
    const close = next.bbox[1] - cur.bbox[3] <= 0.6 * cur.h;
    paragraph = wrapsInto(cur, next, paragraph);
    const limit = keyLeft !== undefined && besideEmpty(rows[next.row]!, keyLeft, next) ? ADDRESS_LINES : max;
    if (paragraph ? next.key === 'colon' : !close || out.length >= limit || /:/.test(next.text) || isProse(next)) break;
    next.used = true;
    cur = wholeLine(rows, next);
    out.push(cur);
  }
  return out;
}

/**
 * `next` carries on the running text of `cur`: `cur` is a line of several words that reaches about
 * as far right as `next` does (it broke for want of room), and the sentence runs on across the
 * break, or `cur` is itself a wrapped line of the paragraph (where a new sentence may start a
 * line). Lines of a name and address block start in capitals and stay apart.
 */
const wrapsInto = (cur: Phrase, next: Phrase, inParagraph: boolean) =>
  cur.words.length >= WRAPPED_LINE_WORDS && cur.bbox[2] >= next.bbox[2] - 2 * cur.h && (inParagraph || runsOn(cur, next));

/** The sentence of `cur` goes on in `next`: `next` starts in lower case, or `cur` ends on a comma or a hyphen. */
const runsOn = (cur: Phrase, next: Phrase) => /^\p{Ll}/u.test(next.text) || /[,;\-–]$/.test(cur.text);

/** Lines a value right of its key may run on over, below it, while nothing stands in the key's column (an address: firm, name, street, city, phone). */
const ADDRESS_LINES = 4;

/** Nothing on `row` between the key's left edge and the line `p`: no other key starts beside it. */
const besideEmpty = (row: readonly Phrase[], keyLeft: number, p: Phrase) => !row.some((q) => q !== p && q.bbox[2] > keyLeft - p.h && q.bbox[0] < p.bbox[0]);

/**
 * A key printed over two or three lines beside its value ("LORILLARD" over "ENTITIES:"): the lines
 * right above the key, starting where it starts, set close, with nothing right of them over the
 * value, are its first words. A key the vocabulary knows is whole already ("ACME Corp" over
 * "Invoice No:" is a name over a key), and a caption above is a key of its own.
 */
function keyLinesAbove(rows: readonly Phrase[][], kv: KeyValue, key: Phrase, value: Phrase): void {
  if (key.key === 'known' || isKnownLabel(key.text)) return;
  const lines: Phrase[] = [];
  for (let cur = key; lines.length < 2; ) {
    const above = rows[cur.row - 1]?.find((p) => Math.abs(p.bbox[0] - key.bbox[0]) < key.h);
    if (!above || above.used || above.key === 'colon' || above.key === 'known' || above.caption || /\d/.test(above.text) || cur.bbox[1] - above.bbox[3] > 0.6 * key.h) break;
    if (rows[above.row]!.some((p) => p !== above && p.bbox[2] > above.bbox[0] && p.bbox[0] < value.bbox[2])) break;
    lines.unshift(above);
    cur = above;
  }
  if (!lines.length) return;
  for (const l of lines) l.used = true;
  const words = [...lines.flatMap((l) => l.words), ...key.words];
  kv.key = dropColon(wordsText(words));
  kv.key_bbox = union(words.map((w) => w.bbox));
}

/** Fewer words than this on a line is a value of its own (a name, a date), not a wrapped sentence. */
const WRAPPED_LINE_WORDS = 5;

// ---------------------------------------------------------------- 1. after a colon

/** "Key: value" pairs inside one phrase; a key glued to its value ("Date:2024-01-01") is split. */
function inlinePairs(p: Phrase): KeyValue[] {
  // Without a colon in its text no word ends in one, glued or not.
  if (p.used || !p.text.includes(':')) return [];
  const ws = splitGlued(p.words);
  // "16:" before "29" is a clock time split by OCR (a fax header's "JAN 11 '99 16:29"), no key's end.
  const colons = ws.map((w, i) => (/:$/.test(w.text) && !(/^\d{1,2}:$/.test(w.text) && /^\d{2}/.test(ws[i + 1]?.text ?? '')) ? i : -1)).filter((i) => i >= 0);
  if (colons.length === 0) return [];
  const out: KeyValue[] = [];
  let keyStart = 0;
  colons.forEach((c, n) => {
    if (keyStart < 0 || keyStart > c) return;
    const key = ws.slice(keyStart, c + 1);
    const next = colons[n + 1];
    const valueEnd = next === undefined ? ws.length : nextKeyStart(ws, c + 1, next);
    const value = ws.slice(c + 1, valueEnd);
    keyStart = next === undefined ? -1 : valueEnd;
    if (!value.length || !isLabel(key, true)) return;
    out.push(pair(key, value, (n === 0 ? 0.8 : 0.75) + shapeBonus(value), true));
  });
  if (out.length) p.used = true;
  return out;
}

/** Where the key ending at `colon` starts, after `from`: its words back while they look like a caption (all capitals as the key is), at most four, leaving one value word. */
function nextKeyStart(ws: readonly Word[], from: number, colon: number): number {
  const caps = isCaps(ws[colon]!.text);
  let k = colon;
  while (k - 1 > from && colon - (k - 1) < 4 && /^\p{L}/u.test(ws[k - 1]!.text) && (caps ? isCaps(ws[k - 1]!.text) : /^\p{Lu}/u.test(ws[k - 1]!.text))) k--;
  return k;
}

const isCaps = (t: string) => /\p{L}/u.test(t) && t === t.toUpperCase();

/** Words with a colon inside a word ("Date:2024-01-01", not "12:30") split into the key part and the value part. */
function splitGlued(words: readonly Word[]): Word[] {
  const out: Word[] = [];
  for (const w of words) {
    const m = /^([^:\d][^:]*:)([^/:].*)$/u.exec(w.text);
    if (!m) {
      out.push(w);
      continue;
    }
    // The box split in proportion to the characters.
    const cut = w.bbox[0] + ((w.bbox[2] - w.bbox[0]) * m[1]!.length) / w.text.length;
    out.push({ ...w, text: m[1]!, bbox: [w.bbox[0], w.bbox[1], cut, w.bbox[3]] }, { ...w, text: m[2]!, bbox: [cut, w.bbox[1], w.bbox[2], w.bbox[3]] });
  }
  return out;
}

// ---------------------------------------------------------------- 2. right of the key

/**
 * Whether a row of a text phrase and a number has neighbours of the same make, starting where it
 * starts ("Kroger  21" over "Rich Oil  82"): the records of a list, not a caption with its value.
 */
function inList(rows: readonly Phrase[][], r: number): boolean {
  const row = rows[r]!;
  if (row.length !== 2) return false;
  const alike = (other: Phrase[] | undefined) =>
    !!other && other.length === 2 && !/\d/.test(other[0]!.text) && /\d/.test(other[1]!.text) && Math.abs(other[0]!.bbox[0] - row[0]!.bbox[0]) < row[0]!.h && Math.abs(other[1]!.bbox[2] - row[1]!.bbox[2]) < 2 * row[0]!.h && Math.abs(other[0]!.bbox[1] - row[0]!.bbox[1]) < 3 * row[0]!.h;
  return alike(rows[r - 1]) || alike(rows[r + 1]);
}

/** A key with its value in the next phrase of the row (an unknown phrase only when it reads as a caption or is not in a list of records). */
function rightPairs(row: Phrase[], listed = false): { pair: KeyValue; key: Phrase; value: Phrase }[] {
  const out: { pair: KeyValue; key: Phrase; value: Phrase }[] = [];
  for (let i = 0; i + 1 < row.length; i++) {
    const k = row[i]!;
    const v = row[i + 1]!;
    if (k.used || v.used || !k.key || v.caption) continue;
    const digits = /\d/.test(v.text);
    let confidence = 0;
    if (k.key === 'colon') confidence = 0.65;
    else if (k.key === 'known' && v.key !== 'known') confidence = digits ? 0.6 : 0.5;
    // An unknown caption only before a value of a known shape, alone on its row: in a row of
    // several phrases it is more likely a table's first cell.
    else if (k.key === 'plain' && digits && row.length === 2 && hasValueShape(v.text) && !(listed && !k.caption)) confidence = 0.5;
    if (!confidence) continue;
    out.push({ pair: pair(k.words, v.words, confidence + shapeBonus(v.words), true), key: k, value: v });
    k.used = v.used = true;
  }
  return out;
}

// ---------------------------------------------------------------- 4. below the key

/** A key with nothing after it on its row: its value is the phrase right below it, with the lines that continue it. */
function belowPair(rows: readonly Phrase[][], k: Phrase): KeyValue | null {
  if (k.used || (k.key !== 'colon' && k.key !== 'known')) return null;
  const row = rows[k.row]!;
  const after = row.find((p) => p.bbox[0] > k.bbox[2]);
  if (after && !after.key) return null;
  // A caption without a colon among other captions heads a table column (an item table's, which
  // the grid pass leaves to the tables): what is under it is a cell, not its value.
  if (k.key === 'known' && row.some((p) => p !== k && p.key)) return null;
  const first = phraseBelow(rows, k.row, k, (p) => overlapX(p.bbox, k.bbox) > 0 || Math.abs(p.bbox[0] - k.bbox[0]) < 3 * k.h);
  if (!first || first.caption || first.key === 'known' || (k.key === 'known' && isProse(first))) return null;
  k.used = first.used = true;
  const line = wholeLine(rows, first);
  const value = [line, ...continuedLines(rows, line, first.bbox[0], 3)];
  const words = value.flatMap((v) => v.words);
  return pair(k.words, words, (k.key === 'colon' ? 0.6 : 0.5) + shapeBonus(words), true);
}

/** The first unused phrase on the nearest row below `from` (within `gap` line heights) that `fits`. */
function phraseBelow(rows: readonly Phrase[][], at: number, from: Phrase, fits: (p: Phrase) => boolean, gap = 2): Phrase | null {
  for (let r = at + 1; r < rows.length; r++) {
    const row = rows[r]!;
    if (row[0] && row[0].bbox[1] - from.bbox[3] > gap * from.h) return null;
    const hit = row.find((p) => fits(p));
    if (hit) return hit.used ? null : hit;
  }
  return null;
}

// ---------------------------------------------------------------- shared

/** A line of running text (many words), not a value: a form's values are short. */
const isProse = (p: Phrase) => p.words.length > 10;

/** A value of a known shape (date, amount, id) confirms the label before it. */
const shapeBonus = (value: readonly Word[]) => (hasValueShape(wordsText(value)) ? 0.05 : 0);

export function pair(key: readonly Word[], value: readonly Word[], confidence: number, stripColon = false): KeyValue {
  const k = wordsText(key);
  return {
    key: stripColon ? dropColon(k) : k,
    value: wordsText(value),
    key_bbox: union(key.map((w) => w.bbox)),
    value_bbox: union(value.map((w) => w.bbox)),
    confidence: Math.round(Math.min(0.9, confidence) * 100) / 100,
  };
}
