// The `result` of a finished job (decisions.md "Documents (jobs)"): the canonical document, then
// per processing mode the recognised entities and the template extraction. Nothing is made up:
// no `entities` or `extraction` key appears without a real stage behind it, and what Quire did
// not do (judge mode on a re-extraction) is said plainly in `engine.unavailable`.
import type { Job } from '../db/documents-schema.js';
import type { CanonicalJson, OcrReport, UnreadablePage, UnreadablePart } from '../pipeline/index.js';
import type { ExtractionResult } from '../pipeline/extract/index.js';
import { VERSION } from '../version.js';

export interface RunFacts {
  format: string | null;
  pagesProcessed: number;
  pageCount: number | null;
  pageImages: number;
  /** Re-extraction reused the stored canonical output instead of reading the file. */
  reusedCanonical: boolean;
  /** How the OCR stage went (per-page engine decisions, failed pages); null when no page needed it. */
  ocr?: OcrReport | null;
  /** Pages kept without text because their part could not be read (PPTX slides). */
  unreadable?: UnreadablePage[];
  /** Parts the read pages lean on (PPTX layouts, masters, notes) that could not be read. */
  unreadableParts?: UnreadablePart[];
}

/** How a stored canonical output was read (jobs.reading), as result.engine names it. */
export interface Reading {
  ocr?: OcrReport | null;
  unreadable_pages?: UnreadablePage[] | null;
  unreadable_parts?: UnreadablePart[] | null;
}

/**
 * What a full run stores about its reading for the re-extractions that reuse its canonical output;
 * null when there is nothing to say. The OCR report's judge readings are left out: the second
 * readings are not stored, and a re-extraction says the judge is unavailable.
 */
export function readingOf(facts: Pick<RunFacts, 'ocr' | 'unreadable' | 'unreadableParts'>): Reading | null {
  const reading: Reading = {};
  if (facts.ocr) {
    const { judge: _judge, ...ocr } = facts.ocr;
    reading.ocr = ocr;
  }
  if (facts.unreadable?.length) reading.unreadable_pages = facts.unreadable;
  if (facts.unreadableParts?.length) reading.unreadable_parts = facts.unreadableParts;
  return Object.keys(reading).length ? reading : null;
}

/** The run facts a re-extraction repeats from the stored reading (none when it is null). */
export function factsOfReading(reading: Reading | null | undefined): Required<Pick<RunFacts, 'ocr' | 'unreadable' | 'unreadableParts'>> {
  return { ocr: reading?.ocr ?? null, unreadable: reading?.unreadable_pages ?? [], unreadableParts: reading?.unreadable_parts ?? [] };
}

/** What the entity and extraction stages produced (see run-job.ts extractStage). */
export interface StageOutput {
  entities?: unknown[];
  extraction?: ExtractionResult;
  /** Present for extraction mode: how the template was chosen (or that none was). */
  classification?: Record<string, unknown> | null;
  stages: string[];
  notes?: Record<string, unknown>;
  unavailable?: { stage: string; reason: string }[];
}

/** `canonical` null: the caller stores the result with the canonical document's text spliced in first. */
export function buildResult(job: Pick<Job, 'processing_mode' | 'template_id' | 'page_range'>, canonical: CanonicalJson | null, facts: RunFacts, stage: StageOutput = { stages: [] }) {
  const result: Record<string, unknown> = canonical ? { canonical } : {};
  if (stage.entities) result.entities = stage.entities;
  if (stage.extraction) result.extraction = stage.extraction;
  result.engine = {
    name: 'quire',
    version: VERSION,
    stages: ['ingest', ...(facts.ocr ? ['ocr'] : []), 'layout', 'canonical', ...stage.stages],
    format: facts.format,
    page_count: facts.pageCount,
    pages_processed: facts.pagesProcessed,
    page_range: job.page_range,
    page_images: facts.pageImages,
    reused_canonical: facts.reusedCanonical,
    ...(facts.ocr ? { ocr: facts.ocr } : {}),
    ...(facts.unreadable?.length ? { unreadable_pages: facts.unreadable } : {}),
    ...(facts.unreadableParts?.length ? { unreadable_parts: facts.unreadableParts } : {}),
    ...(stage.notes ?? {}),
    ...(stage.unavailable?.length ? { unavailable: stage.unavailable } : {}),
  };
  return { result, classification: stage.classification ?? null };
}
