// How many pages a process reads with its OCR engines at once, across its pipeline threads. One
// page read by both engines holds a few hundred MB for its tensors and upscaled rasters; two
// threads reading scans at the same moment doubled a worker's peak (docs/performance.md, "Worker
// memory"). The pool shares one semaphore with its threads (QUIRE_OCR_PAGES_AT_ONCE); outside a
// pool (tests, the eval) pages are read without one.
import { threadId } from 'node:worker_threads';
import { SharedSemaphore } from '../../lib/shared-semaphore.js';

let permits: SharedSemaphore | null = null;

/** Called once in a pipeline thread with the buffer its pool shares. */
export function installOcrPagePermits(buffer: SharedArrayBuffer | undefined): void {
  permits = buffer ? new SharedSemaphore(buffer) : null;
}

/**
 * Waits for a permit to read a page; returns its release (idempotent), or null when `stop` said
 * to give up first. Release it when the page's work has settled, not when its caller stopped
 * waiting for it: abandoned work still holds its memory.
 */
export async function acquireOcrPagePermit(stop: () => boolean): Promise<(() => void) | null> {
  const gate = permits;
  if (!gate) return () => undefined;
  if (!(await gate.acquire(threadId, stop))) return null;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    gate.release(threadId);
  };
}
