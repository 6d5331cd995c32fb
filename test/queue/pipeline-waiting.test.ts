// Runs wait in line for a pipeline thread. A run stopped while it waits (a cancel, the job
// timeout, shutdown) leaves the line at once, and the thread goes on to the next run that wants
// it: one stopped waiter must never leave a free thread idle and the runs behind it waiting.
import { afterAll, describe, expect, it } from 'vitest';
import { PipelinePool } from '../../src/queue/pipeline-pool.js';
import { FILES } from '../helpers/documents.js';

const pool = new PipelinePool(1);
afterAll(() => pool.stop());

function run(signal: AbortSignal, path = FILES.invoice) {
  return pool.run({ path, ocr: null, renderDpi: null }, { signal, abortKind: () => 'cancelled' });
}

describe('waiting for a pipeline thread', () => {
  it('stops a waiting run at once when it is cancelled, and the runs behind it still get the thread', async () => {
    await run(new AbortController().signal); // the thread is up
    const first = run(new AbortController().signal, FILES.long);
    const cancelled = new AbortController();
    const second = run(cancelled.signal);
    const third = run(new AbortController().signal);
    let firstDone = false;
    void first.then(() => (firstDone = true));

    cancelled.abort();
    await expect(second).rejects.toMatchObject({ code: 'cancelled' });
    // It stopped while the long document was still being read, not when the thread came free.
    expect(firstDone).toBe(false);
    expect((await first).pageCount).toBeGreaterThan(50);
    expect((await third).format).toBe('pdf');
  }, 60_000);

  it('starts a run (onStart) only once a thread is taken for it, never while it waits in line', async () => {
    const started: string[] = [];
    let secondStartedWhileFirstRead = false;
    const first = pool.run(
      { path: FILES.long, ocr: null, renderDpi: null },
      {
        signal: new AbortController().signal,
        abortKind: () => 'cancelled',
        onStart: async () => void started.push('first'),
        onProgress: () => {
          if (started.includes('second')) secondStartedWhileFirstRead = true;
        },
      },
    );
    const second = pool.run({ path: FILES.invoice, ocr: null, renderDpi: null }, { signal: new AbortController().signal, abortKind: () => 'cancelled', onStart: async () => void started.push('second') });
    expect((await first).pageCount).toBeGreaterThan(50);
    expect((await second).format).toBe('pdf');
    expect(started).toEqual(['first', 'second']);
    expect(secondStartedWhileFirstRead).toBe(false);
  }, 60_000);

  it('a run whose start fails gives the thread to the next run', async () => {
    const refused = pool.run({ path: FILES.invoice, ocr: null, renderDpi: null }, { signal: new AbortController().signal, abortKind: () => 'cancelled', onStart: () => Promise.reject(new Error('lease lost')) });
    await expect(refused).rejects.toThrow('lease lost');
    expect((await run(new AbortController().signal)).format).toBe('pdf');
  }, 60_000);
});
