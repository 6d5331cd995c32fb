// Key-value pairs, the raw material for extraction: "Label: value" within a line piece, a label
// ending in ":" with its value on the next line below it, and a short label left of a value
// with digits across a wide gap ("Total      1,939.00"). Confidence says how sure the pattern is.
import type { KeyValue, Line, Table, Word } from '../canonical/model.js';
import { height, median, union } from './geometry.js';

const MAX_KEY_WORDS = 5;
const MAX_KEY_CHARS = 40;

export function findKeyValues(lines: readonly Line[]): KeyValue[] {
  const out: KeyValue[] = [];
  lines.forEach((line, i) => {
    const h = median(line.words.map((w) => height(w.bbox)));
    const pieces = splitAtGaps(line.words, 1.2 * h);
    pieces.forEach((piece, p) => {
      const colon = colonPair(piece);
      if (colon) return void out.push(colon);
      const next = pieces[p + 1];
      if (next && isLabel(piece) && /\d/.test(wordsText(next)) && !/\d/.test(wordsText(piece))) {
        out.push(pair(piece, next, 0.5));
      }
    });
    // A label alone on its line ("Bill to:") owns the line right below it, if aligned with it.
    const below = lines[i + 1];
    if (pieces.length === 1 && /:$/.test(line.text) && isLabel(line.words, true) && below) {
      const gap = below.bbox[1] - line.bbox[3];
      if (gap >= -1 && gap < 1.5 * h && Math.abs(below.bbox[0] - line.bbox[0]) < 3 * h) {
        out.push(pair(line.words, below.words, 0.6, true));
      }
    }
  });
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
