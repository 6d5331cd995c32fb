// Reads the text of the images on a text-layer page (pdf/image-regions.ts found them) and adds
// it to the page's words, so a letterhead or footer pasted in as a picture counts like printed
// text: entities and template fields find the issuer's IBAN or VAT number in it. The page keeps
// its text layer and its `text_layer` source; the OCR words keep their own confidences.
import type { BBox, Word } from '../canonical/model.js';
import { centerX, centerY, contains } from '../layout/geometry.js';
import { type OcrPolicy, ocrPage } from '../ocr/index.js';
import type { PageRaster } from './ocr-pages.js';
import type { RemoteOcrOptions } from '../ocr/remote/engine.js';
import type { SourcePage } from './source-page.js';

/** Points added around an image: glyphs at its edge are cut otherwise. */
const MARGIN_PT = 3;

/** One image read (`result.engine.ocr.image_regions`). */
export interface ImageRegionRecord {
  page_number: number;
  bbox: BBox;
  engine_used: string;
  words: number;
  mean_confidence: number;
  seconds: number;
  /** Why the page's images could not be read (time limit, engine failure); their text is missing. */
  failed?: string;
}

/**
 * The page with the words read in its image regions, and a record per region. A region whose
 * reading comes back turned (orientation correction found its text sideways) is left out: a
 * picture's sideways caption is rarely a field, and its words would need another frame.
 */
export async function readImageRegions(source: SourcePage, raster: PageRaster, policy: OcrPolicy, remote?: RemoteOcrOptions): Promise<{ page: SourcePage; records: ImageRegionRecord[] }> {
  const regionPolicy: OcrPolicy = { ...policy, preprocessing: { ...policy.preprocessing, orientation: false, deskew: false } };
  const words = [...(source.words ?? [])];
  const records: ImageRegionRecord[] = [];
  for (const region of source.imageRegions ?? []) {
    const started = performance.now();
    const crop = cropRaster(raster, region);
    if (!crop) continue;
    const { page, decision } = await ocrPage(crop.raster, {
      policy: regionPolicy,
      pageWidthPt: crop.raster.pageWidthPt,
      pageHeightPt: crop.raster.pageHeightPt,
      ...(raster.dpi ? { dpi: raster.dpi } : {}),
      // A tenant's remote OCR service reads these pixels too, as it reads its scans.
      ...(remote ? { remote } : {}),
    });
    if (page.rotation !== 0) continue;
    let added = 0;
    for (const w of page.words) {
      const bbox: BBox = [w.bbox[0] + crop.x0, w.bbox[1] + crop.y0, w.bbox[2] + crop.x0, w.bbox[3] + crop.y0];
      if (!w.text.trim() || overlapsText(bbox, source.words ?? [])) continue;
      words.push({ text: w.text, bbox, confidence: w.confidence });
      added++;
    }
    records.push({
      page_number: source.page_number,
      bbox: region.map((v) => Math.round(v * 10) / 10) as BBox,
      engine_used: decision.engine_used,
      words: added,
      mean_confidence: Math.round(page.mean_confidence * 1000) / 1000,
      seconds: Math.round((performance.now() - started) / 10) / 100,
    });
  }
  // Text-layer words carry their text direction; OCR words read upright.
  const quarters = source.quarters ? [...source.quarters, ...new Array<number>(words.length - source.quarters.length).fill(0)] : undefined;
  return { page: { ...source, words, ...(quarters ? { quarters } : {}) }, records };
}

/** The pixels of `box` (points) with a small margin, as a raster of its own, and its origin in points. */
function cropRaster(raster: PageRaster, box: BBox): { raster: PageRaster; x0: number; y0: number } | null {
  const sx = raster.width / raster.pageWidthPt;
  const sy = raster.height / raster.pageHeightPt;
  const left = Math.max(0, Math.floor((box[0] - MARGIN_PT) * sx));
  const top = Math.max(0, Math.floor((box[1] - MARGIN_PT) * sy));
  const right = Math.min(raster.width, Math.ceil((box[2] + MARGIN_PT) * sx));
  const bottom = Math.min(raster.height, Math.ceil((box[3] + MARGIN_PT) * sy));
  const width = right - left;
  const height = bottom - top;
  if (width < 8 || height < 8) return null;
  const data = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * raster.width + left) * 3;
    raster.data.copy(data, y * width * 3, from, from + width * 3);
  }
  return {
    raster: { data, width, height, channels: 3, pageWidthPt: width / sx, pageHeightPt: height / sy, ...(raster.dpi ? { dpi: raster.dpi } : {}) },
    x0: left / sx,
    y0: top / sy,
  };
}

/** The centre of `box` lies inside a word the text layer already has. */
function overlapsText(box: BBox, words: readonly Word[]): boolean {
  const cx = centerX(box);
  const cy = centerY(box);
  return words.some((w) => contains(w.bbox, cx, cy));
}
