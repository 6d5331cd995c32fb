// An idle pipeline thread is ended after its idle spell (so a quiet worker gives back what its
// parsers and OCR engines grew to), and the next task starts a fresh thread: also right after a
// thread that had both OCR engines (native onnxruntime) loaded.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelinePool } from '../../src/queue/pipeline-pool.js';
import { FILES, data } from '../helpers/documents.js';

let pool: PipelinePool | null = null;
/** Only the idle spell ends threads here, never a memory high-water mark. */
const NO_MEMORY_MARK = { recycleBytes: Number.MAX_SAFE_INTEGER, processRecycleBytes: Number.MAX_SAFE_INTEGER };
afterEach(async () => {
  await pool?.stop();
  pool = null;
});

function run(p: PipelinePool, file: string, ocr = false) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  return p.run({ bytes, ocr: ocr ? { pageTimeoutMs: 170_000 } : null, renderDpi: null }, { signal: new AbortController().signal, abortKind: () => 'cancelled' });
}

async function untilNoLiveThread(p: PipelinePool, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (p.liveThreads > 0) {
    if (Date.now() > deadline) throw new Error('the idle thread was not ended');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('idle pipeline threads', () => {
  it('ends a thread after its idle spell and runs the next task on a new one', async () => {
    pool = new PipelinePool(1, { ...NO_MEMORY_MARK, idleMs: 300 });
    expect(pool.liveThreads).toBe(0);
    expect((await run(pool, FILES.invoice)).format).toBe('pdf');
    expect(pool.liveThreads).toBe(1);
    await untilNoLiveThread(pool, 30_000);
    expect(pool.idleEndedThreads).toBe(1);
    const next = await run(pool, FILES.notes);
    expect(next.format).toBe('pptx');
    expect(pool.liveThreads).toBe(1);
  }, 120_000);

  it('ends a thread whose OCR engines were loaded, and OCR works on the next one', async () => {
    pool = new PipelinePool(1, { ...NO_MEMORY_MARK, idleMs: 300 });
    const scan = data('funsd/images/82092117.png');
    const first = await run(pool, scan, true);
    expect(first.ocr?.pages.length).toBe(1);
    await untilNoLiveThread(pool, 170_000);
    expect(pool.idleEndedThreads).toBe(1);
    const second = await run(pool, scan, true);
    expect((JSON.parse(second.canonicalText) as { text: string }).text).toBe((JSON.parse(first.canonicalText) as { text: string }).text);
  }, 400_000);

  it('keeps a busy thread: the spell counts from the end of the last task', async () => {
    pool = new PipelinePool(1, { ...NO_MEMORY_MARK, idleMs: 60_000 });
    for (const file of [FILES.invoice, FILES.notes, FILES.multipage]) await run(pool, file);
    expect(pool.liveThreads).toBe(1);
    expect(pool.idleEndedThreads).toBe(0);
  }, 120_000);
});
