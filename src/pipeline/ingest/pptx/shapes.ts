// A slide's shape tree → flat shapes with boxes in points: text shapes (with their placeholder
// role) and tables. Group transforms are applied to their children; charts, pictures and
// connectors carry no text we read. Alternate content (mc:AlternateContent) takes the first
// branch that yields shapes.
import { type XNode, child, path } from './xml.js';
import type { BBox } from '../../canonical/model.js';
import { type Paragraph, readTextBody } from './text-body.js';
import { EMU_PER_POINT, type Placeholder, placeholderOf } from './placeholders.js';


export type Shape =
  | { kind: 'text'; bbox: BBox | null; paragraphs: Paragraph[]; placeholder: Placeholder | null; order: number }
  | { kind: 'table'; bbox: BBox | null; table: XNode; order: number };

/** Child → parent coordinates of a group (EMU). */
type Transform = (x: number, y: number) => [number, number];
const identity: Transform = (x, y) => [x, y];

export function readShapes(spTree: XNode | undefined): Shape[] {
  const out: Shape[] = [];
  walk(spTree, identity, out);
  return out;
}

function walk(node: XNode | undefined, t: Transform, out: Shape[]): void {
  for (const c of node?.children ?? []) {
    if (c.tag === 'p:sp') {
      const paragraphs = readTextBody(child(c, 'p:txBody'));
      if (paragraphs.some((p) => p.text.trim() !== '')) {
        out.push({ kind: 'text', bbox: box(path(c, 'p:spPr', 'a:xfrm'), t), paragraphs, placeholder: placeholderOf(c), order: out.length });
      }
    } else if (c.tag === 'p:graphicFrame') {
      const table = path(c, 'a:graphic', 'a:graphicData', 'a:tbl');
      if (table) out.push({ kind: 'table', bbox: box(child(c, 'p:xfrm'), t), table, order: out.length });
    } else if (c.tag === 'p:grpSp') {
      walk(c, groupTransform(path(c, 'p:grpSpPr', 'a:xfrm'), t), out);
    } else if (c.tag === 'mc:AlternateContent') {
      for (const branch of c.children) {
        const before = out.length;
        walk(branch, t, out);
        if (out.length > before) break;
      }
    }
  }
}

function box(xfrm: XNode | undefined, t: Transform): BBox | null {
  const off = child(xfrm, 'a:off');
  const ext = child(xfrm, 'a:ext');
  if (!off || !ext) return null;
  const x = Number(off.attrs.x) || 0;
  const y = Number(off.attrs.y) || 0;
  const [x0, y0] = t(x, y);
  const [x1, y1] = t(x + (Number(ext.attrs.cx) || 0), y + (Number(ext.attrs.cy) || 0));
  return [x0 / EMU_PER_POINT, y0 / EMU_PER_POINT, x1 / EMU_PER_POINT, y1 / EMU_PER_POINT];
}

/** A group maps its child extents (chOff, chExt) onto its own box (off, ext). */
function groupTransform(xfrm: XNode | undefined, outer: Transform): Transform {
  const n = (tag: string, a: string) => Number(child(xfrm, tag)?.attrs[a]) || 0;
  const [ox, oy, cx, cy] = [n('a:off', 'x'), n('a:off', 'y'), n('a:ext', 'cx'), n('a:ext', 'cy')];
  const [chx, chy, chcx, chcy] = [n('a:chOff', 'x'), n('a:chOff', 'y'), n('a:chExt', 'cx'), n('a:chExt', 'cy')];
  const sx = chcx > 0 ? cx / chcx : 1;
  const sy = chcy > 0 ? cy / chcy : 1;
  return (x, y) => outer(ox + (x - chx) * sx, oy + (y - chy) * sy);
}
