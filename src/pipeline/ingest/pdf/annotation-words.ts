// Annotation text (form field values, FreeText) → words inside the annotation's rectangle, so
// layout, reading order and key–value pairing place "Name: Alice" where the page shows it.
// PDF viewers lay these out at display time, so the boxes are estimated like PPTX text
// (0.5 em per character, lines at the font's extent), squeezed to fit the rectangle's width.
// Text already drawn in the page content at that place (a form whose appearances were baked
// into the page, or printed by the producer under the widget) is not added a second time.
import type { BBox } from '../../canonical/model.js';
import { type AnnotationText, UNCHECKED_MARK } from './pdf-annotations.js';
import type { PdfWord } from './pdf-words.js';

/** Room between a field's border and its text (the 2 pt PDF viewers leave, PDF 32000-1 12.7.3.3). */
const INSET = 2;
/** Font size when the annotation states none ("auto" size): fit to the box, at most this. */
const MAX_AUTO_SIZE = 12;
const DEFAULT_FREETEXT_SIZE = 10;
/** Loose glyph extent per point of font size, as text-layer words measure it (pdf-chars.ts). */
const EXTENT = 1.15;
const ADVANCE = 0.5;

/**
 * Field text runs the way most of the page's own text runs (a form made on a turned page turns
 * its fields with it, /MK /R); on a page without text, as upright text turned by the page's
 * /Rotate (`pageQuarter`) would.
 */
export function annotationWords(texts: readonly AnnotationText[], pageWords: readonly PdfWord[], pageQuarter: number): PdfWord[] {
  if (texts.length === 0) return [];
  const quarter = mainDirection(pageWords) ?? pageQuarter;
  const words: PdfWord[] = [];
  for (const t of texts) {
    if (alreadyDrawn(t, pageWords)) continue;
    words.push(...placeText(t, quarter));
  }
  return words;
}

/** The text direction holding most of the page's characters, null without any. */
function mainDirection(words: readonly PdfWord[]): number | null {
  const chars = [0, 0, 0, 0];
  for (const w of words) chars[w.quarter & 3]! += w.text.length;
  const most = Math.max(...chars);
  return most === 0 ? null : chars.indexOf(most);
}

/**
 * The page's own words inside the rectangle already say the text. A value: the words there, run
 * together, contain it (case and spaces aside). An "off" mark: anything printed in the box (its
 * empty-box glyph). An "on" mark: a check or cross printed in the box; a printed empty box under
 * a checked field still gets ☒, or the page's text would say the box is empty.
 */
function alreadyDrawn(t: AnnotationText, pageWords: readonly PdfWord[]): boolean {
  const inside = pageWords.filter((w) => centreIn(w.bbox, t.rect));
  if (inside.length === 0) return false;
  if (t.mark) return t.text === UNCHECKED_MARK || inside.some((w) => CHECK_GLYPHS.test(w.text));
  const drawn = squash(inside.map((w) => w.text).join(''));
  return drawn.includes(squash(t.text));
}

/** What a box's "on" appearance prints: ticks, crosses, filled dots (ZapfDingbats a20, a22, l). */
const CHECK_GLYPHS = /^[\u2713-\u2718\u2611\u2612\u00d7xX\u25cf\u2022\u25c9]+$/u;

const squash = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, '');

function centreIn(b: BBox, r: BBox): boolean {
  const x = (b[0] + b[2]) / 2;
  const y = (b[1] + b[3]) / 2;
  return x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3];
}

/**
 * Lays the text out in the rectangle's own frame (u along the lines from their start, v across
 * them from the top of the text), then turns each box into display space.
 */
function placeText(t: AnnotationText, quarter: number): PdfWord[] {
  const [rx0, ry0, rx1, ry1] = t.rect;
  const sideways = quarter % 2 === 1;
  const [x0, y0, x1, y1] = sideways ? [0, 0, ry1 - ry0, rx1 - rx0] : [0, 0, rx1 - rx0, ry1 - ry0];
  const toDisplay = (u0: number, v0: number, u1: number, v1: number): BBox => {
    if (quarter === 1) return [rx1 - v1, ry0 + u0, rx1 - v0, ry0 + u1];
    if (quarter === 2) return [rx1 - u1, ry1 - v1, rx1 - u0, ry1 - v0];
    if (quarter === 3) return [rx0 + v0, ry1 - u1, rx0 + v1, ry1 - u0];
    return [rx0 + u0, ry0 + v0, rx0 + u1, ry0 + v1];
  };
  const inset = Math.min(INSET, (x1 - x0) / 4, (y1 - y0) / 4);
  const left = x0 + inset;
  const right = x1 - inset;
  const width = Math.max(right - left, 1);
  const boxHeight = Math.max(y1 - y0 - 2 * inset, 1);
  const nominal = t.fontSize ?? (t.multiline && !t.mark ? Math.min(DEFAULT_FREETEXT_SIZE, boxHeight / EXTENT) : Math.min(MAX_AUTO_SIZE, boxHeight / EXTENT));
  // A single line never spills above or below its box: the estimate shrinks to fit it.
  const size = t.multiline ? nominal : Math.min(nominal, boxHeight / EXTENT);
  const lineHeight = size * EXTENT;
  const lines = t.multiline ? wrap(t.text, width, size) : [t.text.split(' ')];
  const words: PdfWord[] = [];
  let y = t.multiline ? y0 + inset : (y0 + y1) / 2 - lineHeight / 2;
  for (const tokens of lines) {
    const natural = lineWidth(tokens, size * ADVANCE);
    // A line longer than the box (a single-line field scrolls) is squeezed into it.
    const advance = natural > width ? (size * ADVANCE * width) / natural : size * ADVANCE;
    const used = lineWidth(tokens, advance);
    let x = t.align === 1 ? left + (width - used) / 2 : t.align === 2 ? right - used : left;
    for (const token of tokens) {
      const w = token.length * advance;
      words.push({ text: token, bbox: toDisplay(x, y, x + w, y + lineHeight), confidence: 1, fontSize: lineHeight, bold: false, font: '', quarter, unmapped: 0 });
      x += w + advance;
    }
    y += lineHeight;
  }
  return words;
}

/** Width of words set `advance` apart per character and per space. */
const lineWidth = (tokens: readonly string[], advance: number) => (tokens.reduce((n, t) => n + t.length, 0) + Math.max(0, tokens.length - 1)) * advance;

/** Lines of words: hard breaks kept, soft breaks where the next word would pass the width. */
function wrap(text: string, width: number, size: number): string[][] {
  const lines: string[][] = [];
  const advance = size * ADVANCE;
  for (const hard of text.split('\n')) {
    let line: string[] = [];
    for (const token of hard.split(' ').filter((s) => s !== '')) {
      if (line.length > 0 && lineWidth([...line, token], advance) > width) {
        lines.push(line);
        line = [];
      }
      line.push(token);
    }
    if (line.length > 0) lines.push(line);
  }
  return lines;
}
