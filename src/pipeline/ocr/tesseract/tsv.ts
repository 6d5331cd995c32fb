// Tesseract's TSV output → lines and words in pixels. Both backends (native binary and
// tesseract.js) produce the same TSV, so they share this parser and return identical shapes.
// Columns: level page_num block_num par_num line_num word_num left top width height conf text;
// level 5 rows are words, with conf in 0..100 (-1 on structural rows), mapped onto the shared
// confidence scale (confidence.ts).
import type { BBox, OcrLine, OcrWord, PixelPage } from '../types.js';
import { calibrated } from '../confidence.js';
import { charWeightedConfidence, joinWords, unionBox } from '../geometry.js';

export function parseTsv(tsv: string, width: number, height: number): PixelPage {
  const lines = new Map<string, OcrWord[]>();
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const text = cols.slice(11).join('\t').trim();
    if (!text) continue;
    const [left, top, w, h, conf] = [6, 7, 8, 9, 10].map((i) => Number(cols[i]));
    if (![left, top, w, h, conf].every(Number.isFinite)) continue;
    const bbox: BBox = [left, top, left + w, top + h];
    const key = `${cols[2]}/${cols[3]}/${cols[4]}`;
    const words = lines.get(key) ?? [];
    words.push({ text, bbox, confidence: calibrated('tesseract', Math.min(1, Math.max(0, conf / 100))) });
    lines.set(key, words);
  }
  const out: OcrLine[] = [];
  for (const words of lines.values()) {
    out.push({ text: joinWords(words), bbox: unionBox(words.map((w) => w.bbox)), confidence: charWeightedConfidence(words), words });
  }
  return { width, height, lines: out };
}
