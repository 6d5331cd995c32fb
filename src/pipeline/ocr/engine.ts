// The shared half of every engine: decode the input, let the engine read pixels, map the result
// into page points. Engines only implement `read` (pixels in, pixel boxes out).
import { decodeImage } from './image.js';
import { pointsPerPixel, toPagePoints } from './geometry.js';
import type { OcrEngine, OcrEngineName, OcrImage, OcrPage, PixelPage, RasterImage, RecognizeOptions } from './types.js';

export interface ReadOptions {
  languages: string[];
  /** Resolution of the raster, when known (tesseract uses it to size its filters). */
  dpi?: number;
}

export interface PixelEngine {
  readonly name: OcrEngineName;
  /** Which implementation runs (e.g. `native 5.3.0`, `tesseract.js 7`, `onnxruntime`). */
  readonly backend: string;
  read(raster: RasterImage, opts: ReadOptions): Promise<PixelPage>;
  close(): Promise<void>;
}

/** Wraps a pixel engine as the public `OcrEngine`: no preprocessing, boxes in page points. */
export function asOcrEngine(engine: PixelEngine, defaultLanguages: () => string[]): OcrEngine {
  return {
    name: engine.name,
    async recognize(image: OcrImage, opts: RecognizeOptions = {}): Promise<OcrPage> {
      const { raster, density } = await decodeImage(image);
      const [kx, ky] = pointsPerPixel(raster.width, raster.height, opts, density);
      const dpi = opts.dpi ?? density ?? (opts.pageWidthPt ? (72 * raster.width) / opts.pageWidthPt : undefined);
      const px = await engine.read(raster, { languages: opts.languages?.length ? opts.languages : defaultLanguages(), dpi });
      return toPagePoints(
        px,
        { width: raster.width * kx, height: raster.height * ky, rotation: 0, map: (x, y) => [x * kx, y * ky] },
        engine.name,
        engine.backend,
      );
    },
    close: () => engine.close(),
  };
}
