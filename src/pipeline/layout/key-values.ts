// Key-value pairs, the raw material for extraction: "Label: value" within a line piece, a label
// ending in ":" with its value on the next line below it, and a short label left of a value
// with digits across a wide gap ("Total      1,939.00"). Confidence says how sure the pattern is.
import type { KeyValue, Line, Table, Word } from '../canonical/model.js';
import { height, median, union } from './geometry.js';

const MAX_KEY_WORDS = 5;
const MAX_KEY_CHARS = 40;

export function findKeyValues(lines: readonly Line[]): KeyValue[] {
  const out: KeyValue[] = [];
  const pieceLists = lines.map((line) => splitAtGaps(line.words, 1.2 * median(line.words.map((w) => height(w.bbox)))));
  lines.forEach((line, i) => {
    const h = median(line.words.map((w) => height(w.bbox)));
    const pieces = pieceLists[i]!;
    // A piece that is another pair's value is no key of its own ("TO: | K. A. Sparrow | …").
    let consumed = -1;
    pieces.forEach((piece, p) => {
      if (p === consumed) return;
      const colon = colonPair(piece);
      if (colon) return void out.push(colon);
      const next = pieces[p + 1];
      // "Name:" with its value across a gap on the same line.
      if (next && /:$/.test(wordsText(piece)) && isLabel(piece, true) && !colonEnded(next)) {
        out.push(pair(piece, next, 0.65, true));
        consumed = p + 1;
        return;
      }
      if (next && isLabel(piece) && /\d/.test(wordsText(next)) && !/\d/.test(wordsText(piece))) {
        out.push(pair(piece, next, 0.5));
        consumed = p + 1;
        return;
      }
      // A label ending in ":" with nothing after it on its row: its value is right below it.
      if (!next && colonEnded(piece) && isLabel(piece, true)) {
        const under = valueBelow(lines, i, piece, h);
        if (under) out.push(pair(piece, under, pieces.length === 1 ? 0.6 : 0.55, true));
      }
    });
  });
  return out;
}

const colonEnded = (ws: readonly Word[]) => /:$/.test(wordsText(ws));

/** The words of the nearest line below a label that start under it (left-aligned or overlapping), within 1.5 line heights. */
function valueBelow(lines: readonly Line[], at: number, key: readonly Word[], h: number): Word[] | null {
  const box = union(key.map((w) => w.bbox));
  let best: Word[] | null = null;
  let bestTop = Infinity;
  lines.forEach((line, j) => {
    if (j === at) return;
    const gap = line.bbox[1] - box[3];
    if (gap < -1 || gap > 1.5 * h || line.bbox[1] >= bestTop) return;
    const words = line.words.filter((w) => w.bbox[2] > box[0] - 3 * h && w.bbox[0] < box[2] + 3 * h);
    if (!words.length || Math.abs(words[0]!.bbox[0] - box[0]) > 3 * h) return;
    // The words of that row's piece that starts under the label.
    const piece = splitAtGaps(line.words, 1.2 * h).find((p) => p.includes(words[0]!));
    if (!piece || colonEnded(piece)) return;
    best = piece;
    bestTop = line.bbox[1];
  });
  return best;
}

/**
 * Pairs inside the cells of tables: a cell that reads "Key: value", and a cell ending in ":"
 * with its value in the next cell of the row.
 */
export function tableCellKeyValues(tables: readonly Table[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const t of tables) {
    if (t.cols === 2) continue; // two-column key lists: tableKeyValues
    for (const cell of t.cells) {
      const m = /^([^:\d][^:]{0,39}):\s+(\S.*)$/su.exec(cell.text);
      if (m && LABEL.test(m[1]!.trim())) {
        out.push({ key: m[1]!.trim(), value: m[2]!.trim(), key_bbox: cell.bbox, value_bbox: cell.bbox, confidence: 0.7 });
        continue;
      }
      if (!/:$/.test(cell.text) || !LABEL.test(cell.text.replace(/\s*:$/, ''))) continue;
      const right = t.cells.find((c) => c.row === cell.row && c.col === cell.col + cell.col_span);
      if (right && right.text.trim() && !/:$/.test(right.text)) out.push({ key: cell.text.replace(/\s*:$/, ''), value: right.text, key_bbox: cell.bbox, value_bbox: right.bbox, confidence: 0.65 });
    }
  }
  return out;
}

