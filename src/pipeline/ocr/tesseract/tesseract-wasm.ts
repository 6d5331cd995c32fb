// tesseract.js (Tesseract compiled to WASM in a worker thread), offline only: the language data
// is read from the unpacked npm models (`langPath` and `cachePath` point at them; `cacheMethod:
// 'readOnly'` so it never writes `eng.traineddata` into the working directory), and an
// `errorHandler` is set because without one tesseract.js throws from its message handler and
// takes the process down.
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { OcrError } from '../errors.js';
import type { PixelEngine, ReadOptions } from '../engine.js';
import { toPng } from '../image.js';
import { Serial } from '../serial.js';
import type { PixelPage, RasterImage } from '../types.js';
import { bandRaster, bandsOf, joinBands } from './bands.js';
import { nativeTessdataDir, resolveLanguages } from './languages.js';
import { parseTsv } from './tsv.js';

/**
 * After reading a page larger than this, the worker is ended and the next page starts a new one
 * (about 0.3 s). tesseract.js's WebAssembly memory grows with the largest page read and never
 * shrinks (measured: 50 MB more after a 1-megapixel page, 150 MB after 8, 270 MB after 15); an
 * engine kept loaded in a thread that is not reading would hold it.
 */
export const RECYCLE_AFTER_PIXELS = 6_000_000;

/**
 * A page larger than this is read in horizontal bands of at most this many pixels, cut between
 * text lines (bands.ts), so the worker's memory grows by what a band needs, not a whole page.
 */
export const BAND_PIXELS = 3_000_000;

export interface TesseractWasmOptions {
  /** Largest band read at once; `Infinity` reads every page whole. */
  bandPixels?: number;
}

export class TesseractWasm implements PixelEngine {
  readonly name = 'tesseract' as const;
  readonly backend = 'tesseract.js';
  private worker?: Promise<Worker>;
  private loaded = '';
  private readonly serial = new Serial();
  private lastError = '';
  private readonly bandPixels: number;

  constructor(opts: TesseractWasmOptions = {}) {
    this.bandPixels = opts.bandPixels ?? BAND_PIXELS;
  }

  read(raster: RasterImage, opts: ReadOptions): Promise<PixelPage> {
    const languages = resolveLanguages(opts.languages);
    return this.serial.run(async () => {
      const worker = await this.ready(languages);
      await worker.setParameters({
        tessedit_pageseg_mode: PSM.AUTO,
        user_defined_dpi: String(Math.round(Math.min(1200, Math.max(70, opts.dpi ?? 300)))),
        // Tesseract's diagnostics ("Detected 35 diacritics") would go to the worker process's
        // stderr, around the structured log; they say nothing a user can act on. (Leptonica's own
        // box warnings still print: tesseract.js has no switch for them.)
        debug_file: '/dev/null',
      });
      const bands = bandsOf(raster, this.bandPixels);
      try {
        const readings = [];
        for (const band of bands) {
          const part = bandRaster(raster, band);
          const { data } = await worker.recognize(await toPng(part), {}, { text: false, tsv: true });
          readings.push({ band, page: parseTsv(data.tsv ?? '', part.width, part.height) });
        }
        return joinBands(raster.width, raster.height, readings);
      } catch (err) {
        throw new OcrError('ocr_engine_failed', `tesseract.js failed to read the page: ${String(err)} ${this.lastError}`.trim());
      } finally {
        if (Math.max(...bands.map((b) => b.bottom - b.top)) * raster.width > RECYCLE_AFTER_PIXELS) await this.close();
      }
    });
  }

  private async ready(languages: string[]): Promise<Worker> {
    const key = languages.join('+');
    const dir = await nativeTessdataDir(languages);
    if (!this.worker) {
      this.loaded = key;
      this.worker = createWorker(key, OEM.LSTM_ONLY, {
        langPath: dir,
        cachePath: dir,
        cacheMethod: 'readOnly',
        gzip: false,
        errorHandler: (e: unknown) => {
          this.lastError = String(e);
        },
      }).catch((err: unknown) => {
        this.worker = undefined;
        throw new OcrError('ocr_engine_failed', `tesseract.js could not start: ${String(err)}`);
      });
      return this.worker;
    }
    const worker = await this.worker;
    if (this.loaded !== key) {
      await worker.reinitialize(key, OEM.LSTM_ONLY);
      this.loaded = key;
    }
    return worker;
  }

  /** Whether a tesseract.js worker is started (and holding its memory). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w.catch(() => undefined))?.terminate();
  }
}
