// The page's graphics that layout cares about: ruling lines for ruled-table detection, and how
// much of the page images cover (a page that is one big image with a few characters on it is a
// scan that needs OCR). Form XObjects are walked with their matrices composed.
import type { Affine, PdfPage } from './pdf-page.js';
import { applyAffine } from './pdf-page.js';
import type { PdfDocument } from './pdf-document.js';
import { type PathSink, type Rule, readPath } from './pdf-paths.js';

export type { Rule } from './pdf-paths.js';

export interface PageGraphics {
  rules: Rule[];
  /** Sum of image areas over the page area, capped at 1. */
  imageCoverage: number;
  /** Each image's box in display space, in drawing order. */
  images: Rule[];
  /** Page objects of any kind (0: a blank page). */
  objects: number;
}

const OBJ_PATH = 2;
const OBJ_IMAGE = 3;
const OBJ_FORM = 5;
/** Maps and charts can hold 10^5 paths; past this a page is not a table page anyway. */
const MAX_OBJECTS = 20_000;

export function readGraphics(doc: PdfDocument, page: PdfPage): PageGraphics {
  const { raw } = doc.pdfium;
  const sink: PathSink = { rules: [], whiteRules: [], fills: [] };
  let imageArea = 0;
  const images: Rule[] = [];
  let visited = 0;
  const walk = (count: number, get: (i: number) => number, outer: Affine) => {
    for (let i = 0; i < count && visited < MAX_OBJECTS; i++, visited++) {
      const obj = get(i);
      const type = raw.FPDFPageObj_GetType(obj);
      if (type === OBJ_PATH) {
        const box = displayBounds(doc, obj, outer);
        if (box) readPath(doc, obj, box, compose(objectMatrix(doc, obj), outer), sink);
      } else if (type === OBJ_IMAGE) {
        const box = displayBounds(doc, obj, outer);
        if (box) {
          imageArea += (box.x1 - box.x0) * (box.y1 - box.y0);
          images.push(box);
        }
      } else if (type === OBJ_FORM) {
        const inner = compose(objectMatrix(doc, obj), outer);
        walk(raw.FPDFFormObj_CountObjects(obj), (k) => raw.FPDFFormObj_GetObject(obj, k), inner);
      }
    }
  };
  walk(raw.FPDFPage_CountObjects(page.handle), (i) => raw.FPDFPage_GetObject(page.handle, i), page.toDisplay);
  // White rules only show where they cross a coloured fill (tables "ruled" by the gaps between
  // shaded cells, camelot's process_background case); elsewhere they are invisible.
  const onFill = (r: Rule) => sink.fills.some((f) => r.x0 >= f.x0 - 1 && r.x1 <= f.x1 + 1 && r.y0 >= f.y0 - 1 && r.y1 <= f.y1 + 1);
  const rules = [...sink.rules, ...sink.whiteRules.filter(onFill)];
  return { rules, imageCoverage: Math.min(1, imageArea / Math.max(1, page.width * page.height)), images, objects: visited };
}

/** An object's bounds (in its container's space) as a display-space box. */
function displayBounds(doc: PdfDocument, obj: number, toDisplay: Affine): Rule | null {
  const { raw, scratch } = doc.pdfium;
  if (raw.FPDFPageObj_GetBounds(obj, scratch, scratch + 4, scratch + 8, scratch + 12) !== 1) return null;
  const f = doc.pdfium.heapF32();
  const o = scratch >> 2;
  const [a, b] = [applyAffine(toDisplay, f[o], f[o + 1]), applyAffine(toDisplay, f[o + 2], f[o + 3])];
  return { x0: Math.min(a[0], b[0]), y0: Math.min(a[1], b[1]), x1: Math.max(a[0], b[0]), y1: Math.max(a[1], b[1]) };
}

function objectMatrix(doc: PdfDocument, obj: number): Affine {
  const { raw, scratch } = doc.pdfium;
  if (raw.FPDFPageObj_GetMatrix(obj, scratch + 16) !== 1) return [1, 0, 0, 1, 0, 0];
  const f = doc.pdfium.heapF32();
  const o = (scratch + 16) >> 2;
  return [f[o], f[o + 1], f[o + 2], f[o + 3], f[o + 4], f[o + 5]];
}

/** First `inner`, then `outer`. */
function compose(inner: Affine, outer: Affine): Affine {
  const [a, b, c, d, e, f] = inner;
  const [A, B, C, D, E, F] = outer;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}
