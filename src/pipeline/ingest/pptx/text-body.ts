// DrawingML text (a:txBody) → paragraphs with their text, list level, bullet kind and size.
import { type XNode, child, childrenOf, num } from './xml.js';

export type Bullet = 'none' | 'char' | 'number' | 'inherit';

export interface Paragraph {
  text: string;
  /** Outline level, 0-based (a:pPr lvl). */
  level: number;
  bullet: Bullet;
  /** Font size in points when the runs state one. */
  size?: number;
  bold: boolean;
}

export function readTextBody(txBody: XNode | undefined): Paragraph[] {
  const out: Paragraph[] = [];
  for (const p of childrenOf(txBody, 'a:p')) {
    const pPr = child(p, 'a:pPr');
    let text = '';
    let size: number | undefined;
    let boldChars = 0;
    for (const c of p.children) {
      if (c.tag === 'a:r' || c.tag === 'a:fld') {
        const t = child(c, 'a:t')?.text ?? '';
        const rPr = child(c, 'a:rPr');
        if (rPr?.attrs.sz && size === undefined) size = num(rPr.attrs.sz) / 100;
        if (rPr?.attrs.b === '1' || rPr?.attrs.b === 'true') boldChars += t.length;
        text += t;
      } else if (c.tag === 'a:br') text += '\n';
    }
    out.push({ text, level: num(pPr?.attrs.lvl), bullet: bulletOf(pPr), size, bold: text.length > 0 && boldChars * 2 > text.length });
  }
  return out;
}

function bulletOf(pPr: XNode | undefined): Bullet {
  if (child(pPr, 'a:buNone')) return 'none';
  if (child(pPr, 'a:buAutoNum')) return 'number';
  if (child(pPr, 'a:buChar') || child(pPr, 'a:buBlip')) return 'char';
  return 'inherit';
}
