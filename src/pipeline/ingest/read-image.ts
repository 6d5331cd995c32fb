// Image uploads (PNG, JPEG, TIFF, WebP) → pages that need OCR, sized in points from the image's
// own resolution (72 dpi when it states none), upright per EXIF. A multi-page TIFF gives one page
// per frame, and so does an animated WebP; the page range and the page cap (pdf_max_pages)
// select frames like PDF pages.
import sharp, { type Metadata } from 'sharp';
import { corruptDocument } from './errors.js';
import { oversizedFrame } from './image-frames.js';
import { type PagePlanOptions, planPages } from './page-plan.js';
import type { SourcePage } from './source-page.js';

export interface ImageRead {
  pageCount: number;
  pages: SourcePage[];
}

/** EXIF orientations 5–8 turn the image a quarter: its upright width is the stored height. */
const QUARTER_TURN_ORIENTATIONS = new Set([5, 6, 7, 8]);

export async function readImage(bytes: Uint8Array, options: PagePlanOptions = {}): Promise<ImageRead> {
  let meta: Metadata;
  try {
    // The header only: its size is checked here, against the page limit, not against sharp's own.
    meta = await sharp(bytes, { pages: 1, limitInputPixels: false }).metadata();
  } catch (err) {
    throw corruptDocument(`the image cannot be decoded: ${(err as Error).message}`);
  }
  if (!meta.width || !meta.height) throw corruptDocument('the image has no dimensions');
  const oversized = oversizedFrame(meta.width, meta.height, 0);
  if (oversized) throw oversized;
  const pageCount = meta.pages ?? 1;
  const scale = 72 / (meta.density && meta.density > 0 ? meta.density : 72);
  const turned = QUARTER_TURN_ORIENTATIONS.has(meta.orientation ?? 1);
  const [width, height] = turned ? [meta.height * scale, meta.width * scale] : [meta.width * scale, meta.height * scale];
  // Frames of a multi-page TIFF may differ in size; each is measured again when it is read.
  const pages = planPages(pageCount, options).indexes.map(
    (i): SourcePage => ({ page_number: i + 1, width, height, rotation: 0, source: 'needs_ocr' }),
  );
  return { pageCount, pages };
}
