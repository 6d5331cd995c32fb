// A DrawingML table (a:tbl) → a canonical table. Spans come from gridSpan/rowSpan on the anchor
// cell; the cells they cover (hMerge/vMerge) are not emitted, as in ruled PDF tables. Cell boxes
// come from the grid column widths and row heights.
import type { BBox, Table, TableCell } from '../../canonical/model.js';
import { EMU_PER_POINT } from './placeholders.js';
import { readTextBody } from './text-body.js';
import { type XNode, child, childrenOf, num } from './xml.js';

export function readTable(tbl: XNode, frame: BBox): Table {
  const colW = childrenOf(child(tbl, 'a:tblGrid'), 'a:gridCol').map((c) => num(c.attrs.w) / EMU_PER_POINT);
  const rows = childrenOf(tbl, 'a:tr');
  const rowH = rows.map((r) => num(r.attrs.h) / EMU_PER_POINT);
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