/**
 * Two-column tables whose left cells are labels ("Invoice Number:" | "42183017") are key-value
 * lists laid out as a table: each such row is also a pair.
 */
export function tableKeyValues(tables: readonly Table[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const t of tables) {
    if (t.cols !== 2) continue;
    for (let r = 0; r < t.rows; r++) {
      const key = t.cells.find((c) => c.row === r && c.col === 0);
      const value = t.cells.find((c) => c.row === r && c.col === 1);
      if (!key || !value || value.text === '' || !LABEL.test(key.text)) continue;
      out.push({ key: key.text.replace(/\s*:$/, ''), value: value.text, key_bbox: key.bbox, value_bbox: value.bbox, confidence: /:$/.test(key.text) ? 0.75 : 0.5 });
    }
  }
  return out;
}

/** A label: starts with a letter, at most 40 characters, no sentence end. */
const LABEL = /^\p{L}[^.!?]{0,39}$/u;

function splitAtGaps(words: readonly Word[], gap: number): Word[][] {
  const out: Word[][] = [];
  for (const w of words) {
    const cur = out[out.length - 1];
    const prev = cur?.[cur.length - 1];
    if (prev && w.bbox[0] - prev.bbox[2] <= gap) cur.push(w);
    else out.push([w]);
  }
  return out;
}

const wordsText = (ws: readonly Word[]) => ws.map((w) => w.text).join(' ');

function isLabel(ws: readonly Word[], allowColon = false): boolean {
  const raw = wordsText(ws);
  const text = allowColon ? raw.replace(/:$/, '') : raw;
  return ws.length <= MAX_KEY_WORDS && text.length <= MAX_KEY_CHARS && /^\p{L}/u.test(text) && !/[.!?]$/.test(text);
}

/** "Invoice No: 123" or "Date:2024-01-01"; the colon must end a word, so "12:30" is no pair. */
function colonPair(piece: Word[]): KeyValue | null {
  const at = piece.findIndex((w) => /:$/.test(w.text) || /^[^:\d]+:[^/]/.test(w.text));
  if (at < 0 || at >= MAX_KEY_WORDS) return null;
  const w = piece[at];
  const cut = w.text.indexOf(':');
  const keyWords = piece.slice(0, at + 1);
  if (!isLabel(keyWords, true) && !isLabel([...piece.slice(0, at), { ...w, text: w.text.slice(0, cut) }])) return null;
  if (cut === w.text.length - 1) {
    const valueWords = piece.slice(at + 1);
    return valueWords.length ? pair(keyWords, valueWords, 0.8, true) : null;
  }
  // Key and value glued in one word: split the box in proportion to the characters.
  const split = w.bbox[0] + ((w.bbox[2] - w.bbox[0]) * (cut + 1)) / w.text.length;
  const keyPart: Word = { ...w, text: w.text.slice(0, cut + 1), bbox: [w.bbox[0], w.bbox[1], split, w.bbox[3]] };
  const valuePart: Word = { ...w, text: w.text.slice(cut + 1), bbox: [split, w.bbox[1], w.bbox[2], w.bbox[3]] };
  return pair([...piece.slice(0, at), keyPart], [valuePart, ...piece.slice(at + 1)], 0.75, true);
}

function pair(key: readonly Word[], value: readonly Word[], confidence: number, stripColon = false): KeyValue {
  const k = wordsText(key);
  return {
    key: stripColon ? k.replace(/\s*:$/, '') : k,
    value: wordsText(value),
    key_bbox: union(key.map((w) => w.bbox)),
    value_bbox: union(value.map((w) => w.bbox)),
    confidence,
  };
}
