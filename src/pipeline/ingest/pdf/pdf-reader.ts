// A PDF → source pages: text-layer words, ruling lines, and the decision whether a page needs
// OCR. That decision is per page: scanned inserts inside digital documents are common.
import type { SourcePage } from '../source-page.js';
import { annotationWords } from './annotation-words.js';
import { readAnnotationTexts } from './pdf-annotations.js';
import { readChars } from './pdf-chars.js';
import type { PdfDocument } from './pdf-document.js';
import { readGraphics } from './pdf-graphics.js';
import { imageRegions } from './image-regions.js';
import { openPage } from './pdf-page.js';
import { charsToWords } from './pdf-words.js';

/**
 * Below this share of characters with a real Unicode mapping the text layer is glyph soup
 * (symbol fonts, subsets without ToUnicode) and OCR reads the page better.
 */
const MIN_MAPPED_SHARE = 0.5;
/** A page mostly covered by images with fewer characters than this is a scan with a stamp. */
const MIN_CHARS_ON_IMAGE_PAGE = 20;

export function readPdfPage(doc: PdfDocument, index: number): SourcePage {
  const page = openPage(doc, index);
  if (!page) {
    // PDFium could not build this page (broken page tree entry): OCR of a render is the only chance.
    return { page_number: index + 1, width: 612, height: 792, rotation: 0, source: 'needs_ocr' };
  }
  try {
    const chars = readChars(doc, page);
    const graphics = readGraphics(doc, page);
    const base = { page_number: index + 1, width: page.width, height: page.height, rotation: page.rotation };
    let visible = 0;
    let mapped = 0;
    for (const c of chars) {
      if (c.text === ' ') continue;
      visible++;
      if (!c.unmapped && isReadable(c.text)) mapped++;
    }
    const garbage = visible > 0 && mapped < visible * MIN_MAPPED_SHARE;
    const scanLike = graphics.imageCoverage > 0.5 && mapped < MIN_CHARS_ON_IMAGE_PAGE;
    const noContent = chars.length === 0 && graphics.objects === 0;
    // Without a text layer OCR reads the page as rendered, form fields drawn in (pdf-render.ts).
    if ((mapped === 0 && !noContent) || garbage) return { ...base, source: 'needs_ocr' };
    const annotations = readAnnotationTexts(doc, page);
    // Nothing drawn at all: a genuinely blank page, nothing for OCR to find.
    if (noContent && annotations.length === 0) return { ...base, source: 'text_layer', words: [], blank: true };
    const pageWords = charsToWords(chars);
    const words = onThePage([...pageWords, ...annotationWords(annotations, pageWords, page.rotation / 90)], page.width, page.height);
    // A scan with a few real characters on it (a date stamp) keeps them, but still goes to OCR.
    const source = scanLike ? 'needs_ocr' : 'text_layer';
    const regions = source === 'text_layer' && graphics.images.length ? imageRegions(graphics.images, chars, page.width, page.height) : [];
    return { ...base, source, words, quarters: words.map((w) => w.quarter), rules: graphics.rules, ...(regions.length ? { imageRegions: regions } : {}) };
  } finally {
    page.close();
  }
}

/**
 * Words as the page shows them: one drawn wholly past the page's edge is not on it (no reader sees
 * it), and one that runs over the edge is cut at it, so every box lies within the page.
 */
function onThePage<W extends { bbox: [number, number, number, number] }>(words: W[], width: number, height: number): W[] {
  const shown: W[] = [];
  for (const w of words) {
    const [x0, y0, x1, y1] = w.bbox;
    if (x1 <= 0 || y1 <= 0 || x0 >= width || y0 >= height) continue;
    if (x0 < 0 || y0 < 0 || x1 > width || y1 > height) w.bbox = [Math.max(0, x0), Math.max(0, y0), Math.min(width, x1), Math.min(height, y1)];
    shown.push(w);
  }
  return shown;
}

/** Replacement characters, private-use code points and C0/C1 controls are not text. */
function isReadable(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  return !(c === 0xfffd || (c >= 0xe000 && c <= 0xf8ff) || c < 0x20 || (c >= 0x7f && c < 0xa0));
}
