// Runs inside a worker thread: the CPU-heavy pipeline (parsing, layout, page rendering) and the
// embedded entity and extraction stages happen here so the process's event loop keeps serving
// HTTP and heartbeating leases meanwhile.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import sharp from 'sharp';
import { installThreadGate } from '../lib/native-gate.js';
import { DEFAULT_MAX_RESULT_MB } from '../config.js';
import { type CanonicalJson, PipelineError, isPipelineError, renderPagePng, runCanonical, settleAbandonedOcr, toCanonicalJson } from '../pipeline/index.js';
import { resultTooLarge } from '../pipeline/ingest/errors.js';
import { type FingerprintInput, fingerprintOfDocument, prepareDocument } from '../pipeline/classify/index.js';
import { runEntities, runExtraction } from '../pipeline/extract/index.js';
import { runJudgedExtraction } from '../pipeline/extract/judge.js';
import { finishModelExtraction, prepare as prepareModelExtraction } from '../models/extraction/finish.js';
import { closeOcrEngines } from '../pipeline/ocr/index.js';
import { installOcrPagePermits } from '../pipeline/ocr/page-permits.js';
import { setPdfiumMemoryLimit } from '../pipeline/ingest/pdf/pdfium.js';
import type { AbortKind, ExtractOutput, ExtractTask, FromThread, PipelineOutput, PipelineTask, ToThread } from './pipeline-task.js';

const port = parentPort!;
// libvips' operation cache belongs to the process, not the thread: every document's images are
// new, so it only ever kept up to 50 MB of pixels alive after the threads that made them ended.
sharp.cache(false);
const shared = workerData as { nativeGate?: SharedArrayBuffer; ocrPagePermits?: SharedArrayBuffer; pdfiumMemoryMb?: number; maxResultBytes?: number } | null;
installThreadGate(shared?.nativeGate);
if (shared?.pdfiumMemoryMb) setPdfiumMemoryLimit(shared.pdfiumMemoryMb);
installOcrPagePermits(shared?.ocrPagePermits);
/** Within the pool's CLOSE_GRACE_MS: abandoned OCR work gets this long to finish before the thread ends. */
const CLOSE_WAIT_MS = 120_000;
/** The largest canonical document a task may return (QUIRE_MAX_RESULT_MB); 64 MB when run outside a pool. */
const MAX_RESULT_BYTES = shared?.maxResultBytes ?? DEFAULT_MAX_RESULT_MB * 1024 * 1024;
const RENDERED_FORMATS = new Set(['pdf', 'png', 'jpeg', 'tiff', 'webp']);
const running = new Map<number, AbortController>();
/** Every task not yet settled: a thread ended while one awaits a native call (sharp, onnxruntime) takes the process down. */
const inFlight = new Set<Promise<unknown>>();

/** This thread's memory: its V8 heap plus what lives outside it (WebAssembly memories, buffers). */
function memoryBytes(): number {
  const heap = v8.getHeapStatistics();
  return heap.total_heap_size + heap.external_memory;
}

function reasonFor(kind: AbortKind): Error {
  if (kind === 'timeout') return new PipelineError('timeout', 'Processing took longer than the time allowed. Split the document or send a page_range.');
  return new PipelineError('cancelled', 'Processing was cancelled at your request.');
}

