// Whether a worker thread is inside a synchronous native call: onnxruntime-node loads a model and
// runs an inference on the calling thread, blocking its event loop. A thread terminated there
// aborts the whole process when the call returns ("terminate called after throwing an instance of
// 'Napi::Error'"), so the thread marks such calls in memory shared with its pool, and the pool
// ends a thread only between them (and keeps it from entering another).
const OUTSIDE = 0;
const INSIDE = 1;
const ENDING = 2;

export class NativeGate {
  private readonly state: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.state = new Int32Array(buffer);
  }

  /** Thread side: runs `call` marked as native; refuses once the pool has started ending the thread. */
  async enter<T>(call: () => Promise<T>): Promise<T> {
    if (Atomics.compareExchange(this.state, 0, OUTSIDE, INSIDE) === ENDING) throw new Error('the pipeline thread is ending');
    try {
      return await call();
    } finally {
      Atomics.compareExchange(this.state, 0, INSIDE, OUTSIDE);
    }
  }

  /** Pool side: resolves once the thread is outside native calls (or after `maxWaitMs`) and bars it from entering another. */
  async close(maxWaitMs: number): Promise<void> {
    const until = Date.now() + maxWaitMs;
    while (Atomics.compareExchange(this.state, 0, OUTSIDE, ENDING) === INSIDE && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }
}

let threadGate: NativeGate | null = null;

/** Called once in a pipeline thread with the buffer its pool shares. */
export function installThreadGate(buffer: SharedArrayBuffer | undefined): void {
  threadGate = buffer ? new NativeGate(buffer) : null;
}

/** Runs a synchronous native call (wrapped in a promise) under this thread's gate; outside a pool thread, just runs it. */
export function nativeCall<T>(call: () => Promise<T>): Promise<T> {
  return threadGate ? threadGate.enter(call) : call();
}
