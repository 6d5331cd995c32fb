// Pairs that tables state through their cells: a cell reading "Key: value", a cell ending in ":"
// with its value in the next cell, and two-column key lists ("Invoice Number:" | "42183017").
import type { KeyValue, Table } from '../canonical/model.js';

/** A label: starts with a letter, at most 40 characters, no sentence end. */
const LABEL = /^\p{L}[^.!?]{0,39}$/u;

/** "Key: value" inside a cell, and a cell ending in ":" with its value in the next cell of the row. */
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
 * Two-column tables whose left cells are labels: each such row is a pair. Where the right column
 * holds numbers, a row without a digit on the right is its column captions ("NAME OF ACCOUNT" |
 * "STORES"), not a pair, unless its left cell ends in ":".
 */
export function tableKeyValues(tables: readonly Table[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const t of tables) {
    if (t.cols !== 2) continue;
    const values = t.cells.filter((c) => c.col === 1 && c.text.trim());
    const numeric = values.filter((c) => /\d/.test(c.text)).length >= (2 / 3) * values.length;
    for (let r = 0; r < t.rows; r++) {
      const key = t.cells.find((c) => c.row === r && c.col === 0);
      const value = t.cells.find((c) => c.row === r && c.col === 1);
      if (!key || !value || value.text === '' || !LABEL.test(key.text)) continue;
      const colon = key.text.endsWith(':');
      if (numeric && !/\d/.test(value.text) && !colon) continue;
      out.push({ key: key.text.replace(/\s*:$/, ''), value: value.text, key_bbox: key.bbox, value_bbox: value.bbox, confidence: colon ? 0.75 : 0.5 });
    }
  }
  return out;
}
