// Pages without a usable text layer (scans, photos, glyph soup) → OCR words, handed to layout
// exactly like text-layer words, so entities and extraction work the same on scans.
//
// Pages are read one at a time (each engine serves one page at a time and is loaded once per
// worker thread), and across the process's threads no more at once than its OCR page permits
// (ocr/page-permits.ts), each under a time limit. A page that overruns it or whose engine fails is kept
// as `ocr_failed` and the document's other pages are not lost; only when no page of the document
// yields any text does the run fail with `ocr_failed`, naming the page(s) and why.
import { collectGarbageNow } from '../../lib/idle-heap.js';
import type { PageSource } from '../canonical/model.js';
import {
  type OcrDecision,
  type OcrPage,
  type OcrPageResult,
  type OcrPolicy,
  closeOcrEngines,
  isOcrError,
  ocrPage,
  readOcrPolicy,
} from '../ocr/index.js';
import { PageUnreadable, PipelineError, corruptDocument } from './errors.js';
import { type PageLoopOptions, checkAborted } from './progress.js';
import type { SourcePage } from './source-page.js';
import type { RemoteOcrOptions } from '../ocr/remote/engine.js';
import { acquireOcrPagePermit } from '../ocr/page-permits.js';
import { type ImageRegionRecord, readImageRegions } from './region-ocr.js';

/** Long enough for a dense 300 dpi page with both engines on a busy 2-core machine. */
export const DEFAULT_OCR_PAGE_TIMEOUT_MS = 120_000;
/**
 * Images of text-layer pages read per document at most, page by page: the letterheads and footers
 * that carry fields are few, where a report's charts and photos are many (each costs OCR time).
 */
export const MAX_IMAGES_READ_PER_DOCUMENT = 8;
/** PDF pages are rendered for OCR at this resolution (the engines' sweet spot for body text). */
export const OCR_RENDER_DPI = 300;

export interface OcrStageOptions {
  /** The tenant policy's OCR fields as stored (ocr_selection_mode, language_policy, …). */
  policy?: Parameters<typeof readOcrPolicy>[0];
  pageTimeoutMs?: number;
  /**
   * Judge mode: also produce a second, independent reading of every page: the other engine's
   * reading of an OCR page, an OCR of the rendered page for a text-layer page (it catches text
   * layers that do not say what the page shows). Pages of other sources have no second reading.
   */
  judge?: boolean;
  /** The remote OCR service in effect for the tenant (an `ocr` infrastructure endpoint), if any. */
  remote?: RemoteOcrOptions;
  /**
   * Also read the images of text-layer pages that may hold text (a letterhead or footer pasted in
   * as a picture) and add their words to the page (region-ocr.ts).
   */
  textInImages?: boolean;
}

/** Pixels of one page and how they map to the page's points. */
export interface PageRaster {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
  /** The page's size in points; pixels are scaled to it. */
  pageWidthPt: number;
  pageHeightPt: number;
  /** Resolution of the pixels (tesseract sizes its filters by it). */
  dpi?: number;
}

/** The per-page decision in the job result (`result.engine.ocr.pages`). */
export interface OcrPageRecord extends Omit<OcrDecision, 'engine_used'> {
  page_number: number;
  engine_used: OcrDecision['engine_used'];
  /** Which implementation of the winning engine ran (native tesseract, tesseract.js, onnxruntime). */
  backend: string | null;
  mean_confidence: number;
  words: number;
  preprocessing: OcrPageResult['preprocessing'];
  seconds: number;
}

export interface OcrFailedPage {
  page_number: number;
  reason: 'time_limit' | 'engine_failed' | 'image_unreadable' | 'language_unavailable' | 'page_unreadable';
  message: string;
}

export interface OcrReport {
  mode: OcrPolicy['ocr_selection_mode'];
  languages: string[];
  page_timeout_seconds: number;
  pages: OcrPageRecord[];
  failed_pages: OcrFailedPage[];
  /** Judge mode: where each page's second reading came from. */
  judge?: JudgeReading[];
  /** With `textInImages`: each image of a text-layer page that was read. */
  image_regions?: ImageRegionRecord[];
}

