// Canonical pages → plain text: blocks separated by a blank line, pages by a form feed (the
// convention of pdftotext, so page boundaries survive a round trip through text tools).
import type { Page } from './model.js';

export function toPlainText(pages: readonly Page[]): string {
  return pages.map((p) => p.blocks.map((b) => b.text).join('\n\n')).join('\n\f');
}