/** The task's document, read here when it is given as a path. */
function bytesOf(task: PipelineTask): Uint8Array {
  if (task.bytes) return task.bytes;
  try {
    return readFileSync(task.path);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new PipelineError('internal_error', missing ? 'The stored upload is missing from the blob store.' : `The stored upload could not be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
}

/**
 * Progress is sent at most this often: each message wakes the worker's event loop, which only
 * passes the count on with its next heartbeat (a third of the lease, seconds apart). A one-page
 * document so sends none.
 */
const PROGRESS_EVERY_MS = 250;

async function run(id: number, task: PipelineTask, signal: AbortSignal): Promise<PipelineOutput> {
  const bytes = bytesOf(task);
  let progressAt = performance.now();
  const doc = await runCanonical(bytes, {
    ...(task.pageRange ? { pageRange: task.pageRange } : {}),
    ...(task.pdfMaxPages ? { pdfMaxPages: task.pdfMaxPages } : {}),
    ...(task.pageCapPolicy ? { pageCapPolicy: task.pageCapPolicy } : {}),
    ...(task.pptxNotesMode ? { pptxNotesMode: task.pptxNotesMode } : {}),
    ...(task.ocr ? { ocr: task.ocr } : {}),
    signal,
    onProgress: (done, total) => {
      const now = performance.now();
      if (now - progressAt < PROGRESS_EVERY_MS) return;
      progressAt = now;
      port.postMessage({ type: 'progress', id, done, total } satisfies FromThread);
    },
  });
  const canonical = toCanonicalJson(doc);
  const canonicalText = JSON.stringify(canonical);
  // Checked before page images are drawn and before anything reaches the worker, the artifacts
  // or the database: such a result would be stored, sent and held in memory several times over.
  const resultBytes = Buffer.byteLength(canonicalText);
  if (resultBytes > MAX_RESULT_BYTES) throw resultTooLarge(resultBytes, MAX_RESULT_BYTES, doc.page_count);
  const images: PipelineOutput['images'] = [];
  if (task.renderDpi && RENDERED_FORMATS.has(doc.format)) {
    // A page whose OCR turned it is drawn turned too, so evidence boxes land on the right pixels.
    const turns = new Map(doc.ocr?.pages.map((p) => [p.page_number, p.preprocessing.rotation_degrees / 90]) ?? []);
    for (const page of doc.pages) {
      if (signal.aborted) throw signal.reason;
      const png = await renderPagePng(bytes, page.page_number, { dpi: task.renderDpi, quarterTurns: turns.get(page.page_number) ?? 0, widthPt: page.width });
      images.push({ pageNumber: page.page_number, png: new Uint8Array(png) });
    }
  }
  return {
    format: doc.format,
    pageCount: doc.page_count,
    canonicalText,
    markdown: canonical.markdown,
    pages: canonical.pages.map((p) => ({ page_number: p.page_number, width: p.width })),
    ocr: doc.ocr,
    unreadable: doc.unreadable,
    unreadableParts: doc.unreadableParts,
    judgeCanonical: doc.judge && toCanonicalJson(doc.judge),
    images,
  };
}

/**
 * The embedded entity and extraction stages, and the model path's steps around its calls
 * (pipeline-task.ts ExtractTask). Synchronous from the parse on: a cancel or timeout meanwhile
 * ends the thread after the pool's grace period.
 */
function extract(task: ExtractTask, signal: AbortSignal): ExtractOutput {
  if (signal.aborted) throw signal.reason;
  const canonical = JSON.parse(task.canonicalText) as CanonicalJson;
  const pageCount = canonical.pages.length;
  const { policy, template } = task;
  if (!template) {
    const entities = runEntities(canonical, policy);
    const prepared = task.classify ? prepareDocument({ canonical, format: task.format, entities }, task.classify.draft) : null;
    return { pageCount, entities, prepared, extraction: null, exemplar: null };
  }
  if (task.model?.step === 'prepare') return { pageCount, entities: null, prepared: null, extraction: null, exemplar: null, modelPrep: prepareModelExtraction(canonical, template, policy, undefined, task.model.imagePages) };
  if (task.model?.step === 'finish') {
    const modelExtraction = finishModelExtraction(canonical, template, policy, task.model.prep, task.model.answers, task.judgeCanonical);
    const exemplar = fingerprintOfDocument({ canonical, format: task.format, entities: modelExtraction.entities as FingerprintInput['entities'] });
    return { pageCount, entities: null, prepared: null, extraction: null, exemplar, modelExtraction };
  }
  const extraction = task.judgeCanonical ? runJudgedExtraction(canonical, task.judgeCanonical, template, policy) : runExtraction(canonical, template, policy);
  // What recordExemplar computes from the settled result (its entities), made here beside the document.
  const exemplar = fingerprintOfDocument({ canonical, format: task.format, entities: extraction.entities });
  return { pageCount, entities: null, prepared: null, extraction, exemplar };
}

port.on('message', (message: ToThread) => {
  if (message.type === 'close') {
    // Terminating a thread while a native call is in flight (an onnxruntime inference, a sharp
    // operation) takes the whole process down: running tasks are stopped and awaited (they end at
    // their next checkpoint), abandoned OCR pages settle, the engines close, then the pool ends us.
    port.postMessage({ type: 'closing', id: 0 } satisfies FromThread);
    for (const controller of running.values()) controller.abort(reasonFor('cancelled'));
    void Promise.allSettled([...inFlight])
      .then(() => settleAbandonedOcr(CLOSE_WAIT_MS))
      .then(() => closeOcrEngines())
      .finally(() => port.postMessage({ type: 'closed', id: 0 } satisfies FromThread));
    return;
  }
  if (message.type === 'abort') {
    running.get(message.id)?.abort(reasonFor(message.kind));
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  const given = message.task;
  const task: Promise<PipelineOutput | ExtractOutput> = given.kind === 'extract' ? Promise.resolve().then(() => extract(given, controller.signal)) : run(message.id, given, controller.signal);
  inFlight.add(task);
  // An output that cannot be sent (a DataCloneError) fails its task like any other error, rather
  // than ending the thread with an error the pool cannot read.
  task
    .then((output) => {
      const transfer = 'images' in output ? output.images.map((i) => i.png.buffer as ArrayBuffer) : [];
      port.postMessage({ type: 'done', id: message.id, output, memoryBytes: memoryBytes() } satisfies FromThread, transfer);
    })
    .catch((err: unknown) => {
      const known = isPipelineError(err);
      const code = known ? err.code : 'internal_error';
      port.postMessage({
        type: 'failed',
        id: message.id,
        code,
        message: known ? err.message : `Quire failed while processing this document (${(err as Error)?.message ?? String(err)}). Retry it; if it fails again, report the job id.`,
        internal: !known || code === 'internal_error',
        ...(known && err.pageCount !== undefined ? { pageCount: err.pageCount } : {}),
        memoryBytes: memoryBytes(),
      } satisfies FromThread);
    })
    .finally(() => {
      running.delete(message.id);
      inFlight.delete(task);
    });
});
