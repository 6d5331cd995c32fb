// The messages between a worker loop and its pipeline thread (pipeline-thread.ts).
import type { EffectivePolicy } from '../domain/policy/policy.registry.js';
import type { JobFailureCode } from '../lib/errors.js';
import type { CanonicalJson, OcrReport, OcrStageOptions, UnreadablePage, UnreadablePart } from '../pipeline/index.js';
import type { Fingerprint, PreparedDocument } from '../pipeline/classify/index.js';
import type { Entity } from '../pipeline/entities/recognize.js';
import type { ExtractionOutput, ExtractionTemplate } from '../pipeline/extract/index.js';
import type { JudgeSummary } from '../pipeline/extract/judge.js';
import type { ModelAnswers, ModelExtractionOutput, Prepared, PreparedFields } from '../models/extraction/finish.js';

/**
 * The document: its bytes, or the path of a file the thread reads itself (a local blob store's).
 * A path spares the worker's event loop the read and the copy of the bytes into the thread.
 */
export type TaskSource = { bytes: Uint8Array; path?: never } | { path: string; bytes?: never };

export type PipelineTask = TaskSource & TaskOptions;

export interface TaskOptions {
  kind?: 'canonical';
  pageRange?: string;
  pdfMaxPages?: number;
  pageCapPolicy?: 'fail' | 'truncate';
  pptxNotesMode?: 'margin' | 'pages' | 'off';
  /** OCR of pages without a usable text layer and of images (the tenant's OCR policy). */
  ocr: OcrStageOptions | null;
  /** Page images for the console (PDF pages and image frames); null = none. */
  renderDpi: number | null;
}

export interface PipelineOutput {
  format: string;
  pageCount: number;
  /**
   * The canonical document as JSON text, serialised once, in the thread: it is stored as the
   * canonical_json artifact and spliced into the result as it is. Passing the object instead
   * cost a structured clone on each side, more than the serialisation itself.
   */
  canonicalText: string;
  /** What the worker reads without parsing canonicalText: the Markdown artifact, and each page's number and width (for its page image). */
  markdown: string;
  pages: { page_number: number; width: number }[];
  ocr: OcrReport | null;
  /** Pages whose part could not be read (PPTX slides), kept without text. */
  unreadable: UnreadablePage[];
  /** Parts the read pages lean on (PPTX layouts, masters, notes) that could not be read. */
  unreadableParts: UnreadablePart[];
  /** Judge mode: the document from each page's second reading. */
  judgeCanonical: CanonicalJson | null;
  images: { pageNumber: number; png: Uint8Array }[];
}

/**
 * The embedded entity and extraction stages of an `entities` or `extraction` job, on the canonical
 * document as stored JSON text: parsing it and walking every page is CPU work that would hold the
 * worker's event loop for seconds on a large document. Two shapes, one each side of classification
 * (which reads the database on the event loop):
 *  - no template: the entities, and the document prepared for classification when `classify` says so;
 *  - a template: its extraction (judged against `judgeCanonical` when given), and the fingerprint
 *    the job becomes an exemplar with;
 *  - a template and `model`: the model path's two steps around its calls (which wait on the network
 *    on the event loop): `prepare` builds the prompts; `finish` merges and grounds the answers, has
 *    the embedded extractor vote (and read `judgeCanonical`, the second reading, in judge mode
 *    without a judge model) and decides, then takes the fingerprint.
 */
export interface ExtractTask {
  kind: 'extract';
  canonicalText: string;
  format: string | null;
  policy: EffectivePolicy;
  classify: { draft: boolean } | null;
  template: ExtractionTemplate | null;
  judgeCanonical: CanonicalJson | null;
  model?: ModelStep;
}

export type ModelStep = { step: 'prepare'; imagePages: number[] } | { step: 'finish'; prep: PreparedFields; answers: ModelAnswers };

export interface ExtractOutput {
  /** Pages of the canonical document (a re-extraction learns it here). */
  pageCount: number;
  /** The entities (no template given). */
  entities: Entity[] | null;
  prepared: PreparedDocument | null;
  extraction: (ExtractionOutput & { judge?: JudgeSummary }) | null;
  /** The document's fingerprint with the extraction's entities, for the exemplar a completed job records. */
  exemplar: Fingerprint | null;
  /** The model path's prompts (step `prepare`). */
  modelPrep?: Prepared;
  /** The model path's settled extraction (step `finish`). */
  modelExtraction?: ModelExtractionOutput;
}

export type ThreadTask = PipelineTask | ExtractTask;

export type AbortKind = 'cancelled' | 'timeout';

export type ToThread =
  | { type: 'run'; id: number; task: ThreadTask }
  | { type: 'abort'; id: number; kind: AbortKind }
  /** Free the OCR engines (after any inference in flight), then answer `closed`. */
  | { type: 'close'; id: 0 };

export type FromThread =
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'done'; id: number; output: PipelineOutput | ExtractOutput; memoryBytes?: number }
  | { type: 'failed'; id: number; code: JobFailureCode; message: string; internal: boolean; pageCount?: number; memoryBytes?: number }
  /** A `close` was received: the thread's event loop is free (not stuck inside a parser). */
  | { type: 'closing'; id: 0 }
  | { type: 'closed'; id: 0 };

/** The tenant policy fields the OCR stage reads (docs/ocr.md). */
export function ocrPolicyOf(policy: EffectivePolicy): NonNullable<OcrStageOptions['policy']> {
  return {
    ocr_selection_mode: policy.ocr_selection_mode,
    ocr_priority_margin: policy.ocr_priority_margin,
    language_policy: policy.language_policy,
    preprocessing_policy: policy.preprocessing_policy,
    paddle_risk_policy: policy.paddle_risk_policy,
  };
}
