// A pool of worker threads running the pipeline (pipeline-thread.ts), one per worker loop, so
// CPU-heavy work never blocks the process's event loop (HTTP, heartbeats, NOTIFY).
// A thread that does not stop within ABORT_GRACE_MS of an abort (a page stuck inside the parser)
// is terminated and replaced: a cancel or timeout always takes effect.
import { Worker } from 'node:worker_threads';
import { type Config, DEFAULT_MAX_RESULT_MB, DEFAULT_PDFIUM_MEMORY_MB, DEFAULT_PROCESS_MEMORY_MARK_MB } from '../config.js';
import { NativeGate } from '../lib/native-gate.js';
import { setPdfiumMemoryLimit } from '../pipeline/ingest/pdf/pdfium.js';
import { collectIdleGarbage } from '../lib/idle-heap.js';
import { releaseFreedNativeMemory, tuneNativeAllocator } from '../lib/native-heap.js';
import { SharedSemaphore } from '../lib/shared-semaphore.js';
import { type JobFailureCode, QuireError } from '../lib/errors.js';
import type { AbortKind, ExtractOutput, ExtractTask, FromThread, PipelineOutput, PipelineTask, ThreadTask, ToThread } from './pipeline-task.js';

const ABORT_GRACE_MS = 5_000;
/**
 * Heap ceiling of a pipeline thread: a hostile document that needs more ends its thread with a
 * coded `resource_limit` failure instead of taking the process's memory.
 */
export const THREAD_HEAP_MB = 1536;
/**
 * A thread whose heap and external memory (WebAssembly, buffers) grew past this high-water mark
 * during a task is ended after it and started afresh on the next: V8 and WebAssembly rarely hand
 * grown memory back to the system, so this is how the process returns to its idle footprint.
 */
export const RECYCLE_BYTES = 320 * 1024 * 1024;
/**
 * The same for the whole process: native memory (onnxruntime tensors, tesseract's WebAssembly
 * worker) is invisible to a thread's own count, so a thread whose task ends with the process's
 * resident memory above this is ended too. 700 MB leaves room under the 800 MB a worker with
 * both OCR engines should stay within (docs/performance.md, "Worker memory"). A process sets its own
 * with QUIRE_PROCESS_MEMORY_MARK_MB.
 */
export const PROCESS_RECYCLE_BYTES = DEFAULT_PROCESS_MEMORY_MARK_MB * 1024 * 1024;
/**
 * Memory the process keeps after its threads end (its own heap, the allocator's free lists,
 * libraries) is no thread's to give back: once ending a thread left the process at some size,
 * ending the next one only pays when the process has grown this much beyond it. Without it, a
 * process that stays above the mark would end and restart its thread after every task.
 */
export const PROCESS_REGROWTH_BYTES = 256 * 1024 * 1024;
/**
 * How long a closing thread may take to let its native calls finish and free its OCR engines
 * (beyond the thread's own 120 s wait for abandoned OCR pages).
 */
const CLOSE_GRACE_MS = 150_000;
/** A thread that does not acknowledge a `close` within this is stuck in JavaScript (a parser loop). */
const CLOSE_ACK_MS = 1_000;
/** An idle thread asked to close at shutdown or recycling acknowledges at once; allow for a loaded machine. */
const STOP_ACK_MS = 10_000;
/**
 * A thread with no task for this long is ended; the next task starts a fresh one (about a second
 * of start-up). What a thread's parsers and OCR engines grew to (WebAssembly memories, onnxruntime
 * buffers) is only given back when the thread ends, so an idle worker returns to its start-up
 * footprint. Overridden by QUIRE_PIPELINE_IDLE_SECONDS.
 */
export const IDLE_END_MS = 60_000;
/**
 * Pages read by OCR at once across a pool's threads, by default: half its threads, at least one.
 * One page read by both engines holds a few hundred MB, and on two cores two pages at once raised
 * a worker's peak by about 300 MB; the threads left parse digital documents meanwhile.
 * Overridden by QUIRE_OCR_PAGES_AT_ONCE.
 */
