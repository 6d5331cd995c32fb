// Runs inside a worker thread: the CPU-heavy pipeline (parsing, layout, page rendering) happens
// here so the process's event loop keeps serving HTTP and heartbeating leases meanwhile.
import { parentPort } from 'node:worker_threads';
import { PipelineError, isPipelineError, renderPagePng, runCanonical, toCanonicalJson } from '../pipeline/index.js';
import type { AbortKind, FromThread, PipelineOutput, PipelineTask, ToThread } from './pipeline-task.js';

const port = parentPort!;
const running = new Map<number, AbortController>();

function reasonFor(kind: AbortKind): Error {
  if (kind === 'timeout') return new PipelineError('timeout', 'Processing took longer than the time allowed. Split the document or send a page_range.');
  return new PipelineError('cancelled', 'Processing was cancelled at your request.');
}

async function run(id: number, task: PipelineTask, signal: AbortSignal): Promise<PipelineOutput> {
  const bytes = task.bytes;
  const doc = await runCanonical(bytes, {
    ...(task.pageRange ? { pageRange: task.pageRange } : {}),
    ...(task.pdfMaxPages ? { pdfMaxPages: task.pdfMaxPages } : {}),
    ...(task.pageCapPolicy ? { pageCapPolicy: task.pageCapPolicy } : {}),
    ...(task.pptxNotesMode ? { pptxNotesMode: task.pptxNotesMode } : {}),
    signal,
    onProgress: (done, total) => port.postMessage({ type: 'progress', id, done, total } satisfies FromThread),
  });
  const images: PipelineOutput['images'] = [];
  if (task.renderDpi && doc.format === 'pdf') {
    for (const page of doc.pages) {
      if (signal.aborted) throw signal.reason;
      images.push({ pageNumber: page.page_number, png: new Uint8Array(await renderPagePng(bytes, page.page_number, { dpi: task.renderDpi })) });
    }
  }
  return { format: doc.format, pageCount: doc.page_count, canonical: toCanonicalJson(doc), images };
}

port.on('message', (message: ToThread) => {
  if (message.type === 'abort') {
    running.get(message.id)?.abort(reasonFor(message.kind));
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  run(message.id, message.task, controller.signal).then(
    (output) => {
      const transfer = output.images.map((i) => i.png.buffer as ArrayBuffer);
      port.postMessage({ type: 'done', id: message.id, output } satisfies FromThread, transfer);
    },
    (err: unknown) => {
      const known = isPipelineError(err);
      const code = known ? err.code : 'internal_error';
      port.postMessage({
        type: 'failed',
        id: message.id,
        code,
        message: known ? err.message : `Quire failed while processing this document (${(err as Error)?.message ?? String(err)}). Retry it; if it fails again, report the job id.`,
        internal: !known || code === 'internal_error',
      } satisfies FromThread);
    },
  ).finally(() => running.delete(message.id));
});
