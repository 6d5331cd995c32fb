// Boxes, confidence averages and the pixel → page-point mapping shared by engines and selection.
import { unionBox } from '../layout/geometry.js';
import type { BBox, OcrLine, OcrPage, OcrWord, PixelPage } from './types.js';

export { unionBox };

export function joinWords(words: readonly OcrWord[]): string {
  return words.map((w) => w.text).join(' ');
}

/** Mean confidence weighted by character count, so a confident long word outweighs a stray mark. */
export function charWeightedConfidence(words: readonly OcrWord[]): number {
  let sum = 0;
  let n = 0;
  for (const w of words) {
    const len = Math.max(1, [...w.text].length);
    sum += w.confidence * len;
    n += len;
  }
  return n === 0 ? 0 : sum / n;
}

export function overlap1d(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

export function area(b: BBox): number {
  return Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
}

/** A point mapping from an engine's input pixels back to the output frame. */
export type PointMap = (x: number, y: number) => [number, number];

/** Maps a box through `map` (which may rotate), taking the axis-aligned hull of its corners. */
export function mapBox(b: BBox, map: PointMap): BBox {
  const pts = [map(b[0], b[1]), map(b[2], b[1]), map(b[2], b[3]), map(b[0], b[3])];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

function clampBox(b: BBox, w: number, h: number): BBox {
  const cx = (v: number) => Math.min(w, Math.max(0, v));
  const cy = (v: number) => Math.min(h, Math.max(0, v));
  const r = (v: number) => Math.round(v * 100) / 100;
  return [r(cx(b[0])), r(cy(b[1])), r(cx(b[2])), r(cy(b[3]))];
}

export interface PageFrame {
  /** Size in points of the page as read. */
  width: number;
  height: number;
  rotation: 0 | 1 | 2 | 3;
  /** Engine-input pixels → page points. */
  map: PointMap;
}

/** Maps a page in engine pixels into page points, clamping every box to the page. */
export function toPagePoints(px: PixelPage, frame: PageFrame, source: OcrPage['source'], backend?: string): OcrPage {
  const mapWord = (w: OcrWord): OcrWord => ({ ...w, bbox: clampBox(mapBox(w.bbox, frame.map), frame.width, frame.height) });
  const lines: OcrLine[] = px.lines
    .map((l) => {
      const words = l.words.map(mapWord).filter((w) => w.text.length > 0);
      return { text: joinWords(words), bbox: unionBox(words.map((w) => w.bbox)), confidence: charWeightedConfidence(words), words };
    })
    .filter((l) => l.words.length > 0);
  return finishPage(lines, frame.width, frame.height, frame.rotation, source, backend);
}

/** Builds a page from lines already in points, sorted top-to-bottom then left-to-right. */
export function finishPage(
  lines: OcrLine[],
  width: number,
  height: number,
  rotation: OcrPage['rotation'],
  source: OcrPage['source'],
  backend?: string,
): OcrPage {
  const sorted = [...lines].sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  const words = sorted.flatMap((l) => l.words);
  const page: OcrPage = {
    width,
    height,
    rotation,
    words,
    lines: sorted,
    mean_confidence: charWeightedConfidence(words),
    source,
  };
  if (backend) page.backend = backend;
  return page;
}

/**
 * Points per pixel on each axis of the image as given (before any rotation): the page size when
 * the caller knows it (a rendered PDF page), else 72 / dpi, else the image's density, else 1.
 */
export function pointsPerPixel(
  imgW: number,
  imgH: number,
  opts: { pageWidthPt?: number; pageHeightPt?: number; dpi?: number },
  density?: number,
): [number, number] {
  if (opts.pageWidthPt && opts.pageHeightPt) return [opts.pageWidthPt / imgW, opts.pageHeightPt / imgH];
  if (opts.pageWidthPt) return [opts.pageWidthPt / imgW, opts.pageWidthPt / imgW];
  if (opts.pageHeightPt) return [opts.pageHeightPt / imgH, opts.pageHeightPt / imgH];
  const dpi = opts.dpi && opts.dpi > 0 ? opts.dpi : density && density > 0 ? density : 72;
  return [72 / dpi, 72 / dpi];
}
