// The OCR contract every engine meets, so selection compares like with like and the canonical
// model can take OCR words exactly like text-layer words.
//
// Coordinates: every bbox is [x0, y0, x1, y1] in PAGE POINTS (1/72 in) from the top-left corner of
// the page as it should be read (after orientation correction, see `OcrPage.rotation`).
// Confidence: a number in [0, 1] for every word and line (see confidence.ts for the scale).

export type BBox = [number, number, number, number];

export type OcrEngineName = 'tesseract' | 'paddle';

export interface OcrWord {
  text: string;
  bbox: BBox;
  confidence: number;
}

export interface OcrLine {
  text: string;
  bbox: BBox;
  confidence: number;
  words: OcrWord[];
}

export interface OcrPage {
  /** Page size in points, after orientation correction. */
  width: number;
  height: number;
  /** Clockwise quarter turns (0–3) applied to the input so the text reads upright. */
  rotation: 0 | 1 | 2 | 3;
  words: OcrWord[];
  lines: OcrLine[];
  /** Character-weighted mean of the word confidences; 0 for a page without words. */
  mean_confidence: number;
  /** Which engine produced the text (`tesseract`, `paddle`, `mixed` after confidence_based selection, or the `remote` OCR service). */
  source: OcrEngineName | 'mixed' | 'remote';
  /** `tesseract` reports which backend ran it: the native binary or tesseract.js (WASM). */
  backend?: string;
}

/** An image to recognise: encoded bytes (PNG, JPEG, TIFF, WebP) or raw pixels. */
export type OcrImage =
  | Uint8Array
  | { data: Uint8Array; width: number; height: number; channels: 1 | 2 | 3 | 4 };

export interface RecognizeOptions {
  /** Tesseract language codes (`eng`, `deu`, `fra`, `spa`); default `['eng']`. */
  languages?: string[];
  /**
   * Page size in points. When given, pixels map to points by pageWidthPt / imageWidth (the usual
   * case for rendered PDF pages); otherwise by 72 / dpi.
   */
  pageWidthPt?: number;
  pageHeightPt?: number;
  /** Image resolution; default: the image's own density, else 72 (one pixel = one point). */
  dpi?: number;
}

export interface OcrEngine {
  readonly name: OcrEngineName;
  recognize(image: OcrImage, opts?: RecognizeOptions): Promise<OcrPage>;
  /** Frees the worker, WASM instance or inference sessions. */
  close(): Promise<void>;
}

/** Pixels of a decoded image, in the orientation the engine should read. */
export interface RasterImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 3;
}

/** What an engine returns before the pixel → point mapping: bboxes in pixels of its input. */
export interface PixelPage {
  width: number;
  height: number;
  lines: OcrLine[];
}
