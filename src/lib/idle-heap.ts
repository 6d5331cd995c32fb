// Full garbage collections once the process has gone idle. V8 sizes its young generation to the
// allocation rate it sees (up to 32 MB on a busy process) and shrinks it only in a collection that
// finds that rate low: under about 1 MB/s, judged from what was allocated between the last
// collections over at least five seconds. A worker that has gone quiet may not collect again for
// hours, so what a busy spell grew the young generation to stays resident. One collection at the
// start of the quiet spell closes the busy interval; a second, six seconds later, sees a quiet one
// and shrinks the young generation.
//
// Also one collection on demand, before work whose memory peaks: garbage with large native
// backing stores (page rasters, tensors) is freed only when V8 next collects, and would otherwise
// sit under that peak.
import v8 from 'node:v8';
import vm from 'node:vm';
import { releaseFreedNativeMemory } from './native-heap.js';

let gc: (() => void) | null | undefined;

function bind(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    // The flag exposes `gc` to contexts created from now on; the process's own globals are unchanged.
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

const QUIET_INTERVAL_MS = 6_000;

/** Runs the two collections; resolves after the second (at once where none can be run). */
export async function collectIdleGarbage(quietMs = QUIET_INTERVAL_MS): Promise<boolean> {
  gc ??= bind();
  if (!gc) return false;
  gc();
  await new Promise<void>((resolve) => setTimeout(resolve, quietMs).unref());
  gc();
  return true;
}

/**
 * One full collection now, then the C allocator's free pages handed back; false where no
 * collection can be run. A few tens of milliseconds on a pipeline thread's heap.
 */
export function collectGarbageNow(): boolean {
  gc ??= bind();
  if (!gc) return false;
  gc();
  releaseFreedNativeMemory();
  return true;
}
