// A whole PDF → source pages for the planned page selection.
import { emptyDocument } from '../errors.js';
import type { SourcePage } from '../source-page.js';
import { type PagePlanOptions, planPages } from '../page-plan.js';
import { type PageLoopOptions, mapPages } from '../progress.js';
import { openPdf } from './pdf-document.js';
import { readPdfPage } from './pdf-reader.js';

export interface PdfRead {
  pageCount: number;
  pages: SourcePage[];
}

export async function readPdf(bytes: Uint8Array, options: PagePlanOptions & PageLoopOptions): Promise<PdfRead> {
  const doc = await openPdf(bytes);
  try {
    const plan = planPages(doc.pageCount, options);
    const pages = await mapPages(plan.indexes, options, (i) => readPdfPage(doc, i));
    if (pages.every((p) => p.blank)) throw emptyDocument(`the ${pages.length === 1 ? 'page is' : `${pages.length} pages are`} blank`);
    return { pageCount: doc.pageCount, pages };
  } finally {
    doc.close();
  }
}
