// UTF-8 (or Windows-1252) text → source pages. A form feed starts a new page (the pdftotext and line-printer
// convention). Each character is placed on a monospace grid (10 pt type: 6 pt advance, 12 pt
// lines, half-inch margins) so the same layout code finds paragraphs (blank lines), aligned
// columns (tables) and "Label: value" pairs in text as it does in PDFs.
import type { Word } from '../canonical/model.js';
import { readsRightToLeft } from '../layout/lines.js';
import { emptyDocument } from './errors.js';
import { decodeText } from './text-encoding.js';
import { type PagePlanOptions, planPages } from './page-plan.js';
import type { SourcePage } from './source-page.js';
import { ownLines } from './text-line-breaks.js';

const ADVANCE = 6;
const LEADING = 12;
const MARGIN = 36;

export interface TextRead {
  pageCount: number;
  pages: SourcePage[];
}

export function readText(bytes: Uint8Array, options: PagePlanOptions = {}): TextRead {
  // UTF-8, else Windows-1252 (what the sniffer accepted as text); a stray invalid byte is U+FFFD.
  const decoded = decodeText(bytes)?.text ?? new TextDecoder('utf-8').decode(bytes);
  const text = decoded.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n');
  if (text.trim() === '') throw emptyDocument('the text file holds only whitespace');
  const rawPages = text.split('\f');
  // The page range and the page cap (pdf_max_pages) select pages as they select PDF pages.
  const pages = planPages(rawPages.length, options).indexes.map((i) => textPage(rawPages[i]!, i + 1));
  return { pageCount: rawPages.length, pages };
}

function textPage(content: string, pageNumber: number): SourcePage {
  // trimEnd, not /\s+$/, which scanned a long run of spaces once per space (quadratic).
  const lines = content.replace(/^\n+/, '').trimEnd().split('\n').map((line) => line.replace(/\t/g, '    '));
  const words: Word[] = [];
  let longest = 0;
  lines.forEach((expanded, row) => {
    longest = Math.max(longest, expanded.length);
    const lineWords: Word[] = [];
    for (const m of expanded.matchAll(/\S+/g)) {
      const x0 = MARGIN + (m.index ?? 0) * ADVANCE;
      const y0 = MARGIN + row * LEADING;
      lineWords.push({ text: m[0], bbox: [x0, y0, x0 + m[0].length * ADVANCE, y0 + LEADING * 0.9], confidence: 1, fontSize: LEADING * 0.9 });
    }
    // A text file holds characters in logical order; a right-to-left line is shown from the right
    // edge, so its words are placed mirrored, as a PDF draws them, and layout reads them back in order.
    if (readsRightToLeft(lineWords)) {
      const right = 2 * MARGIN + expanded.length * ADVANCE;
      for (const w of lineWords) w.bbox = [right - w.bbox[2], w.bbox[1], right - w.bbox[0], w.bbox[3]];
    }
    words.push(...lineWords);
  });
  return {
    page_number: pageNumber,
    width: Math.max(612, 2 * MARGIN + longest * ADVANCE),
    height: Math.max(792, 2 * MARGIN + lines.length * LEADING),
    rotation: 0,
    source: 'plain_text',
    words,
    blockStarts: [...ownLines(lines)].map((row) => MARGIN + row * LEADING),
  };
}
