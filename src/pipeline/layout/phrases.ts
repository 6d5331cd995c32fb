// A page's words as phrases: the runs of a text row between wide gaps. Key-value pairing works on
// phrases of the whole page, table or not: on forms, table detection takes label/value grids for
// tables, and the pairs in them are still pairs.
import type { BBox, Word } from '../canonical/model.js';
import { type Keyness, isCaptionLike, keyness, wordsText } from './form-labels.js';
import { height, median, union } from './geometry.js';
import type { Row } from './rows.js';

export interface Phrase {
  words: Word[];
  text: string;
  bbox: BBox;
  /** Index of its row, top to bottom. */
  row: number;
  /** Line height of its row. */
  h: number;
  key: Keyness | null;
  /** Reads as a caption (isCaptionLike): never a value. */
  caption: boolean;
  /** Taken by a pair, as its key or its value. */
  used: boolean;
}

/** Gap between words (× line height) that separates phrases: wider than any word space. */
const PHRASE_GAP = 1.2;

/** Rows of phrases, top to bottom, each left to right, from text rows (groupRows). */
export function phraseRows(rows: readonly Row[]): Phrase[][] {
  return rows.map((row, r) => {
    const h = median(row.words.map((w) => height(w.bbox)));
    return splitAtGaps(row.words, PHRASE_GAP * h).map((ws) => phrase(ws, r, h));
  });
}

export function phrase(ws: Word[], row: number, h: number): Phrase {
  const text = wordsText(ws);
  return { words: ws, text, bbox: union(ws.map((w) => w.bbox)), row, h, key: keyness(ws, text), caption: isCaptionLike(ws, text), used: false };
}

export function splitAtGaps(words: readonly Word[], gap: number): Word[][] {
  const out: Word[][] = [];
  for (const w of words) {
    const cur = out[out.length - 1];
    const prev = cur?.[cur.length - 1];
    if (prev && w.bbox[0] - prev.bbox[2] <= gap) cur.push(w);
    else out.push([w]);
  }
  return out;
}
