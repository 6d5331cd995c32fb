// OCR for one page image: decode → preprocess (policy) → select engine(s) (policy) → words and
// lines in page points, plus the decision record for the job result.
//
// Engines are created lazily once per worker (module state is per worker thread in Node) and
// reused for every page; `closeOcrEngines()` frees them when the worker stops. Call `ocrPage`
// from the pipeline's worker-thread pool: preprocessing and box decoding are synchronous JS.
import { collectGarbageNow } from '../../lib/idle-heap.js';
import { asOcrEngine, type PixelEngine } from './engine.js';
import { charWeightedConfidence, toPagePoints, pointsPerPixel } from './geometry.js';
import { decodeImage } from './image.js';
import { PaddleEngine, type PaddleOptions } from './paddle/index.js';
import { type OcrPolicy, readOcrPolicy } from './policy.js';
import { preprocess } from './preprocess.js';
import { readRemote, type RemoteOcrOptions } from './remote/engine.js';
import { type OcrDecision, riskSignals, selectOcr } from './select.js';
import { createTesseract, type TesseractBackend } from './tesseract/index.js';
import { resolveLanguages } from './tesseract/languages.js';
import type { OcrEngine, OcrEngineName, OcrImage, OcrPage, PixelPage, RecognizeOptions } from './types.js';

export type { OcrEngine, OcrEngineName, OcrImage, OcrPage, OcrLine, OcrWord, RecognizeOptions, BBox } from './types.js';
export type { OcrDecision } from './select.js';
export type { OcrPolicy, OcrSelectionMode, PreprocessingPolicy, PaddleRiskPolicy } from './policy.js';
export { readOcrPolicy, readsTextInImages, PREPROCESSING_DEFAULTS, PADDLE_RISK_DEFAULTS } from './policy.js';
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
  /** The remote OCR service, when one is in effect: it reads first (see `withRemote`). */
  remote?: RemoteOcrOptions;
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
  // Reading a page peaks at a few hundred MB for a few seconds (preprocessing's rasters, then the
  // detector's feature maps). Garbage with native backing stores, left by the work before it and
  // then by preprocessing, is freed only when V8 next collects: collected first, it is not under
  // that peak (about 140 MB lower on the page bench, docs/performance.md). Tens of milliseconds
  // against the seconds a page takes.
  collectGarbageNow();
  const { raster, density } = await decodeImage(image);
  const [kx0, ky0] = pointsPerPixel(raster.width, raster.height, opts, density);
  const dpi0 = opts.dpi ?? density ?? 72 / kx0;
  const paddle = pixelEngine('paddle');
  const prepared = await preprocess(raster, policy.preprocessing, paddle instanceof PaddleEngine ? paddle : undefined);
  collectGarbageNow();
  const dpi = dpi0 * prepared.upscale;
  const local = () =>
    selectOcr({
      prepared,
      engines: { tesseract: pixelEngine('tesseract'), paddle: pixelEngine('paddle') },
      mode: policy.ocr_selection_mode,
      margin: policy.ocr_priority_margin,
      risk: policy.paddle_risk,
      languages,
      dpi,
    });
  const { page: px, decision, readings } = opts.remote ? await withRemote(opts.remote, prepared, policy, languages, local) : await local();
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
  const inPoints = (pixels: PixelPage, engine: OcrEngineName | 'mixed' | 'remote') =>
    toPagePoints(pixels, frame, engine, engine === 'remote' ? 'remote' : engine === 'paddle' ? pixelEngine('paddle').backend : pixelEngine('tesseract').backend);
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
  if (decision.engine_used === 'remote') return policyPriority(decision.mode);
  if (decision.engine_used === 'tesseract') return 'paddle';
  if (decision.engine_used === 'paddle') return 'tesseract';
  return (decision.confidences.tesseract ?? 0) < (decision.confidences.paddle ?? 0) ? 'tesseract' : 'paddle';
}

function policyPriority(mode: OcrDecision['mode']): OcrEngineName {
  return mode === 'paddle_priority' ? 'paddle' : 'tesseract';
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;
const pixelConfidence = (p: PixelPage) => charWeightedConfidence(p.lines.flatMap((l) => l.words));

/**
 * With a remote OCR service in effect it reads first, in every selection mode: a confident
 * reading (mean confidence at least paddle_risk_policy.min_confidence) of a page without risk
 * signals is kept as it is. Otherwise the mode selects among the local engines as usual, and the
 * remote reading still wins when it is more confident by more than ocr_priority_margin. A service
 * that fails leaves the page to the local engines, and the decision says why.
 */
async function withRemote(
  remote: RemoteOcrOptions,
  prepared: Awaited<ReturnType<typeof preprocess>>,
  policy: OcrPolicy,
  languages: string[],
  local: () => ReturnType<typeof selectOcr>,
): ReturnType<typeof selectOcr> {
  let reading: PixelPage | null = null;
  let failure: string | null = null;
  try {
    reading = await readRemote(prepared.paddle, languages, remote);
  } catch (err) {
    failure = (err as Error).message;
  }
  const risks = riskSignals(prepared, policy.paddle_risk);
  const c = reading ? pixelConfidence(reading) : 0;
  const min = policy.paddle_risk.min_confidence;
  if (reading && reading.lines.length > 0 && c >= min && risks.length === 0) {
    return {
      page: reading,
      readings: {},
      decision: { mode: policy.ocr_selection_mode, engine_used: 'remote', confidences: { tesseract: null, paddle: null, remote: round3(c) }, reason: `remote OCR service confident (${c.toFixed(2)} ≥ ${min.toFixed(2)}) and no risk signals`, risks },
    };
  }
  const selected = await local();
  if (!reading) {
    return { ...selected, decision: { ...selected.decision, confidences: { ...selected.decision.confidences, remote: null }, reason: `the remote OCR service failed (${failure}); ${selected.decision.reason}` } };
  }
  const cl = pixelConfidence(selected.page);
  const confidences = { ...selected.decision.confidences, remote: round3(c) };
  if (c > cl + policy.ocr_priority_margin) {
    return {
      page: reading,
      readings: selected.readings,
      decision: { ...selected.decision, engine_used: 'remote', confidences, reason: `remote OCR service doubtful (${c.toFixed(2)}${risks.length ? `, ${risks.join(', ')}` : ''}) but more confident than the local reading by more than ${policy.ocr_priority_margin.toFixed(2)} (${cl.toFixed(2)})` },
    };
  }
  return { ...selected, decision: { ...selected.decision, confidences, reason: `remote OCR service doubtful (${c.toFixed(2)}); ${selected.decision.reason}` } };
}
