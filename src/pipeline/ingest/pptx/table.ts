// A DrawingML table (a:tbl) → a canonical table. Spans come from gridSpan/rowSpan on the anchor
// cell; the cells they cover (hMerge/vMerge) are not emitted, as in ruled PDF tables. Cell boxes
// come from the grid column widths and row heights (rows declared 0 tall take theirs from the frame).
import type { BBox, Table, TableCell } from '../../canonical/model.js';
import { EMU_PER_POINT } from './placeholders.js';
import { readTextBody } from './text-body.js';
import { type XNode, child, childrenOf, num } from './xml.js';

export function readTable(tbl: XNode, frame: BBox): Table {
  const colW = childrenOf(child(tbl, 'a:tblGrid'), 'a:gridCol').map((c) => num(c.attrs.w) / EMU_PER_POINT);
  const rows = childrenOf(tbl, 'a:tr');
  const rowH = rowHeights(rows, frame[3] - frame[1]);
  const xs = [frame[0]];
  for (const w of colW) xs.push(xs[xs.length - 1] + w);
  const ys = [frame[1]];
  for (const h of rowH) ys.push(ys[ys.length - 1] + h);
  const cols = Math.max(colW.length, ...rows.map((r) => childrenOf(r, 'a:tc').length));
  const cells: TableCell[] = [];
  rows.forEach((tr, r) => {
    childrenOf(tr, 'a:tc').forEach((tc, c) => {
      if (tc.attrs.hMerge === '1' || tc.attrs.vMerge === '1' || tc.attrs.hMerge === 'true' || tc.attrs.vMerge === 'true') return;
      const colSpan = Math.max(1, num(tc.attrs.gridSpan, 1));
      const rowSpan = Math.max(1, num(tc.attrs.rowSpan, 1));
      const text = readTextBody(child(tc, 'a:txBody'))
        .map((p) => p.text.replace(/\s+/g, ' ').trim())
        .filter((t) => t !== '')
        .join(' ');
      const at = (v: number[], i: number) => v[Math.min(i, v.length - 1)];
      cells.push({ row: r, col: c, row_span: rowSpan, col_span: colSpan, text, bbox: [at(xs, c), at(ys, r), at(xs, c + colSpan), at(ys, r + rowSpan)] });
    });
  });
  const bbox: BBox = [frame[0], frame[1], Math.max(frame[2], xs[xs.length - 1]), Math.max(frame[3], ys[ys.length - 1])];
  return { bbox, rows: rows.length, cols, cells, kind: 'native', confidence: 1 };
}

/** A cell's default top and bottom insets (a:tcPr marT, marB: 45720 EMU) and text size in points. */
const DEFAULT_MARGIN = 45720 / EMU_PER_POINT;
const DEFAULT_SIZE = 18;

/**
 * Row heights in points. A row's `h` is the least height it has: PowerPoint grows a row to fit
 * its text, so a row written with h="0" (as python-pptx's test decks have it) is as tall as its
 * text makes it. The frame's height is the table as laid out: what it has beyond the declared
 * heights is shared by the rows declared 0 tall. With no such room, such a row gets one line of
 * its text and its cells' margins, so no cell's box has zero height.
 */
function rowHeights(rows: XNode[], frameHeight: number): number[] {
  const declared = rows.map((r) => num(r.attrs.h) / EMU_PER_POINT);
  const open = declared.map((h, i) => (h > 0 ? -1 : i)).filter((i) => i >= 0);
  if (open.length === 0) return declared;
  const room = frameHeight - declared.reduce((a, b) => a + b, 0);
  return declared.map((h, i) => (h > 0 ? h : Math.max(room / open.length, oneLine(rows[i]!))));
}

/** The height of one line of text in the row's cells, with the cells' top and bottom margins. */
function oneLine(tr: XNode): number {
  let most = 0;
  for (const tc of childrenOf(tr, 'a:tc')) {
    const pr = child(tc, 'a:tcPr');
    const margin = (name: string) => (pr?.attrs[name] !== undefined ? num(pr.attrs[name]) / EMU_PER_POINT : DEFAULT_MARGIN);
    const size = readTextBody(child(tc, 'a:txBody')).find((p) => p.size !== undefined)?.size ?? DEFAULT_SIZE;
    most = Math.max(most, margin('marT') + margin('marB') + size * 1.2);
  }
  return most;
}
