// A counting semaphore in memory shared by a process's threads: at most `permits` holders at once,
// whichever thread they run on. Each permit records its holder (a thread id, never 0), so the
// thread's owner can hand back the permits of a thread that ended while holding them.
const GENERATION = 0;
const FREE = 0;
/** How often a waiter looks at its abort condition while no permit is handed back. */
const POLL_MS = 250;

// Atomics.waitAsync (Node 16+) is newer than the ES2022 library this project compiles against.
type WaitAsync = (cells: Int32Array, index: number, value: number, timeoutMs: number) => { async: boolean; value: Promise<string> | string };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export class SharedSemaphore {
  /** Shared with the other threads (through workerData): slot 0 counts releases, then one slot per permit. */
  readonly buffer: SharedArrayBuffer;
  private readonly cells: Int32Array;

  constructor(permitsOrBuffer: number | SharedArrayBuffer) {
    this.buffer = typeof permitsOrBuffer === 'number' ? new SharedArrayBuffer(4 * (1 + Math.max(1, permitsOrBuffer))) : permitsOrBuffer;
    this.cells = new Int32Array(this.buffer);
  }

  get permits(): number {
    return this.cells.length - 1;
  }

  /** Permits held now. */
  get held(): number {
    let n = 0;
    for (let i = 1; i < this.cells.length; i++) if (Atomics.load(this.cells, i) !== FREE) n++;
    return n;
  }

  /** Waits for a permit; false when `stop` said to give up first. */
  async acquire(holder: number, stop: () => boolean = () => false): Promise<boolean> {
    if (holder === FREE) throw new RangeError('a holder id is never 0');
    for (;;) {
      const generation = Atomics.load(this.cells, GENERATION);
      for (let i = 1; i < this.cells.length; i++) if (Atomics.compareExchange(this.cells, i, FREE, holder) === FREE) return true;
      if (stop()) return false;
      const wait = waitAsync(this.cells, GENERATION, generation, POLL_MS);
      if (wait.async) await wait.value;
    }
  }

  /** Hands back one permit of `holder`. */
  release(holder: number): void {
    for (let i = 1; i < this.cells.length; i++) {
      if (Atomics.compareExchange(this.cells, i, holder, FREE) === holder) return this.wake();
    }
  }

  /** Hands back every permit of `holder` (a thread that ended without releasing). */
  releaseAll(holder: number): number {
    let n = 0;
    for (let i = 1; i < this.cells.length; i++) if (Atomics.compareExchange(this.cells, i, holder, FREE) === holder) n++;
    if (n > 0) this.wake();
    return n;
  }

  private wake(): void {
    Atomics.add(this.cells, GENERATION, 1);
    Atomics.notify(this.cells, GENERATION);
  }
}
