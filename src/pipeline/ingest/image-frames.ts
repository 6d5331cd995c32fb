// Image uploads (PNG, JPEG, TIFF, WebP), one frame at a time: raw pixels for OCR and PNG page
// images for the console. A multi-page TIFF is one page per frame; EXIF orientation is applied.
import sharp from 'sharp';
import { corruptDocument, resourceLimit } from './errors.js';

/** 60 megapixels: a 300 dpi A1 sheet. Beyond that a frame is refused rather than OOM a worker. */
const MAX_FRAME_PIXELS = 60_000_000;

export interface FrameRaster {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
  /** Pixels per inch the file states, when it states one. */
  density?: number;
}

/** The failure of a frame larger than a page may be: too big, not broken (its header says so before any pixel is decoded). */
export function oversizedFrame(width: number | undefined, height: number | undefined, index: number) {
  if (!width || !height || width * height <= MAX_FRAME_PIXELS) return null;
  return resourceLimit(`frame ${index + 1} of the image is ${width}×${height} pixels, over the ${MAX_FRAME_PIXELS / 1e6} megapixels one page may have; scale it down`);
}

const frame = (bytes: Uint8Array, index: number) => sharp(bytes, { page: index, pages: 1, limitInputPixels: MAX_FRAME_PIXELS });

/** Frame `index` (0-based) as upright RGB pixels, transparency flattened onto white. */
export async function imageFrameRgb(bytes: Uint8Array, index: number): Promise<FrameRaster> {
  const cannotDecode = (err: unknown) => corruptDocument(`frame ${index + 1} of the image cannot be decoded: ${(err as Error).message}`);
  // The header once: its size against the page limit (sharp's own limit would call it broken), its density for OCR.
  const meta = await sharp(bytes, { page: index, pages: 1, limitInputPixels: false })
    .metadata()
    .catch((err: unknown) => {
      throw cannotDecode(err);
    });
  const oversized = oversizedFrame(meta.width, meta.height, index);
  if (oversized) throw oversized;
  try {
    const { data, info } = await frame(bytes, index)
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const density = meta.density && meta.density > 0 ? meta.density : undefined;
    return { data, width: info.width, height: info.height, channels: 3, ...(density ? { density } : {}) };
  } catch (err) {
    throw cannotDecode(err);
  }
}

/**
 * Frame `index` as a PNG `widthPx` wide (the page's width at the console's dpi), turned
 * `quarterTurns` clockwise to match a page whose OCR corrected its orientation.
 */
export async function renderImageFramePng(bytes: Uint8Array, index: number, widthPx: number, quarterTurns = 0): Promise<Buffer> {
  const turned = (quarterTurns % 4) * 90;
  return frame(bytes, index)
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .rotate(turned)
    .resize({ width: Math.max(1, Math.round(widthPx)), withoutEnlargement: true })
    .png({ compressionLevel: 6 })
    .toBuffer();
}