export interface JudgeReading {
  page_number: number;
  /** `same_source`: no independent reading exists (blank page); the judge sees the same text. */
  reading: PageSource | 'same_source';
}

class PageTimeLimit extends Error {}

/**
 * Pages given up on (time limit, cancel) whose work is still running: image decoding and
 * inference cannot be interrupted. The next page waits for them (bounded), so abandoned work does
 * not pile up, and a thread about to end waits too: ending a thread while a native addon
 * (sharp, onnxruntime) still works for it aborts the whole process.
 */
const abandoned = new Set<Promise<unknown>>();
/** Longest the next page waits for abandoned work (killed engines usually end within a second). */
const ABANDONED_WAIT_MS = 30_000;

/** Resolves once every abandoned page has settled, or after `maxMs`. */
export async function settleAbandonedOcr(maxMs = ABANDONED_WAIT_MS): Promise<void> {
  if (abandoned.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...abandoned]), new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)))]);
  clearTimeout(timer);
}

const OCR_SOURCE: Record<OcrDecision['engine_used'], PageSource> = { tesseract: 'ocr_tesseract', paddle: 'ocr_paddle', mixed: 'ocr_mixed', remote: 'ocr_remote' };

/** The text-layer pages whose images are read: in page order, while the document's allowance lasts. */
export function pagesWithImagesToRead(sources: readonly SourcePage[], allowance = MAX_IMAGES_READ_PER_DOCUMENT): Set<SourcePage> {
  const pages = new Set<SourcePage>();
  for (const s of sources) {
    const n = s.source === 'text_layer' ? (s.imageRegions?.length ?? 0) : 0;
    if (n > 0 && n <= allowance) {
      pages.add(s);
      allowance -= n;
    }
  }
  return pages;
}

/**
 * Fills every `needs_ocr` page of `sources` with OCR words (other pages pass through).
 * `rasterOf` supplies a page's pixels (a PDF render, an image frame).
 */
