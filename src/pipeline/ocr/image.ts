// Decoding OCR input into raw pixels with sharp (libvips), honouring EXIF orientation, and
// encoding raw pixels back to PNG for the tesseract backends (which read image files).
import sharp from 'sharp';
import { OcrError } from './errors.js';
import type { OcrImage, RasterImage } from './types.js';

/** 60 megapixels: a 300 dpi A1 sheet. Beyond that a page is refused rather than OOM a worker. */
export const MAX_OCR_PIXELS = 60_000_000;

export interface DecodedImage {
  raster: RasterImage;
  /** Density from the file (pixels per inch), when it states one. */
  density?: number;
}

/** Any input → grayscale or RGB raw pixels (alpha flattened onto white), upright per EXIF. */
export async function decodeImage(image: OcrImage): Promise<DecodedImage> {
  try {
    const input =
      image instanceof Uint8Array
        ? sharp(image, { pages: 1, limitInputPixels: MAX_OCR_PIXELS })
        : sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
    const meta = image instanceof Uint8Array ? await input.metadata() : undefined;
    const gray = meta ? meta.channels === 1 || meta.space === 'b-w' || meta.space === 'grey16' : image instanceof Uint8Array ? false : image.channels <= 2;
    let pipeline = input.rotate().flatten({ background: '#ffffff' });
    pipeline = gray ? pipeline.toColourspace('b-w') : pipeline.toColourspace('srgb').removeAlpha();
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
    const channels = info.channels === 1 ? 1 : 3;
    return {
      raster: { data, width: info.width, height: info.height, channels },
      density: meta?.density && meta.density > 0 ? meta.density : undefined,
    };
  } catch (err) {
    if (err instanceof OcrError) throw err;
    throw new OcrError('ocr_image_unreadable', `The image cannot be decoded for OCR: ${(err as Error).message}`);
  }
}

/** One channel of luminance, sharing the buffer when the raster is already grayscale. */
export function toGray(r: RasterImage): RasterImage {
  if (r.channels === 1) return r;
  const n = r.width * r.height;
  const out = Buffer.allocUnsafe(n);
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    out[i] = (r.data[j] * 77 + r.data[j + 1] * 150 + r.data[j + 2] * 29) >> 8;
  }
  return { data: out, width: r.width, height: r.height, channels: 1 };
}

export function toPng(r: RasterImage): Promise<Buffer> {
  return sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}
