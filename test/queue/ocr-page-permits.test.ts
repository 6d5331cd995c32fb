// A pool's threads read no more pages with their OCR engines at once than its permits allow, and a
// run cancelled in the middle of a page never keeps its permit from the next one.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelinePool } from '../../src/queue/pipeline-pool.js';
import { data } from '../helpers/documents.js';

let pool: PipelinePool | null = null;
afterEach(async () => {
  await pool?.stop();
  pool = null;
});

function runScan(p: PipelinePool, file: string, signal = new AbortController().signal) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  return p.run({ bytes, ocr: { pageTimeoutMs: 170_000 }, renderDpi: null }, { signal, abortKind: () => 'cancelled' });
}

describe('OCR page permits', () => {
  it('two threads with one permit read their scans one page at a time, and both complete', async () => {
    pool = new PipelinePool(2, { ocrPagesAtOnce: 1, idleMs: 0 });
    let most = 0;
    let sampled = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, pool!.ocrPagesReading);
      sampled++;
    }, 10);
    try {
      const [a, b] = await Promise.all([runScan(pool, data('funsd/images/82092117.png')), runScan(pool, data('sroie/img/006.jpg'))]);
      expect(a.ocr?.pages.length).toBe(1);
      expect(b.ocr?.pages.length).toBe(1);
      expect((JSON.parse(a.canonicalText) as { text: string }).text.length).toBeGreaterThan(100);
      expect((JSON.parse(b.canonicalText) as { text: string }).text.length).toBeGreaterThan(100);
    } finally {
      clearInterval(sampler);
    }
    expect(sampled).toBeGreaterThan(10);
    expect(most).toBe(1);
    expect(pool.ocrPagesReading).toBe(0);
  }, 400_000);

  it('hands the permit of a run cancelled mid-page to the next scan', async () => {
    pool = new PipelinePool(1, { ocrPagesAtOnce: 1, idleMs: 0 });
    const controller = new AbortController();
    const cancelled = runScan(pool, data('funsd/images/82092117.png'), controller.signal);
    while (pool.ocrPagesReading === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: 'cancelled' });
    const next = await runScan(pool, data('sroie/img/006.jpg'));
    expect(next.ocr?.pages.length).toBe(1);
    expect(pool.ocrPagesReading).toBe(0);
  }, 400_000);
});
