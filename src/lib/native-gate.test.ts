// The native-call gate between a thread and its pool, with a real worker thread blocked the way a
// synchronous native call blocks it (Atomics.wait): the pool side waits until the call is over,
// and from then on the thread may not enter another.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { NativeGate } from './native-gate.js';

const THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
const state = new Int32Array(workerData.gate);
const block = new Int32Array(new SharedArrayBuffer(4));
const finished = new Int32Array(workerData.finished);
// The same protocol as NativeGate.enter, inlined (a CommonJS eval thread cannot import the module).
const enter = (ms) => {
  if (Atomics.compareExchange(state, 0, 0, 1) === 2) return 'refused';
  Atomics.wait(block, 0, 0, ms);
  Atomics.add(finished, 0, 1);
  Atomics.compareExchange(state, 0, 1, 0);
  return 'ran';
};
parentPort.on('message', (ms) => parentPort.postMessage(enter(ms)));
`;

describe('NativeGate', () => {
  it('lets the pool end a thread only after its blocking call returns, and bars the next one', async () => {
    const gate = new NativeGate();
    const finished = new Int32Array(new SharedArrayBuffer(4));
    const state = new Int32Array(gate.buffer);
    const thread = new Worker(THREAD, { eval: true, workerData: { gate: gate.buffer, finished: finished.buffer } });
    const answers: string[] = [];
    thread.on('message', (m: string) => answers.push(m));
    thread.postMessage(300);
    for (let i = 0; i < 400 && Atomics.load(state, 0) !== 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(Atomics.load(state, 0)).toBe(1);
    await gate.close(30_000);
    // The blocking call was over before the gate let the pool go on.
    expect(Atomics.load(finished, 0)).toBe(1);
    thread.postMessage(10);
    for (let i = 0; i < 400 && answers.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(answers).toEqual(['ran', 'refused']);
    expect(Atomics.load(finished, 0)).toBe(1);
    await thread.terminate();
  });

  it('runs calls in order in the thread itself and refuses them once ending', async () => {
    const gate = new NativeGate();
    await expect(gate.enter(async () => 7)).resolves.toBe(7);
    await gate.close(10);
    await expect(gate.enter(async () => 8)).rejects.toThrow('ending');
  });
});
