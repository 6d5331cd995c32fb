// A minimal canonical document from lines of text (with or without boxes): words get boxes
// shared out along their line by character count. For unit tests, and for evaluating extraction on
// text that comes with line boxes but no PDF (the SROIE ground-truth OCR lines).
import type { BBox } from '../canonical/model.js';
import type { DocInput, DocPage } from './text.js';

export interface LineInput {
  text: string;
  bbox?: BBox;
  page?: number;
  confidence?: number;
}

const LINE_HEIGHT = 14;

export function documentFromLines(lines: (string | LineInput)[], size: { width: number; height: number } = { width: 612, height: 792 }): DocInput {
  const pages = new Map<number, DocPage>();
  let y = 40;
  for (const raw of lines) {
    const line = typeof raw === 'string' ? { text: raw } : raw;
    const pageNumber = line.page ?? 1;
    if (!pages.has(pageNumber)) {
      pages.set(pageNumber, { page_number: pageNumber, width: size.width, height: size.height, blocks: [], tables: [], key_values: [] });
      y = 40;
    }
    const text = line.text.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const bbox: BBox = line.bbox ?? [40, y, 40 + text.length * 6, y + LINE_HEIGHT - 2];
    y += LINE_HEIGHT;
    const perChar = (bbox[2] - bbox[0]) / Math.max(1, text.length);
    const words = [];
    let at = 0;
    for (const w of text.split(' ')) {
      const x0 = bbox[0] + at * perChar;
      words.push({ text: w, bbox: [x0, bbox[1], x0 + w.length * perChar, bbox[3]] as BBox, confidence: line.confidence ?? 1 });
      at += w.length + 1;
    }
    pages.get(pageNumber)!.blocks.push({ type: 'paragraph', text, bbox, lines: [{ text, bbox, words }] });
  }
  return { pages: [...pages.values()].sort((a, b) => a.page_number - b.page_number) };
}
