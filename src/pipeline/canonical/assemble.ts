// Source pages → the canonical document: PDF text pages go through layout with the document's
// body style; PPTX and text pages arrive already structured; needs_ocr pages stay empty and
// say so in their `source`.
import type { TextStyle } from '../layout/blocks.js';
import { layoutPage } from '../layout/page-layout.js';
import type { SourcePage } from '../ingest/source-page.js';
import { toMarkdown } from './markdown.js';
import type { CanonicalDocument, DocumentFormat, Page } from './model.js';
import { toPlainText } from './plain-text.js';
import { measureStyle } from './text-style.js';

export function assemble(format: DocumentFormat, pageCount: number, sources: readonly SourcePage[]): CanonicalDocument {
  const style = measureStyle(sources.map((s) => s.words ?? []));
  const pages = sources.map((s) => toPage(s, style));
  return { format, page_count: pageCount, pages, text: toPlainText(pages), markdown: toMarkdown(pages) };
}

function toPage(s: SourcePage, style: TextStyle): Page {
  const base = { page_number: s.page_number, width: s.width, height: s.height, source: s.source, rotation: s.rotation };
  if (s.words) {
    const laid = layoutPage({ width: s.width, height: s.height, words: s.words, quarters: s.quarters, rules: s.rules, blockStarts: s.blockStarts }, style);
    return { ...base, ...laid };
  }
  return { ...base, blocks: s.blocks ?? [], tables: s.tables ?? [], key_values: s.key_values ?? [] };
}