export async function ocrSourcePages(
  sources: readonly SourcePage[],
  rasterOf: (page: SourcePage) => Promise<PageRaster>,
  options: OcrStageOptions & PageLoopOptions,
): Promise<{ pages: SourcePage[]; judgePages: SourcePage[] | null; report: OcrReport | null }> {
  const needsWork = (s: SourcePage) => s.source === 'needs_ocr' || (options.judge === true && s.source === 'text_layer' && !s.blank);
  const imagePages = options.textInImages === true ? pagesWithImagesToRead(sources) : new Set<SourcePage>();
  const hasImageText = (s: SourcePage) => imagePages.has(s);
  const todo = sources.filter((s) => needsWork(s) || hasImageText(s));
  if (todo.length === 0) return { pages: [...sources], judgePages: options.judge ? [...sources] : null, report: null };
  const policy = readOcrPolicy(options.policy ?? {});
  const limitMs = options.pageTimeoutMs ?? DEFAULT_OCR_PAGE_TIMEOUT_MS;
  const report: OcrReport = {
    mode: policy.ocr_selection_mode,
    languages: policy.languages,
    page_timeout_seconds: Math.round(limitMs / 100) / 10,
    pages: [],
    failed_pages: [],
    ...(options.judge ? { judge: [] } : {}),
  };
  let done = sources.length - todo.length;
  options.onProgress?.(done, sources.length);
  const pages: SourcePage[] = [];
  const judgePages: SourcePage[] = [];
  for (const original of sources) {
    checkAborted(options.signal);
    const source = hasImageText(original) ? await withImageText(original, rasterOf, { policy, limitMs, signal: options.signal, remote: options.remote }, report) : original;
    if (!needsWork(source)) {
      pages.push(source);
      judgePages.push(source);
      report.judge?.push({ page_number: source.page_number, reading: 'same_source' });
      if (hasImageText(original)) options.onProgress?.(++done, sources.length);
      continue;
    }
    await settleAbandonedOcr();
    const started = performance.now();
    const textLayer = source.source === 'text_layer';
    const release = await takeOcrPagePermit(options.signal);
    try {
      // A text-layer page is read only for the judge: one engine suffices on a clean render.
      const pagePolicy = textLayer ? { ...policy, ocr_selection_mode: 'tesseract_priority' as const } : policy;
      const result = await readWithinLimit(
        async () => {
          const raster = await rasterOf(source);
          return ocrPage(raster, {
            policy: pagePolicy,
            pageWidthPt: raster.pageWidthPt,
            pageHeightPt: raster.pageHeightPt,
            ...(raster.dpi ? { dpi: raster.dpi } : {}),
            alternate: options.judge === true && !textLayer,
            ...(options.remote && !textLayer ? { remote: options.remote } : {}),
          });
        },
        release,
        limitMs,
        options.signal,
      );
      if (textLayer) {
        pages.push(source);
        judgePages.push(toSourcePage(source, result.page, result.decision.engine_used));
      } else {
        report.pages.push(record(source.page_number, result, (performance.now() - started) / 1000));
        pages.push(toSourcePage(source, result.page, result.decision.engine_used));
        if (result.alternate) judgePages.push(toSourcePage(source, result.alternate, result.alternate.source));
      }
      report.judge?.push({ page_number: source.page_number, reading: judgePages.at(-1)!.source });
    } catch (err) {
      checkAborted(options.signal);
      const failure = asFailedPage(source.page_number, err, limitMs);
      if (!failure) throw err;
      const failed: SourcePage = { page_number: source.page_number, width: source.width, height: source.height, rotation: source.rotation, source: 'ocr_failed' };
      if (textLayer) {
        // Only the judge's reading failed: the page keeps its text; the judge sees none.
        pages.push(source);
      } else {
        report.failed_pages.push(failure);
        pages.push(failed);
      }
      judgePages.push(failed);
      report.judge?.push({ page_number: source.page_number, reading: 'ocr_failed' });
    }
    options.onProgress?.(++done, sources.length);
  }
  if (report.failed_pages.length && !pages.some((p) => p.words?.length || p.blocks?.length)) {
    // No page could even be loaded: the file is broken, not hard to read.
    if (report.failed_pages.every((f) => f.reason === 'page_unreadable')) throw corruptDocument(`no page can be read: ${report.failed_pages[0]!.message}`);
    throw ocrFailed(report.failed_pages);
  }
  return { pages, judgePages: options.judge ? judgePages : null, report };
}

/**
 * A text-layer page with the words of its images added, read under an OCR page permit and the
 * page time limit like any OCR page. A failed reading leaves the page as its text layer has it:
 * the images' text is a bonus, never a reason to lose the page.
 */
async function withImageText(
  source: SourcePage,
  rasterOf: (page: SourcePage) => Promise<PageRaster>,
  { policy, limitMs, signal, remote }: { policy: OcrPolicy; limitMs: number; signal: AbortSignal | undefined; remote: RemoteOcrOptions | undefined },
  report: OcrReport,
): Promise<SourcePage> {
  await settleAbandonedOcr();
  const release = await takeOcrPagePermit(signal);
  try {
    const { page, records } = await readWithinLimit(async () => readImageRegions(source, await rasterOf(source), policy, remote), release, limitMs, signal);
    (report.image_regions ??= []).push(...records);
    return page;
  } catch (err) {
    checkAborted(signal);
    const failure = asFailedPage(source.page_number, err, limitMs);
    if (!failure) throw err;
    (report.image_regions ??= []).push(...(source.imageRegions ?? []).map((bbox) => ({ page_number: source.page_number, bbox, engine_used: 'none', words: 0, mean_confidence: 0, seconds: 0, failed: failure.message })));
    return source;
  }
}

