// The OCR parts of the tenant policy, read from their stored free-form objects into typed settings
// with defaults. Unknown keys are ignored and a value of the wrong type falls back to its default,
// so an old or hand-edited policy never stops a job (docs/ocr.md lists every key).
import { SHIPPED_LANGUAGES } from './tesseract/languages.js';

export type OcrSelectionMode = 'tesseract_priority' | 'paddle_priority' | 'confidence_based';

export interface PreprocessingPolicy {
  /** Detect and correct 0/90/180/270° page orientation. */
  orientation: boolean;
  /** Straighten skewed scans. */
  deskew: boolean;
  /** Largest skew searched for, in degrees. */
  max_skew_degrees: number;
  /** Stretch the 1st–99th luminance percentiles to full range. */
  normalize_contrast: boolean;
  /** Otsu-binarise the tesseract input (paddle always reads grey/colour). */
  binarize: boolean;
  /** Enlarge pages whose text lines are short in pixels (low-resolution scans, photos). */
  upscale: boolean;
  /** Median text-line height (pixels) below which a page is enlarged. */
  min_line_height_px: number;
  /** Largest enlargement factor. */
  max_upscale: number;
}

export interface PaddleRiskPolicy {
  /** A page whose mean confidence is below this is doubtful: the other engine is consulted. */
  min_confidence: number;
  /** Treat pages that needed orientation correction or deskew beyond `max_skew_degrees` as risky. */
  rotated_text: boolean;
  rotated_skew_degrees: number;
  /** Treat low-contrast pages (ink-to-paper contrast below `low_contrast_spread`) as risky. */
  low_contrast: boolean;
  low_contrast_spread: number;
  /** Treat pages whose median text line is below `tiny_line_height_px` (original pixels) as risky. */
  tiny_glyphs: boolean;
  tiny_line_height_px: number;
}

export interface OcrPolicy {
  ocr_selection_mode: OcrSelectionMode;
  ocr_priority_margin: number;
  languages: string[];
  preprocessing: PreprocessingPolicy;
  paddle_risk: PaddleRiskPolicy;
}

export const PREPROCESSING_DEFAULTS: PreprocessingPolicy = {
  orientation: true,
  deskew: true,
  max_skew_degrees: 10,
  normalize_contrast: true,
  binarize: false,
  upscale: true,
  min_line_height_px: 40,
  max_upscale: 3,
};

export const PADDLE_RISK_DEFAULTS: PaddleRiskPolicy = {
  min_confidence: 0.8,
  rotated_text: true,
  rotated_skew_degrees: 3,
  low_contrast: true,
  low_contrast_spread: 0.35,
  tiny_glyphs: true,
  tiny_line_height_px: 14,
};

type Loose = Record<string, unknown> | null | undefined;

const bool = (v: unknown, d: boolean) => (typeof v === 'boolean' ? v : d);
const num = (v: unknown, d: number, lo: number, hi: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : d);

export function readPreprocessingPolicy(p: Loose): PreprocessingPolicy {
  const d = PREPROCESSING_DEFAULTS;
  return {
    orientation: bool(p?.orientation, d.orientation),
    deskew: bool(p?.deskew, d.deskew),
    max_skew_degrees: num(p?.max_skew_degrees, d.max_skew_degrees, 0, 30),
    normalize_contrast: bool(p?.normalize_contrast, d.normalize_contrast),
    binarize: bool(p?.binarize, d.binarize),
    upscale: bool(p?.upscale, d.upscale),
    min_line_height_px: num(p?.min_line_height_px, d.min_line_height_px, 0, 200),
    max_upscale: num(p?.max_upscale, d.max_upscale, 1, 4),
  };
}

export function readPaddleRiskPolicy(p: Loose): PaddleRiskPolicy {
  const d = PADDLE_RISK_DEFAULTS;
  return {
    min_confidence: num(p?.min_confidence, d.min_confidence, 0, 1),
    rotated_text: bool(p?.rotated_text, d.rotated_text),
    rotated_skew_degrees: num(p?.rotated_skew_degrees, d.rotated_skew_degrees, 0, 45),
    low_contrast: bool(p?.low_contrast, d.low_contrast),
    low_contrast_spread: num(p?.low_contrast_spread, d.low_contrast_spread, 0, 1),
    tiny_glyphs: bool(p?.tiny_glyphs, d.tiny_glyphs),
    tiny_line_height_px: num(p?.tiny_line_height_px, d.tiny_line_height_px, 0, 200),
  };
}

const ISO_TO_TESS: Record<string, string> = { en: 'eng', de: 'deu', fr: 'fra', es: 'spa', it: 'ita', pt: 'por', nl: 'nld' };

/**
 * `language_policy.ocr_languages` (or `languages`): tesseract codes or ISO 639-1 codes; default
 * English. Checked later against the installed data packages (a missing one is a clear error).
 */
export function readLanguages(p: Loose): string[] {
  const raw = p?.ocr_languages ?? p?.languages;
  const list = Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : typeof raw === 'string' ? raw.split(/[+,\s]+/) : [];
  const codes = list.map((c) => c.trim().toLowerCase()).filter(Boolean).map((c) => ISO_TO_TESS[c] ?? c);
  return codes.length ? [...new Set(codes)] : ['eng'];
}

export function readOcrPolicy(policy: {
  ocr_selection_mode?: unknown;
  ocr_priority_margin?: unknown;
  language_policy?: Loose;
  preprocessing_policy?: Loose;
  paddle_risk_policy?: Loose;
}): OcrPolicy {
  const mode = policy.ocr_selection_mode;
  return {
    ocr_selection_mode: mode === 'tesseract_priority' || mode === 'paddle_priority' || mode === 'confidence_based' ? mode : 'confidence_based',
    ocr_priority_margin: num(policy.ocr_priority_margin, 0.1, 0, 1),
    languages: readLanguages(policy.language_policy),
    preprocessing: readPreprocessingPolicy(policy.preprocessing_policy),
    paddle_risk: readPaddleRiskPolicy(policy.paddle_risk_policy),
  };
}

export { SHIPPED_LANGUAGES };

/**
 * Whether a run reads the text of images on text-layer pages (a letterhead or footer pasted in as
 * a picture): `layout_policy.read_text_in_images` when the tenant set it, else on for entities and
 * extraction runs, whose fields often sit in such images, and off for canonical runs, which then
 * cost no OCR on digital documents.
 */
export function readsTextInImages(layoutPolicy: unknown, mode: 'canonical' | 'entities' | 'extraction'): boolean {
  const set = layoutPolicy !== null && typeof layoutPolicy === 'object' ? (layoutPolicy as Record<string, unknown>).read_text_in_images : undefined;
  return typeof set === 'boolean' ? set : mode !== 'canonical';
}
