// The text of a table cell: its words in reading order, lines joined by a space (Markdown pipe
// tables cannot hold line breaks, and the canonical text reads better without them).
import type { Word } from '../canonical/model.js';
import { groupRows } from './rows.js';

export function cellText(words: readonly Word[]): string {
  if (words.length === 0) return '';
  return groupRows(words)
    .map((r) => r.words.map((w) => w.text).join(' '))
    .join(' ');
}