function toSourcePage(source: SourcePage, page: OcrPage, engine: OcrPage['source']): SourcePage {
  return {
    page_number: source.page_number,
    // A quarter turn swaps the axes: the page is reported the way its text reads.
    width: page.width,
    height: page.height,
    rotation: (source.rotation + page.rotation * 90) % 360,
    source: OCR_SOURCE[engine],
    words: page.words.map((w) => ({ text: w.text, bbox: w.bbox, confidence: w.confidence })),
  };
}

function record(pageNumber: number, { page, decision, preprocessing }: OcrPageResult, seconds: number): OcrPageRecord {
  return {
    page_number: pageNumber,
    ...decision,
    backend: page.backend ?? null,
    mean_confidence: Math.round(page.mean_confidence * 1000) / 1000,
    words: page.words.length,
    preprocessing,
    seconds: Math.round(seconds * 100) / 100,
  };
}

/**
 * Takes one of the process's OCR page permits, waiting as long as it takes. Waiting is not the
 * page's time: its limit starts once it may be read.
 */
async function takeOcrPagePermit(signal: AbortSignal | undefined): Promise<() => void> {
  const release = await acquireOcrPagePermit(() => signal?.aborted === true);
  if (release) return release;
  // The wait is given up only when the run was aborted: checkAborted throws its reason.
  checkAborted(signal);
  throw new Error('the OCR page permit was refused without an abort');
}

/**
 * Runs `read` within the page time limit; its permit goes back when the reading settles, also one
 * abandoned. The page's rasters and tensors are garbage by then: collected before the permit goes
 * to the next page, they are not under that page's peak.
 */
function readWithinLimit<T>(read: () => Promise<T>, release: () => void, limitMs: number, signal: AbortSignal | undefined): Promise<T> {
  const reading = read();
  const settled = () => {
    collectGarbageNow();
    release();
  };
  void reading.then(settled, settled);
  return withinLimit(reading, limitMs, signal);
}

/**
 * Races the page against its time limit and the run's abort signal. On either, the engines are
 * dropped (a stuck tesseract process or WASM worker is ended; the next page loads fresh ones).
 */
async function withinLimit<T>(work: Promise<T>, limitMs: number, signal?: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PageTimeLimit()), limitMs);
  });
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, limit, aborted]);
  } catch (err) {
    if (err instanceof PageTimeLimit || signal?.aborted) {
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      abandoned.add(settled);
      void settled.finally(() => abandoned.delete(settled));
      void closeOcrEngines();
    }
    throw err;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** An OCR failure of one page, or null when the error is not OCR's (it fails the run as before). */
function asFailedPage(pageNumber: number, err: unknown, limitMs: number): OcrFailedPage | null {
  if (err instanceof PageTimeLimit) {
    return { page_number: pageNumber, reason: 'time_limit', message: `OCR did not finish within ${Math.round(limitMs / 1000)} s` };
  }
  if (isOcrError(err)) {
    const reason = err.code === 'ocr_language_unavailable' ? 'language_unavailable' : err.code === 'ocr_image_unreadable' ? 'image_unreadable' : 'engine_failed';
    return { page_number: pageNumber, reason, message: err.message };
  }
  if (err instanceof PageUnreadable) return { page_number: pageNumber, reason: 'page_unreadable', message: err.message };
  if (err instanceof PipelineError) return null;
  // Anything else thrown while an engine read the page (a crashed inference, a killed process).
  return { page_number: pageNumber, reason: 'engine_failed', message: `the OCR engine failed: ${(err as Error)?.message ?? String(err)}` };
}

function ocrFailed(failed: readonly OcrFailedPage[]): PipelineError {
  const first = failed[0]!;
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more page${failed.length > 2 ? 's' : ''})` : '';
  const advice =
    first.reason === 'language_unavailable'
      ? 'Change the tenant language_policy to shipped languages, then retry.'
      : first.reason === 'time_limit'
        ? 'Retry when the workers are less busy, or send a page_range or a smaller scan.'
        : 'Retry the job; if it fails again, send a cleaner scan and report the job id.';
  return new PipelineError('ocr_failed', `OCR failed on page ${first.page_number}${more}: ${first.message}. ${advice}`);
}
