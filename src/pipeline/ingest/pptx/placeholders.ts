// Placeholders: a slide's title or body shape often has no position of its own and inherits it
// from the matching placeholder on its layout (same idx, else same type), then on the master.
import type { BBox } from '../../canonical/model.js';
import { type XNode, child, path } from './xml.js';

export interface Placeholder {
  /** ST_PlaceholderType; "obj" when the file omits it (ECMA-376 §19.7.10). */
  type: string;
  idx?: string;
}

/** 914400 EMU per inch, 72 pt per inch. */
export const EMU_PER_POINT = 12_700;

export function placeholderOf(sp: XNode): Placeholder | null {
  const ph = path(sp, 'p:nvSpPr', 'p:nvPr', 'p:ph');
  return ph ? { type: ph.attrs.type ?? 'obj', idx: ph.attrs.idx } : null;
}

export const isTitle = (p: Placeholder | null) => p?.type === 'title' || p?.type === 'ctrTitle';
/** Placeholders whose paragraphs are bulleted unless they say otherwise (master bodyStyle). */
export const isBulletedBody = (p: Placeholder | null) => p !== null && (p.type === 'body' || p.type === 'obj');

/** Resolves a placeholder's box from the layout, then the master; null when neither has one. */
export function inheritedBox(p: Placeholder, layout: XNode | undefined, master: XNode | undefined): BBox | null {
  return findBox(layout, p, true) ?? findBox(master, p, false);
}

function findBox(part: XNode | undefined, want: Placeholder, byIdx: boolean): BBox | null {
  const tree = path(part?.children[0], 'p:cSld', 'p:spTree');
  const family = (t: string) => (t === 'ctrTitle' ? 'title' : t === 'obj' ? 'body' : t);
  for (const sp of tree?.children ?? []) {
    if (sp.tag !== 'p:sp') continue;
    const ph = placeholderOf(sp);
    if (!ph) continue;
    const match = byIdx && want.idx !== undefined ? ph.idx === want.idx : family(ph.type) === family(want.type);
    if (!match) continue;
    const xfrm = path(sp, 'p:spPr', 'a:xfrm');
    const off = child(xfrm, 'a:off');
    const ext = child(xfrm, 'a:ext');
    if (!off || !ext) continue;
    const [x, y, cx, cy] = [off.attrs.x, off.attrs.y, ext.attrs.cx, ext.attrs.cy].map((v) => (Number(v) || 0) / EMU_PER_POINT);
    return [x, y, x + cx, y + cy];
  }
  // Layouts often name the title by type only, even when the slide's shape carries an idx.
  return byIdx && want.idx !== undefined ? findBox(part, { type: want.type }, false) : null;
}
