// Page loops that stay friendly to the rest of the process: they report progress, give the event
// loop a turn between pages (lease heartbeats and HTTP keep running beside a 500-page PDF) and
// stop at the next page once the caller aborts.
import { PipelineError } from './errors.js';

export interface PageLoopOptions {
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function mapPages<T>(indexes: readonly number[], options: PageLoopOptions, work: (index: number) => T): Promise<T[]> {
  const out: T[] = [];
  options.onProgress?.(0, indexes.length);
  for (const index of indexes) {
    checkAborted(options.signal);
    out.push(work(index));
    options.onProgress?.(out.length, indexes.length);
    await nextTurn();
  }
  return out;
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  const reason: unknown = signal.reason;
  if (reason instanceof PipelineError) throw reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    throw new PipelineError('timeout', 'Processing took longer than the time allowed. Split the document or send a page_range.');
  }
  throw new PipelineError('cancelled', 'Processing was cancelled.');
}
