// tesseract.js (Tesseract compiled to WASM in a worker thread), offline only: the language data
// is read from the unpacked npm models (`langPath` and `cachePath` point at them; `cacheMethod:
// 'readOnly'` so it never writes `eng.traineddata` into the working directory), and an
// `errorHandler` is set because without one tesseract.js throws from its message handler and
// takes the process down.
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Worker as Thread } from 'node:worker_threads';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { releaseFreedNativeMemory } from '../../../lib/native-heap.js';
import { OcrError } from '../errors.js';
import type { PixelEngine, ReadOptions } from '../engine.js';
import { toPng } from '../image.js';
import { Serial } from '../serial.js';
import type { PixelPage, RasterImage } from '../types.js';
import { bandRaster, bandsOf, joinBands } from './bands.js';
import { nativeTessdataDir, resolveLanguages } from './languages.js';
import { parseTsv } from './tsv.js';

/**
 * A page larger than this is read in horizontal bands of at most this many pixels, cut between
 * text lines (bands.ts), so the worker's memory grows by what a band needs, not a whole page:
 * tesseract.js's WebAssembly memory grows with the largest image read and never shrinks
 * (measured: 50 MB more after a 1-megapixel image, 150 MB after 8, 270 MB after 15).
 */
export const BAND_PIXELS = 3_000_000;

/** How long a close waits for the worker's thread to exit (it takes about 20 ms). */
const EXIT_WAIT_MS = 5_000;

export interface TesseractWasmOptions {
  /** Largest band read at once; `Infinity` reads every page whole. */
  bandPixels?: number;
}

/**
 * Each page is read by a tesseract.js worker of its own, ended once the page is read: a worker
 * holds 60 MB with its model loaded and more after reading, and kept between pages it sat under
 * the paddle detector's peak on the same page and in threads not reading at all (part 4 of the
 * service bench: peak 859 → 695 MB). A worker starts in about 0.25 s and its first reading runs
 * about 0.2 s slower, colder code: about 10 % of a scan-heavy run's time (docs/performance.md).
 */
export class TesseractWasm implements PixelEngine {
  readonly name = 'tesseract' as const;
  readonly backend = 'tesseract.js';
  private worker?: Promise<Worker>;
  /** Resolves once the worker's thread has exited (tesseract.js's `terminate` does not wait). */
  private exited?: Promise<unknown>;
  private readonly serial = new Serial();
  private lastError = '';
  private readonly bandPixels: number;
  /** Fails the reading in flight: tesseract.js's `terminate` drops its pending jobs unsettled. */
  private endReading?: (err: Error) => void;

  constructor(opts: TesseractWasmOptions = {}) {
    this.bandPixels = opts.bandPixels ?? BAND_PIXELS;
  }

  read(raster: RasterImage, opts: ReadOptions): Promise<PixelPage> {
    const languages = resolveLanguages(opts.languages);
    return this.serial.run(async () => {
      // Each step races the worker's end, so a close mid-page (a cancel, a time limit, shutdown)
      // fails this reading at once and nothing more is sent to the ended worker.
      const ended = new Promise<never>((_, reject) => (this.endReading = reject));
      ended.catch(() => undefined);
      const untilEnded = <T>(step: Promise<T>): Promise<T> => Promise.race([step, ended]);
      try {
        const worker = await untilEnded(this.start(languages));
        await untilEnded(
          worker.setParameters({
            tessedit_pageseg_mode: PSM.AUTO,
            user_defined_dpi: String(Math.round(Math.min(1200, Math.max(70, opts.dpi ?? 300)))),
            // Tesseract's diagnostics ("Detected 35 diacritics") would go to the worker process's
            // stderr, around the structured log; they say nothing a user can act on. (Leptonica's
            // own box warnings still print: tesseract.js has no switch for them.)
            debug_file: '/dev/null',
          }),
        );
        const readings = [];
        for (const band of bandsOf(raster, this.bandPixels)) {
          const part = bandRaster(raster, band);
          const png = await untilEnded(toPng(part));
          const { data } = await untilEnded(worker.recognize(png, {}, { text: false, tsv: true }));
          readings.push({ band, page: parseTsv(data.tsv ?? '', part.width, part.height) });
        }
        return joinBands(raster.width, raster.height, readings);
      } catch (err) {
        if (err instanceof OcrError) throw err;
        throw new OcrError('ocr_engine_failed', `tesseract.js failed to read the page: ${String(err)} ${this.lastError}`.trim());
      } finally {
        this.endReading = undefined;
        await this.close();
      }
    });
  }

  private async start(languages: string[]): Promise<Worker> {
    const dir = await nativeTessdataDir(languages);
    this.lastError = '';
    // tesseract.js spawns its thread synchronously inside createWorker, and Node announces every
    // new thread on the next tick: the one announced now is this worker's.
    let announced: (thread: Thread) => void = () => undefined;
    this.exited = new Promise<Thread>((resolve) => process.once('worker', (announced = resolve))).then((thread) =>
      thread.threadId === -1 ? undefined : once(thread, 'exit').catch(() => undefined),
    );
    this.worker = createWorker(languages.join('+'), OEM.LSTM_ONLY, {
      langPath: dir,
      cachePath: dir,
      cacheMethod: 'readOnly',
      gzip: false,
      errorHandler: (e: unknown) => {
        this.lastError = String(e);
      },
    }).catch((err: unknown) => {
      // No worker to end, and no thread to wait for: an unrelated one must not be taken for it.
      process.removeListener('worker', announced);
      this.exited = undefined;
      throw new OcrError('ocr_engine_failed', `tesseract.js could not start: ${String(err)}`);
    });
    return this.worker;
  }

  /** Whether a tesseract.js worker is started (and holding its memory). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    this.endReading?.(new OcrError('ocr_engine_failed', 'tesseract.js was ended while it read the page.'));
    this.endReading = undefined;
    const w = this.worker;
    const exited = this.exited;
    this.worker = undefined;
    this.exited = undefined;
    if (!w) return;
    await (await w.catch(() => undefined))?.terminate();
    // The thread's memory goes back once it has exited: its WebAssembly memory at once, what it
    // left in the C allocator's arenas when they are trimmed. Tesseract reads a page before paddle
    // does, so that is 40–90 MB off the detector's peak (docs/performance.md). The wait is
    // bounded: should another thread ever be taken for this worker's, a close must not hang on it.
    await Promise.race([exited, delay(EXIT_WAIT_MS, undefined, { ref: false })]);
    releaseFreedNativeMemory();
  }
}