export const defaultOcrPagesAtOnce = (threads: number) => Math.max(1, Math.floor(threads / 2));

export class PipelineFailure extends QuireError<JobFailureCode> {
  constructor(
    code: JobFailureCode,
    message: string,
    /** Not the document's fault: worth another attempt. */
    readonly internal: boolean,
    /** The document's page count, when the failure knew it. */
    readonly pageCount?: number,
  ) {
    super(code, message);
  }
}

export interface RunOptions {
  signal: AbortSignal;
  /** Why the signal fired, read when it does. */
  abortKind: () => AbortKind;
  onProgress?: (done: number, total: number) => void;
  /**
   * Called once a thread is taken for the task, before the task reaches it (the thread is held
   * meanwhile): the run starts here, not while it waits in line. Throwing gives the thread back.
   */
  onStart?: () => Promise<void>;
}

/** Each thread's native-call gate (lib/native-gate.ts), shared with it through workerData. */
const gates = new WeakMap<Worker, NativeGate>();

/** From TypeScript sources (tests, `tsx`), a thread loads the .ts file through tsx's loader. */
function spawnThread(limits: ThreadLimits, ocrPagePermits: SharedSemaphore): Worker {
  const here = import.meta.url;
  const gate = new NativeGate();
  const options = { resourceLimits: { maxOldGenerationSizeMb: limits.heapMb }, workerData: { nativeGate: gate.buffer, ocrPagePermits: ocrPagePermits.buffer, pdfiumMemoryMb: limits.pdfiumMemoryMb, maxResultBytes: limits.maxResultMb * 1024 * 1024 } };
  let worker: Worker;
  if (here.endsWith('.ts')) {
    const thread = new URL('./pipeline-thread.ts', here).href;
    const tsx = new URL('../../node_modules/tsx/dist/esm/api/index.mjs', here).href;
    const boot = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(thread)});`;
    worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), options);
  } else worker = new Worker(new URL('./pipeline-thread.js', here), options);
  gates.set(worker, gate);
  return worker;
}

function crashFailure(err: Error & { code?: string }): PipelineFailure {
  if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new PipelineFailure(
      'resource_limit',
      'The document needs more memory than Quire allows one document. Split it into smaller files or send a page_range, then upload again.',
      false,
    );
  }
  return new PipelineFailure('internal_error', `The pipeline thread crashed (${err.message}). Retry the job.`, true);
}

export interface ThreadLimits {
  heapMb: number;
  recycleBytes: number;
  /** The process's resident memory past which a thread is ended after its task. */
  processRecycleBytes: number;
  /** How far the process must grow past what it kept after the last thread ended before that helps again. */
  processRegrowthBytes: number;
  /** A thread idle this long is ended; 0 keeps idle threads. */
  idleMs: number;
  /** Pages the pool's threads read with their OCR engines at once (pipeline/ocr/page-permits.ts); 0: the default. */
  ocrPagesAtOnce: number;
  /** WebAssembly memory each thread's PDF parser may grow to (QUIRE_PDFIUM_MEMORY_MB). */
  pdfiumMemoryMb: number;
  /** Largest canonical document a task may return, in MB of JSON (QUIRE_MAX_RESULT_MB). */
  maxResultMb: number;
}

/** The limits a process's configuration sets on its pool (QUIRE_PIPELINE_IDLE_SECONDS, QUIRE_OCR_PAGES_AT_ONCE, QUIRE_PROCESS_MEMORY_MARK_MB, QUIRE_PDFIUM_MEMORY_MB, QUIRE_MAX_RESULT_MB). */
export function poolLimitsOf(config: Pick<Config, 'pipelineIdleSeconds' | 'ocrPagesAtOnce' | 'processMemoryMarkMb' | 'pdfiumMemoryMb' | 'maxResultMb'>): Partial<ThreadLimits> {
  return { idleMs: config.pipelineIdleSeconds * 1000, ocrPagesAtOnce: config.ocrPagesAtOnce, processRecycleBytes: config.processMemoryMarkMb * 1024 * 1024, pdfiumMemoryMb: config.pdfiumMemoryMb, maxResultMb: config.maxResultMb };
}

/** The process-wide memory mark, shared by a pool's threads: when ending a thread can give memory back. */
class ProcessMark {
  /** The process's resident memory once the last thread ended (none ended yet: the mark alone counts). */
  private kept = Number.NEGATIVE_INFINITY;

  constructor(private readonly limits: ThreadLimits) {}

  exceeded(): boolean {
    return process.memoryUsage.rss() > Math.max(this.limits.processRecycleBytes, this.kept + this.limits.processRegrowthBytes);
  }

  threadEnded(): void {
    this.kept = process.memoryUsage.rss();
  }
}

class PipelineThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private retiring: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  busy = false;
  /** Threads ended for passing the memory high-water mark (for the operator's log and tests). */
  recycled = 0;
  /** Threads ended after an idle spell. */
  idleEnded = 0;

  constructor(
    private readonly limits: ThreadLimits,
    private readonly mark: ProcessMark,
    private readonly ocrPagePermits: SharedSemaphore,
  ) {}

  private ensure(): Worker {
    if (!this.worker) {
      const worker = spawnThread(this.limits, this.ocrPagePermits);
      const threadId = worker.threadId;
      worker.unref();
      worker.on('exit', () => {
        // A thread ended mid-page (terminated, crashed) never released its permit.
        this.ocrPagePermits.releaseAll(threadId);
        if (this.worker === worker) this.worker = null;
      });
      this.worker = worker;
    }
    return this.worker;
  }

  /** Whether a thread is running, starting or still closing: an ended idle thread costs nothing. */
  get alive(): boolean {
    return this.worker !== null || this.retiring !== null;
  }

  async run(task: ThreadTask, options: RunOptions): Promise<PipelineOutput | ExtractOutput> {
    this.busy = true;
    this.cancelIdleEnd();
    try {
      // A recycled thread frees its engines before the next one starts; a cancel or timeout
      // meanwhile takes effect at once.
      if (this.retiring) await Promise.race([this.retiring, untilAborted(options.signal)]);
      if (options.signal.aborted) throw abortFailure(options.abortKind());
      await options.onStart?.();
      if (options.signal.aborted) throw abortFailure(options.abortKind());
      return await this.runOn(this.ensure(), task, options);
    } finally {
      this.busy = false;
      this.scheduleIdleEnd();
    }
  }

  private scheduleIdleEnd(): void {
    if (this.limits.idleMs <= 0 || !this.worker) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.busy || this.retiring || !this.worker) return;
      this.idleEnded++;
      this.retireCurrent('idle');
    }, this.limits.idleMs);
    this.idleTimer.unref();
  }

  private cancelIdleEnd(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Ends the current thread in the background; a task arriving meanwhile waits for its engines to close. */
  private retireCurrent(why: 'idle' | 'high-water'): void {
    this.retiring = this.stop().finally(() => {
      this.retiring = null;
      this.threadEnded();
      // After an idle spell V8's young generation can shrink too, and the collections free the
      // buffers the thread's results left behind: the allocator is asked again after them.
      if (why === 'idle') void collectIdleGarbage().then(releaseFreedNativeMemory);
    });
  }

  /**
   * After any thread end, also one ended by the abort path: glibc is asked for what the thread's
   * native libraries freed (it keeps that in its arenas otherwise), and the mark notes what the
   * process kept.
   */
  private threadEnded(): void {
    releaseFreedNativeMemory();
    this.mark.threadEnded();
  }

  /** Ends the thread after a task that left it above the high-water mark; the next task starts a fresh one. */
  private afterTask(memoryBytes: number | undefined): void {
    if (this.retiring) return;
    const threadHigh = memoryBytes !== undefined && memoryBytes > this.limits.recycleBytes;
    if (!threadHigh && !this.mark.exceeded()) return;
    this.recycled++;
    this.retireCurrent('high-water');
  }

  private runOn(worker: Worker, task: ThreadTask, options: RunOptions): Promise<PipelineOutput | ExtractOutput> {
    const id = this.nextId++;
    return new Promise<PipelineOutput | ExtractOutput>((resolve, reject) => {
      let killTimer: NodeJS.Timeout | null = null;
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        options.signal.removeEventListener('abort', onAbort);
        if (killTimer) clearTimeout(killTimer);
      };
      const onMessage = (message: FromThread) => {
        if (message.id !== id || message.type === 'closed' || message.type === 'closing') return;
        if (message.type === 'progress') return options.onProgress?.(message.done, message.total);
        cleanup();
        this.afterTask(message.memoryBytes);
        if (message.type === 'done') resolve(message.output);
        else reject(new PipelineFailure(message.code, message.message, message.internal, message.pageCount));
      };
      const onError = (err: Error) => {
        cleanup();
        this.worker = null;
        reject(crashFailure(err));
      };
      const onExit = () => {
        cleanup();
        const kind = options.signal.aborted ? options.abortKind() : null;
        reject(kind ? abortFailure(kind) : new PipelineFailure('internal_error', 'The pipeline thread stopped unexpectedly. Retry the job.', true));
      };
      const onAbort = () => {
        const kind = options.abortKind();
        worker.postMessage({ type: 'abort', id, kind } satisfies ToThread);
        killTimer = setTimeout(() => {
          // Not at a checkpoint yet: end the thread; 'exit' rejects with the abort reason. A thread
          // that is only waiting for an OCR inference frees its engines first (ending it mid-inference
          // takes the process down); one stuck in JavaScript is ended at once.
          this.worker = null;
          void retire(worker, CLOSE_ACK_MS).then(() => this.threadEnded());
        }, ABORT_GRACE_MS);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
      // The bytes are copied, not transferred: the caller may still need them (e.g. a retry).
      worker.postMessage({ type: 'run', id, task } satisfies ToThread);
    });
  }

  /** Lets the thread free its engines (an inference in flight finishes first), then ends it. */
  async stop(): Promise<void> {
    this.cancelIdleEnd();
    const worker = this.worker;
    this.worker = null;
    if (worker) await retire(worker, STOP_ACK_MS);
  }
}

/**
 * Asks a thread to close, then terminates it: once it says `closed` (its tasks and native calls
 * have settled and its OCR engines are freed), after CLOSE_GRACE_MS at most; or at once when it
 * does not acknowledge within `ackMs` (stuck in JavaScript, with no native call to wait for).
 */
async function retire(worker: Worker, ackMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    let timer = setTimeout(() => done(), ackMs);
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      resolve();
    };
    const onMessage = (message: FromThread) => {
      if (message.type === 'closing') {
        clearTimeout(timer);
        timer = setTimeout(done, CLOSE_GRACE_MS);
      } else if (message.type === 'closed') done();
    };
    worker.on('message', onMessage);
    worker.once('exit', done);
    worker.postMessage({ type: 'close', id: 0 } satisfies ToThread);
  });
  await gates.get(worker)?.close(CLOSE_GRACE_MS);
  await worker.terminate();
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

function abortFailure(kind: AbortKind): PipelineFailure {
  return kind === 'timeout'
    ? new PipelineFailure('timeout', 'Processing took longer than the time allowed. Split the document or send a page_range.', false)
    : new PipelineFailure('cancelled', 'Processing was cancelled at your request.', false);
}

export class PipelinePool {
  private readonly threads: PipelineThread[];
  /** Callers waiting for a free thread, first come first served. */
  private readonly waiting: (() => void)[] = [];
  private readonly ocrPagePermits: SharedSemaphore;

  /** Threads start on first use, so an idle pool costs nothing. */
  constructor(
    readonly size: number,
    limits: Partial<ThreadLimits> = {},
  ) {
    const full: ThreadLimits = { heapMb: limits.heapMb ?? THREAD_HEAP_MB, recycleBytes: limits.recycleBytes ?? RECYCLE_BYTES, processRecycleBytes: limits.processRecycleBytes ?? PROCESS_RECYCLE_BYTES, processRegrowthBytes: limits.processRegrowthBytes ?? PROCESS_REGROWTH_BYTES, idleMs: limits.idleMs ?? IDLE_END_MS, ocrPagesAtOnce: limits.ocrPagesAtOnce || defaultOcrPagesAtOnce(Math.max(1, size)), pdfiumMemoryMb: limits.pdfiumMemoryMb ?? DEFAULT_PDFIUM_MEMORY_MB, maxResultMb: limits.maxResultMb ?? DEFAULT_MAX_RESULT_MB };
    // Before any thread runs, so its native libraries allocate under the settings that return memory.
    tuneNativeAllocator();
    // The process draws page images on demand with a PDFium of its own: the same bound applies.
    setPdfiumMemoryLimit(full.pdfiumMemoryMb);
    const mark = new ProcessMark(full);
    this.ocrPagePermits = new SharedSemaphore(full.ocrPagesAtOnce);
    this.threads = Array.from({ length: Math.max(1, size) }, () => new PipelineThread(full, mark, this.ocrPagePermits));
  }

  /** Pages being read by OCR right now, across the pool's threads (at most `ocrPagesAtOnce`). */
  get ocrPagesReading(): number {
    return this.ocrPagePermits.held;
  }

  /** How many threads were ended for passing the memory high-water mark since the pool started. */
  get recycledThreads(): number {
    return this.threads.reduce((sum, t) => sum + t.recycled, 0);
  }

  /** How many threads were ended after an idle spell since the pool started. */
  get idleEndedThreads(): number {
    return this.threads.reduce((sum, t) => sum + t.idleEnded, 0);
  }

  /** Threads running or still closing (an ended idle thread is started again by the next task). */
  get liveThreads(): number {
    return this.threads.filter((t) => t.alive).length;
  }

  /**
   * Runs `task` on a free thread, or queues until one is free: worker loops outnumber threads so
   * a thread never idles while a loop does its database work, and synchronous template tests
   * share a small pool. A canonical task builds the document; an extract task runs the embedded
   * entity and extraction stages on it (pipeline-task.ts ExtractTask).
   */
  run(task: PipelineTask, options: RunOptions): Promise<PipelineOutput>;
  run(task: ExtractTask, options: RunOptions): Promise<ExtractOutput>;
  async run(task: ThreadTask, options: RunOptions): Promise<PipelineOutput | ExtractOutput> {
    const thread = await this.freeThread(options);
    try {
      return await thread.run(task, options);
    } finally {
      this.waiting.shift()?.();
    }
  }

  /**
   * A free thread, waiting in line for one. A wait ends at once when its run is stopped (a cancel,
   * the job timeout, shutdown), and leaves the line, so the next thread to free up goes to a run
   * that still wants it. A free thread found after a stop is still taken: the run then stops at
   * once inside it, and passing the thread on stays the one job of `run`'s `finally`.
   */
  private async freeThread(options: RunOptions): Promise<PipelineThread> {
    const { signal } = options;
    for (;;) {
      const free = this.threads.find((t) => !t.busy);
      if (free) {
        // Taken in the same tick it is found: a run asking in the same tick (two loops) must not
        // get this thread too (it would wait inside it, started while the other is read).
        free.busy = true;
        return free;
      }
      if (signal.aborted) throw abortFailure(options.abortKind());
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          resolve();
        };
        this.waiting.push(wake);
        signal.addEventListener('abort', leave, { once: true });
      });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.stop()));
  }
}
