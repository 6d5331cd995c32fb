// OCR for one page image: decode → preprocess (policy) → select engine(s) (policy) → words and
// lines in page points, plus the decision record for the job result.
//
// Engines are created lazily once per worker (module state is per worker thread in Node) and
// reused for every page; `closeOcrEngines()` frees them when the worker stops. Call `ocrPage`
// from the pipeline's worker-thread pool: preprocessing and box decoding are synchronous JS.
import { asOcrEngine, type PixelEngine } from './engine.js';
import { toPagePoints, pointsPerPixel } from './geometry.js';
import { decodeImage } from './image.js';
import { PaddleEngine, type PaddleOptions } from './paddle/index.js';
import { type OcrPolicy, readOcrPolicy } from './policy.js';
import { preprocess } from './preprocess.js';
import { type OcrDecision, selectOcr } from './select.js';
import { createTesseract, type TesseractBackend } from './tesseract/index.js';
import { resolveLanguages } from './tesseract/languages.js';
import type { OcrEngine, OcrEngineName, OcrImage, OcrPage, PixelPage, RecognizeOptions } from './types.js';

export type { OcrEngine, OcrEngineName, OcrImage, OcrPage, OcrLine, OcrWord, RecognizeOptions, BBox } from './types.js';
export type { OcrDecision } from './select.js';
export type { OcrPolicy, OcrSelectionMode, PreprocessingPolicy, PaddleRiskPolicy } from './policy.js';
export { readOcrPolicy, PREPROCESSING_DEFAULTS, PADDLE_RISK_DEFAULTS } from './policy.js';
export { OcrError, isOcrError } from './errors.js';
export { SHIPPED_LANGUAGES } from './tesseract/languages.js';

export interface OcrEngineOptions {
  tesseract?: TesseractBackend;
  paddle?: PaddleOptions;
}

let engineOptions: OcrEngineOptions = {};
const engines: Partial<Record<OcrEngineName, PixelEngine>> = {};

/** Sets how engines are built (before first use; e.g. the bench forcing tesseract.js). */
export function configureOcrEngines(opts: OcrEngineOptions): void {
  engineOptions = opts;
}

function pixelEngine(name: OcrEngineName): PixelEngine {
  return (engines[name] ??= name === 'tesseract' ? createTesseract(engineOptions.tesseract) : new PaddleEngine(engineOptions.paddle));
}

/** The engine alone (no preprocessing, no selection), loaded once per worker. */
export function getOcrEngine(name: OcrEngineName): OcrEngine {
  return asOcrEngine(pixelEngine(name), () => ['eng']);
}

export async function closeOcrEngines(): Promise<void> {
  for (const name of ['tesseract', 'paddle'] as const) {
    const e = engines[name];
    delete engines[name];
    await e?.close();
  }
}

export interface OcrPageOptions extends RecognizeOptions {
  /** The tenant policy's OCR fields (as stored); defaults apply to anything missing. */
  policy?: Parameters<typeof readOcrPolicy>[0] | OcrPolicy;
  /**
   * Also return the reading of the engine whose text was not kept (judge mode compares the two),
   * running that engine when selection did not need it.
   */
  alternate?: boolean;
}

export interface OcrPreprocessingRecord {
  rotation_degrees: number;
  skew_degrees: number;
  upscale: number;
}

export interface OcrPageResult {
  page: OcrPage;
  decision: OcrDecision;
  preprocessing: OcrPreprocessingRecord;
  /** With `alternate`: the other engine's whole-page reading, in the same page frame. */
  alternate?: OcrPage;
}

function isOcrPolicy(p: unknown): p is OcrPolicy {
  return typeof p === 'object' && p !== null && 'preprocessing' in p && 'paddle_risk' in p;
}

/**
 * OCR one page image with preprocessing and engine selection. `languages` overrides the policy's
 * language_policy; a language without installed data fails with `ocr_language_unavailable`.
 */
export async function ocrPage(image: OcrImage, opts: OcrPageOptions = {}): Promise<OcrPageResult> {
  const policy = isOcrPolicy(opts.policy) ? opts.policy : readOcrPolicy(opts.policy ?? {});
  const languages = resolveLanguages(opts.languages?.length ? opts.languages : policy.languages);
  const { raster, density } = await decodeImage(image);
  const [kx0, ky0] = pointsPerPixel(raster.width, raster.height, opts, density);
  const dpi0 = opts.dpi ?? density ?? 72 / kx0;
  const paddle = pixelEngine('paddle');
  const prepared = await preprocess(raster, policy.preprocessing, paddle instanceof PaddleEngine ? paddle : undefined);
  const dpi = dpi0 * prepared.upscale;
  const { page: px, decision, readings } = await selectOcr({
    prepared,
    engines: { tesseract: pixelEngine('tesseract'), paddle: pixelEngine('paddle') },
    mode: policy.ocr_selection_mode,
    margin: policy.ocr_priority_margin,
    risk: policy.paddle_risk,
    languages,
    dpi,
  });
  // A quarter turn swaps which original axis each page axis measures.
  const [kx, ky] = prepared.quarters % 2 ? [ky0, kx0] : [kx0, ky0];
  const frame = {
    width: prepared.orientedWidth * kx,
    height: prepared.orientedHeight * ky,
    rotation: prepared.quarters,
    map: (x: number, y: number): [number, number] => {
      const [ox, oy] = prepared.toOriented(x, y);
      return [ox * kx, oy * ky];
    },
  };
  const inPoints = (pixels: PixelPage, engine: OcrEngineName | 'mixed') =>
    toPagePoints(pixels, frame, engine, engine === 'paddle' ? pixelEngine('paddle').backend : pixelEngine('tesseract').backend);
  const result: OcrPageResult = {
    page: inPoints(px, decision.engine_used),
    decision,
    preprocessing: { rotation_degrees: prepared.quarters * 90, skew_degrees: prepared.skew, upscale: Math.round(prepared.upscale * 100) / 100 },
  };
  if (opts.alternate) {
    const other = alternateEngine(decision);
    const pixels =
      readings[other] ??
      (await pixelEngine(other).read(other === 'tesseract' ? prepared.tesseract : prepared.paddle, { languages, dpi }));
    result.alternate = inPoints(pixels, other);
  }
  return result;
}

/** The engine whose reading was not kept; for a mixed page, the one with the lower page confidence. */
function alternateEngine(decision: OcrDecision): OcrEngineName {
  if (decision.engine_used === 'tesseract') return 'paddle';
  if (decision.engine_used === 'paddle') return 'tesseract';
  return (decision.confidences.tesseract ?? 0) < (decision.confidences.paddle ?? 0) ? 'tesseract' : 'paddle';
}
