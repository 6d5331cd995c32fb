// The canonical document: one typed model that every later stage (entities, extraction, review,
// the console) reads. Field names follow the `result.canonical` shape in spec/decisions.md.
// Every bbox is [x0, y0, x1, y1] in page points (1/72 in) measured from the page's TOP-LEFT
// corner as displayed, i.e. after the page's /Rotate has been applied.

export type BBox = [number, number, number, number];

/**
 * Where a page's text came from.
 * - `text_layer`: the PDF's own text (digitally born).
 * - `needs_ocr`: no usable text layer (a scan, or glyphs without a Unicode mapping) and OCR was
 *   not asked for (the library's default; jobs always OCR). Never reported as an empty page.
 * - `ocr_tesseract`, `ocr_paddle`, `ocr_mixed`, `ocr_remote`: read by OCR; the engine whose reading was kept
 *   (`mixed`: confidence_based selection took line regions from both).
 * - `ocr_failed`: OCR of this page failed (time limit, engine crash); the page has no text and the
 *   job result's `engine.ocr.failed_pages` says why.
 * - `pptx`: slide or notes text read from the PPTX XML.
 * - `plain_text`: a UTF-8 text file.
 */
export type PageSource = 'text_layer' | 'needs_ocr' | 'ocr_tesseract' | 'ocr_paddle' | 'ocr_mixed' | 'ocr_remote' | 'ocr_failed' | 'pptx' | 'plain_text';

export interface Word {
  text: string;
  bbox: BBox;
  /** 1 for text read from a text layer; OCR supplies its own. */
  confidence: number;
  /** Font size in points (not serialised; layout uses it for headings). */
  fontSize?: number;
  bold?: boolean;
  /** Font name (not serialised; a change of font separates a heading from its paragraph). */
  font?: string;
}

export interface Line {
  text: string;
  bbox: BBox;
  words: Word[];
}

export type BlockType = 'heading' | 'paragraph' | 'list_item' | 'table' | 'notes';

export interface Block {
  type: BlockType;
  text: string;
  bbox: BBox;
  lines: Line[];
  confidence: number;
  /** Heading depth (1 = largest) when `type` is `heading`. */
  level?: number;
  /** Index into the page's `tables` when `type` is `table`. */
  table_index?: number;
}

export interface TableCell {
  row: number;
  col: number;
  row_span: number;
  col_span: number;
  text: string;
  bbox: BBox;
}

export interface Table {
  bbox: BBox;
  rows: number;
  cols: number;
  cells: TableCell[];
  /** `ruled`: cells from drawn lines; `unruled`: from column alignment; `native`: a PPTX table. */
  kind: 'ruled' | 'unruled' | 'native';
  confidence: number;
}

export interface KeyValue {
  key: string;
  value: string;
  key_bbox: BBox;
  value_bbox: BBox;
  confidence: number;
}

export interface Page {
  page_number: number;
  width: number;
  height: number;
  source: PageSource;
  /** Page /Rotate in degrees (0, 90, 180, 270); coordinates are already rotated. */
  rotation: number;
  blocks: Block[];
  tables: Table[];
  key_values: KeyValue[];
}

export type DocumentFormat = 'pdf' | 'pptx' | 'text' | 'png' | 'jpeg' | 'tiff' | 'webp';

export interface CanonicalDocument {
  format: DocumentFormat;
  /** Pages in the source document, before any page range or cap. */
  page_count: number;
  pages: Page[];
  text: string;
  markdown: string;
}
