// Images on a text-layer page that may carry text of their own: a letterhead or footer with the
// issuer's address, IBAN and VAT number pasted in as a picture, a stamped logo, a scanned insert.
// The text layer does not hold their text, so the OCR stage reads them when the job asks for it
// (ocr-pages.ts, `textInImages`). Pictures with text-layer characters printed over them (a form
// background) are left out: their text is already there.
import type { BBox } from '../../canonical/model.js';
import { contains } from '../../layout/geometry.js';
import { area } from '../../ocr/geometry.js';
import type { PdfChar } from './pdf-chars.js';
import type { Rule } from './pdf-paths.js';

/** An image smaller than this share of the page holds no more than an icon. */
const MIN_PAGE_SHARE = 0.01;
/** Points: narrower or lower than this, an image is a rule, a bullet or a hairline. */
const MIN_SIDE_PT = 18;
/** Text-layer characters (centres) inside an image at which its text counts as already there. */
const MAX_CHARS_INSIDE = 3;
/** At most this many regions per page, the largest: a page of photos is not a page of letterheads. */
const MAX_REGIONS = 6;

export function imageRegions(images: readonly Rule[], chars: readonly PdfChar[], pageWidth: number, pageHeight: number): BBox[] {
  const clipped = images
    .map((b): BBox => [Math.max(0, b.x0), Math.max(0, b.y0), Math.min(pageWidth, b.x1), Math.min(pageHeight, b.y1)])
    .filter(([x0, y0, x1, y1]) => x1 - x0 >= MIN_SIDE_PT && y1 - y0 >= MIN_SIDE_PT && (x1 - x0) * (y1 - y0) >= MIN_PAGE_SHARE * pageWidth * pageHeight);
  const regions = mergeOverlapping(clipped).filter((box) => charsInside(box, chars) < MAX_CHARS_INSIDE);
  return regions
    .sort((a, b) => area(b) - area(a))
    .slice(0, MAX_REGIONS)
    .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** Overlapping images (tiles of one picture, a picture drawn twice) become one region. */
function mergeOverlapping(boxes: BBox[]): BBox[] {
  const out: BBox[] = [];
  for (const box of boxes) {
    let merged: BBox = [...box];
    for (let i = out.length - 1; i >= 0; i--) {
      const o = out[i]!;
      if (o[0] <= merged[2] && merged[0] <= o[2] && o[1] <= merged[3] && merged[1] <= o[3]) {
        merged = [Math.min(o[0], merged[0]), Math.min(o[1], merged[1]), Math.max(o[2], merged[2]), Math.max(o[3], merged[3])];
        out.splice(i, 1);
      }
    }
    out.push(merged);
  }
  return out;
}

function charsInside(box: BBox, chars: readonly PdfChar[]): number {
  let n = 0;
  for (const c of chars) {
    if (c.text === ' ') continue;
    if (contains(box, (c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2) && ++n >= MAX_CHARS_INSIDE) return n;
  }
  return n;
}
