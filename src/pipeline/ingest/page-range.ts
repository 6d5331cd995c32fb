// `page_range` as accepted by POST /v1/documents: 1-based pages and inclusive spans, comma
// separated ("1-3,7"). Parsing happens twice: at upload (syntax only, so a typo is a 422 there)
// and in the pipeline, once the page count is known (so "9" on a 3-page file fails clearly).
import { invalidPageRange, pageRangePastEnd } from './errors.js';

export interface PageSpan {
  from: number;
  to: number;
}

/** Syntax check only; throws PipelineError(invalid_page_range). Whitespace is allowed around parts. */
export function parsePageRange(input: string): PageSpan[] {
  const trimmed = input.trim();
  if (trimmed === '') throw invalidPageRange('it is empty');
  const spans: PageSpan[] = [];
  for (const raw of trimmed.split(',')) {
    const part = raw.trim();
    const m = /^(\d{1,6})(?:\s*-\s*(\d{1,6}))?$/.exec(part);
    if (!m) throw invalidPageRange(`"${part}" is not a page number or a span like 2-5`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1) throw invalidPageRange('pages are numbered from 1');
    if (to < from) throw invalidPageRange(`"${part}" runs backwards`);
    spans.push({ from, to });
  }
  return spans;
}

/**
 * The 0-based page indexes a range selects in a document of `pageCount` pages, ascending and
 * without duplicates ("1-3,2" selects 1,2,3). A page past the end is an error, not silently
 * dropped, so the submitter learns that the range and the file do not match.
 */
export function selectPages(spans: PageSpan[] | undefined, pageCount: number): number[] {
  if (!spans) return Array.from({ length: pageCount }, (_, i) => i);
  const selected = new Set<number>();
  for (const { from, to } of spans) {
    if (to > pageCount) {
      const what = from === to ? `page ${from}` : `pages ${from}-${to}`;
      throw pageRangePastEnd(what, pageCount);
    }
    for (let p = from; p <= to; p++) selected.add(p - 1);
  }
  return [...selected].sort((a, b) => a - b);
}
