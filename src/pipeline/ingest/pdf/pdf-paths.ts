// One path object → ruling lines. A rule is a thin filled sub-path (many producers draw borders
// as 0.5 pt boxes; Word packs every border of a table into one path of many such boxes) or a
// straight axis-aligned segment of a stroked path. Colour matters: white borders over white
// cells draw nothing, but white lines across a coloured fill are the only "rules" some tables have.
import type { Affine } from './pdf-page.js';
import { applyAffine } from './pdf-page.js';
import type { PdfDocument } from './pdf-document.js';

export interface Rule {
  /** Horizontal rules have y0 === y1, vertical ones x0 === x1; x0 <= x1 and y0 <= y1. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PathSink {
  rules: Rule[];
  /** White rules: kept only where they lie on a coloured fill. */
  whiteRules: Rule[];
  /** Coloured filled areas (cell or band shading). */
  fills: Rule[];
}

const SEG_LINETO = 0;
const SEG_MOVETO = 2;
/** Thicker than this a filled shape is a box, not a line. */
const THIN = 2.5;
const MIN_LENGTH = 4;

type Ink = 'none' | 'white' | 'ink';

export function readPath(doc: PdfDocument, obj: number, box: Rule, m: Affine, sink: PathSink): void {
  if (box.x1 - box.x0 < MIN_LENGTH && box.y1 - box.y0 < MIN_LENGTH) return;
  const { raw, scratch } = doc.pdfium;
  raw.FPDFPath_GetDrawMode(obj, scratch, scratch + 4);
  const h32 = doc.pdfium.heap32();
  const fill: Ink = h32[scratch >> 2] !== 0 ? ink(doc, obj, 'fill') : 'none';
  const stroke: Ink = h32[(scratch >> 2) + 1] !== 0 ? ink(doc, obj, 'stroke') : 'none';
  if (fill === 'none' && stroke === 'none') return; // clipping paths draw nothing
  const n = Math.min(raw.FPDFPath_CountSegments(obj), 4_000);
  const o = scratch >> 2;
  let sub: [number, number][] = [];
  const endSub = () => {
    if (sub.length > 1 && fill !== 'none') {
      const xs = sub.map((p) => p[0]);
      const ys = sub.map((p) => p[1]);
      const b = { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
      if (!thinRule(b, fill === 'white' ? sink.whiteRules : sink.rules) && fill === 'ink') sink.fills.push(b);
    }
    sub = [];
  };
  const strokeTo = stroke === 'white' ? sink.whiteRules : sink.rules;
  for (let i = 0; i < n; i++) {
    const seg = raw.FPDFPath_GetPathSegment(obj, i);
    if (raw.FPDFPathSegment_GetPoint(seg, scratch, scratch + 4) !== 1) continue;
    const g = doc.pdfium.heapF32();
    const p = applyAffine(m, g[o], g[o + 1]);
    const type = raw.FPDFPathSegment_GetType(seg);
    if (type === SEG_MOVETO) endSub();
    const prev = sub[sub.length - 1];
    if (stroke !== 'none' && type === SEG_LINETO && prev) segmentRule(prev, p, strokeTo);
    sub.push(p);
    if (raw.FPDFPathSegment_GetClose(seg) === 1) {
      if (stroke !== 'none' && sub.length > 1) segmentRule(p, sub[0], strokeTo);
      endSub();
    }
  }
  endSub();
}

function ink(doc: PdfDocument, obj: number, which: 'fill' | 'stroke'): Ink {
  const { module: m, scratch } = doc.pdfium;
  const p = scratch + 64;
  const ok = which === 'fill' ? m.FPDFPageObj_GetFillColor(obj, p, p + 4, p + 8, p + 12) : m.FPDFPageObj_GetStrokeColor(obj, p, p + 4, p + 8, p + 12);
  if (!ok) return 'ink';
  const h = doc.pdfium.heap32();
  const [r, g, b, a] = [h[p >> 2], h[(p >> 2) + 1], h[(p >> 2) + 2], h[(p >> 2) + 3]];
  if (a === 0) return 'none';
  return r >= 245 && g >= 245 && b >= 245 ? 'white' : 'ink';
}

/** A box no thicker than THIN and long enough is a rule; answers whether it was one. */
function thinRule(box: Rule, out: Rule[]): boolean {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  if (h <= THIN && w >= MIN_LENGTH) out.push({ x0: box.x0, x1: box.x1, y0: (box.y0 + box.y1) / 2, y1: (box.y0 + box.y1) / 2 });
  else if (w <= THIN && h >= MIN_LENGTH) out.push({ y0: box.y0, y1: box.y1, x0: (box.x0 + box.x1) / 2, x1: (box.x0 + box.x1) / 2 });
  else return false;
  return true;
}

function segmentRule(p: [number, number], q: [number, number], out: Rule[]): void {
  const dx = Math.abs(p[0] - q[0]);
  const dy = Math.abs(p[1] - q[1]);
  if (dy < 1 && dx >= MIN_LENGTH) out.push({ x0: Math.min(p[0], q[0]), x1: Math.max(p[0], q[0]), y0: (p[1] + q[1]) / 2, y1: (p[1] + q[1]) / 2 });
  else if (dx < 1 && dy >= MIN_LENGTH) out.push({ y0: Math.min(p[1], q[1]), y1: Math.max(p[1], q[1]), x0: (p[0] + q[0]) / 2, x1: (p[0] + q[0]) / 2 });
}
