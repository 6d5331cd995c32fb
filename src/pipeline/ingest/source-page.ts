// What every reader (PDF, PPTX, text, image) hands to layout: one page with its size and either
// loose words to lay out (PDF) or blocks it already knows the structure of (PPTX, text).
import type { BBox, Block, KeyValue, PageSource, Table, Word } from '../canonical/model.js';
import type { RawRule } from '../layout/rules.js';

export interface SourcePage {
  page_number: number;
  width: number;
  height: number;
  rotation: number;
  source: PageSource;
  /** Nothing at all is drawn on the page. */
  blank?: boolean;
  /** Words to lay out (PDF text layer), with their text direction in quarter turns. */
  words?: Word[];
  quarters?: number[];
  rules?: RawRule[];
  /** Tops of the lines that start a block whatever their spacing (a text file's own line breaks). */
  blockStarts?: number[];
  /** Images of a text-layer page that may hold text the layer lacks (pdf/image-regions.ts), in points. */
  imageRegions?: BBox[];
  /** Structure known from the source format (PPTX shapes, text paragraphs): no layout needed. */
  blocks?: Block[];
  tables?: Table[];
  key_values?: KeyValue[];
}
