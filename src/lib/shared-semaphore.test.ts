import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SharedSemaphore } from './shared-semaphore.js';

/** A thread that takes a permit of the shared semaphore, says so, and keeps it until told or until it exits. */
function holderThread(buffer: SharedArrayBuffer): Worker {
  const source = `
    const { parentPort, workerData, threadId } = require('node:worker_threads');
    const cells = new Int32Array(workerData);
    (async () => {
      for (;;) {
        const generation = Atomics.load(cells, 0);
        for (let i = 1; i < cells.length; i++) if (Atomics.compareExchange(cells, i, 0, threadId) === 0) return parentPort.postMessage({ got: threadId });
        const w = Atomics.waitAsync(cells, 0, generation, 250);
        if (w.async) await w.value;
      }
    })();
    parentPort.on('message', (m) => { if (m === 'exit') process.exit(0); });`;
  return new Worker(source, { eval: true, workerData: buffer });
}

const nextMessage = (worker: Worker) => new Promise<{ got: number }>((resolve) => worker.once('message', resolve));

describe('SharedSemaphore', () => {
  it('lets no more holders in than it has permits, and hands a released permit to a waiter', async () => {
    const semaphore = new SharedSemaphore(1);
    expect(await semaphore.acquire(1)).toBe(true);
    const waiter = semaphore.acquire(2);
    let got = false;
    void waiter.then(() => (got = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toBe(false);
    expect(semaphore.held).toBe(1);
    semaphore.release(1);
    expect(await waiter).toBe(true);
    expect(semaphore.held).toBe(1);
  });

  it('gives up waiting when told to stop', async () => {
    const semaphore = new SharedSemaphore(1);
    await semaphore.acquire(1);
    let stop = false;
    const waiter = semaphore.acquire(2, () => stop);
    stop = true;
    expect(await waiter).toBe(false);
    expect(semaphore.held).toBe(1);
  });

  it('is shared with other threads, and the permits of a thread that ended can be handed back', async () => {
    const semaphore = new SharedSemaphore(1);
    const first = holderThread(semaphore.buffer);
    const { got: firstId } = await nextMessage(first);
    expect(semaphore.held).toBe(1);

    // A second thread waits: the one permit is the first thread's.
    const second = holderThread(semaphore.buffer);
    let secondGot = false;
    const secondMessage = nextMessage(second).then((m) => ((secondGot = true), m));
    await new Promise((r) => setTimeout(r, 100));
    expect(secondGot).toBe(false);

    // The first thread ends holding its permit; its owner hands it back and the second gets it.
    first.postMessage('exit');
    await new Promise((r) => first.once('exit', r));
    expect(semaphore.releaseAll(firstId)).toBe(1);
    expect((await secondMessage).got).toBe(second.threadId);
    await second.terminate();
  });
});
