// A table's place in the reading flow: a `table` block whose lines are the table's rows, so
// plain-text consumers still read every cell, in row order.
import type { Block, Line, Table, Word } from '../canonical/model.js';
import { union } from './geometry.js';
import { groupRows } from './rows.js';

export function tableBlock(table: Table, tableIndex: number, lines: Line[]): Block {
  const text = tableRowsText(table);
  return { type: 'table', text, bbox: lines.length ? union([table.bbox, ...lines.map((l) => l.bbox)]) : table.bbox, lines, confidence: table.confidence, table_index: tableIndex };
}

/** A table's words as lines, one per text row. */
export const rowLines = (words: readonly Word[]): Line[] =>
  groupRows(words).map((r) => ({ text: r.words.map((w) => w.text).join(' '), bbox: r.bbox, words: r.words }));

/** Row by row, cells separated by " | " (empty spanned positions left out). */
export function tableRowsText(table: Table): string {
  const rows: string[][] = Array.from({ length: table.rows }, () => []);
  for (const c of table.cells) if (c.text !== '') rows[c.row].push(c.text);
  return rows
    .filter((r) => r.length > 0)
    .map((r) => r.join(' | '))
    .join('\n');
}
