// Image uploads (PNG, JPEG, TIFF, WebP) → pages that need OCR, sized in points from the image's
// own resolution (72 dpi when it states none). A multi-page TIFF gives one page per frame.
import sharp, { type Metadata } from 'sharp';
import { corruptDocument } from './errors.js';
import { type PageSpan, selectPages } from './page-range.js';
import type { SourcePage } from './source-page.js';

export interface ImageRead {
  pageCount: number;
  pages: SourcePage[];
}

export async function readImage(bytes: Uint8Array, pageRange?: PageSpan[]): Promise<ImageRead> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { pages: 1 }).metadata();
  } catch (err) {
    throw corruptDocument(`the image cannot be decoded: ${(err as Error).message}`);
  }
  if (!meta.width || !meta.height) throw corruptDocument('the image has no dimensions');
  const pageCount = meta.pages ?? 1;
  const scale = 72 / (meta.density && meta.density > 0 ? meta.density : 72);
  const pages = selectPages(pageRange, pageCount).map(
    (i): SourcePage => ({ page_number: i + 1, width: meta.width! * scale, height: meta.height! * scale, rotation: 0, source: 'needs_ocr' }),
  );
  return { pageCount, pages };
}
