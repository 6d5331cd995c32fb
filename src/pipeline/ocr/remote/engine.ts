// The remote OCR engine: a page image goes to the configured OCR service (protocol.ts) and its
// words come back grouped into lines, in the pixels of the image sent, like a local engine's.
import sharp from 'sharp';
import { guardOptionsFromConfig } from '../../../lib/ssrf-guard.js';
import { charWeightedConfidence, joinWords, overlap1d, unionBox } from '../geometry.js';
import type { OcrLine, OcrWord, PixelPage, RasterImage } from '../types.js';
import { type RemoteOcrEndpoint, recognizeRemote } from './protocol.js';

/** What a pipeline thread needs to call the service: plain data, so it crosses thread boundaries. */
export interface RemoteOcrOptions {
  endpoint: RemoteOcrEndpoint;
  /** QUIRE_ALLOW_PRIVATE_NETWORK and QUIRE_OUTBOUND_ALLOW of the process. */
  outbound: { allowPrivateNetwork: boolean; outboundAllow: string[] };
}

/** Words that share most of their height belong to one line, read left to right. */
export function groupIntoLines(words: readonly OcrWord[]): OcrLine[] {
  const sorted = [...words].filter((w) => w.text.trim() !== '').sort((a, b) => (a.bbox[1] + a.bbox[3]) / 2 - (b.bbox[1] + b.bbox[3]) / 2);
  const rows: OcrWord[][] = [];
  for (const word of sorted) {
    const h = word.bbox[3] - word.bbox[1];
    const row = rows.find((r) => {
      const box = unionBox(r.map((w) => w.bbox));
      return overlap1d(box[1], box[3], word.bbox[1], word.bbox[3]) >= 0.5 * Math.min(h, box[3] - box[1]);
    });
    if (row) row.push(word);
    else rows.push([word]);
  }
  return rows.map((row) => {
    const ordered = row.sort((a, b) => a.bbox[0] - b.bbox[0]);
    return { text: joinWords(ordered), bbox: unionBox(ordered.map((w) => w.bbox)), confidence: charWeightedConfidence(ordered), words: ordered };
  });
}

/** Reads one raster through the service. Boxes are scaled to the raster if the service answered in another size. */
export async function readRemote(raster: RasterImage, languages: string[], options: RemoteOcrOptions): Promise<PixelPage> {
  const png = await sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } }).png().toBuffer();
  const answer = await recognizeRemote(options.endpoint, png, languages, guardOptionsFromConfig(options.outbound));
  const sx = answer.width > 0 ? raster.width / answer.width : 1;
  const sy = answer.height > 0 ? raster.height / answer.height : 1;
  const words: OcrWord[] = answer.words.map((w) => ({ text: w.text, confidence: w.confidence, bbox: [w.bbox[0] * sx, w.bbox[1] * sy, w.bbox[2] * sx, w.bbox[3] * sy] }));
  return { width: raster.width, height: raster.height, lines: groupIntoLines(words) };
}
