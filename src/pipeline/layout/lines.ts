// A leaf region's text pieces → lines: pieces sharing a row are one line, read left to right.
import type { BBox, Line, Word } from '../canonical/model.js';
import { union } from './geometry.js';
import { sameRow } from './rows.js';

export function piecesToLines(pieces: readonly Word[][]): Line[] {
  const sorted = pieces
    .map((words) => ({ words: [...words], bbox: union(words.map((w) => w.bbox)) }))
    .sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  const merged: { words: Word[]; bbox: BBox; core: BBox }[] = [];
  for (const p of sorted) {
    const last = merged[merged.length - 1];
    if (last && sameRow(last.core, p.bbox)) {
      for (const w of p.words) last.words.push(w);
      last.bbox = union([last.bbox, p.bbox]);
    } else merged.push({ words: p.words, bbox: p.bbox, core: p.bbox });
  }
  return merged.map(({ words, bbox }) => {
    // Lines mostly in a right-to-left script read from the right edge.
    const rtl = readsRightToLeft(words);
    words.sort((a, b) => (rtl ? b.bbox[2] - a.bbox[2] : a.bbox[0] - b.bbox[0]));
    return { text: words.map((w) => w.text).join(' '), bbox, words };
  });
}

/** Hebrew, Arabic (and their presentation forms): letters set right to left. */
const RTL_LETTERS = '\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc';
const RTL = new RegExp(`[${RTL_LETTERS}]`, 'gu');
const ANY_RTL = new RegExp(`[${RTL_LETTERS}]`, 'u');
/** Whether a text holds a right-to-left letter; a single character below U+0590 never is one. */
export const isRtl = (text: string) => !(text.length === 1 && text.charCodeAt(0) < 0x0590) && ANY_RTL.test(text);
const LETTER = /\p{L}/gu;
/** A line read from its right edge: most of its letters are right-to-left ones. */
export const readsRightToLeft = (words: readonly Word[]) => rtlShare(words) > 0.5;
function rtlShare(words: readonly Word[]): number {
  // Without a right-to-left letter the share is 0, whatever the count of letters.
  if (!words.some((w) => isRtl(w.text))) return 0;
  const text = words.map((w) => w.text).join('');
  const letters = text.match(LETTER)?.length ?? 0;
  return letters === 0 ? 0 : (text.match(RTL)?.length ?? 0) / letters;
}

/**
 * Joins line texts; a line ending in a hyphen continues the word on the next line. Linear in the
 * text: the parts are joined once, and only the last part is looked at (endsWith on a string
 * grown with += flattens it on every line, which made a 200,000-line text file take minutes).
 */
export function joinLines(lines: readonly Line[]): string {
  const parts: string[] = [];
  // The last character joined so far ('' while nothing is).
  let end = '';
  for (const l of lines) {
    const piece = end === '' || end === '-' || end === '\u00ad' ? l.text : ` ${l.text}`;
    parts.push(piece);
    if (piece !== '') end = piece[piece.length - 1]!;
  }
  return parts.join('');
}
