// Which pages a run processes: the page range first, then the page cap. spec/decisions.md: an
// over-cap document fails when all pages are selected, and a page_range within the cap is how a
// submitter gets it through on reprocess. A range that still selects more than the cap is
// treated like "all pages": it fails (or truncates) too.
import { isPipelineError, pageCapExceeded } from './errors.js';
import { type PageSpan, selectPages } from './page-range.js';

export type PageCapPolicy = 'fail' | 'truncate';

export interface PagePlanOptions {
  pageRange?: PageSpan[];
  pdfMaxPages?: number;
  pageCapPolicy?: PageCapPolicy;
}

export interface PagePlan {
  /** 0-based indexes of the pages to process, ascending. */
  indexes: number[];
  /** True when `truncate` dropped pages past the cap. */
  truncated: boolean;
}

export function planPages(pageCount: number, options: PagePlanOptions): PagePlan {
  try {
    const indexes = selectPages(options.pageRange, pageCount);
    const cap = options.pdfMaxPages;
    if (cap === undefined || indexes.length <= cap) return { indexes, truncated: false };
    if ((options.pageCapPolicy ?? 'fail') === 'fail') throw pageCapExceeded(indexes.length, cap, indexes.length < pageCount);
    return { indexes: indexes.slice(0, cap), truncated: true };
  } catch (err) {
    // The page count is known here: a job that fails on its page selection still records it.
    if (isPipelineError(err)) err.pageCount = pageCount;
    throw err;
  }
}
