// A whole PDF → source pages for the planned page selection.
import { corruptDocument, emptyDocument, notePageCount } from '../errors.js';
import type { SourcePage } from '../source-page.js';
import { type PagePlanOptions, planPages } from '../page-plan.js';
import { type PageLoopOptions, mapPages } from '../progress.js';
import { type PdfDocument, openPdf } from './pdf-document.js';
import { readPdfPage } from './pdf-reader.js';

export interface PdfRead {
  pageCount: number;
  pages: SourcePage[];
}

export async function readPdf(bytes: Uint8Array, options: PagePlanOptions & PageLoopOptions): Promise<PdfRead> {
  const doc = await openPdf(bytes);
  try {
    const pageCount = existingPages(doc, options.pdfMaxPages);
    try {
      const plan = planPages(pageCount, options);
      const pages = await mapPages(plan.indexes, options, (i) => readPdfPage(doc, i));
      if (pages.every((p) => p.blank)) throw emptyDocument(`the ${pages.length === 1 ? 'page is' : `${pages.length} pages are`} blank`);
      return { pageCount, pages };
    } catch (err) {
      throw notePageCount(err, pageCount);
    }
  } finally {
    doc.close();
  }
}

/** Probes past the last page found before the rest of a /Count is taken to be a lie. */
const MISSING_TAIL = 10_000;

/**
 * The page count, checked when it would fail or truncate the document: a page tree's /Count can
 * say 1,000,000 on a file of one page. Over the cap, the pages are looked up (their dictionaries
 * only, about 0.2 µs each) until more than the cap exist, or until MISSING_TAIL indexes in a row
 * after the last one found do not: the count is then the pages up to that last one. Within the
 * cap /Count stands, and its pages that cannot be loaded are failed pages of the run.
 */
function existingPages(doc: PdfDocument, cap: number | undefined): number {
  if (cap === undefined || doc.pageCount <= cap) return doc.pageCount;
  const { raw, scratch } = doc.pdfium;
  let found = 0;
  let last = -1;
  for (let i = 0; i < doc.pageCount; i++) {
    if (raw.FPDF_GetPageSizeByIndexF(doc.handle, i, scratch)) {
      last = i;
      if (++found > cap) return doc.pageCount;
    } else if (i - last > MISSING_TAIL) break;
  }
  if (last < 0) throw corruptDocument('none of its pages can be loaded');
  return last + 1;
}
