// The paddle detector's rewritten graph (src/pipeline/ocr/paddle/lean-graph.ts) must be the same
// detector: the same text lines on real pages, read by the real onnxruntime.
import { readFileSync } from 'node:fs';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { dataAvailable, funsdSamples, sroieSamples } from '../../bench/ocr-data.js';
import { decodeImage } from '../../src/pipeline/ocr/image.js';
import { PaddleEngine } from '../../src/pipeline/ocr/paddle/index.js';
import { leanGraph } from '../../src/pipeline/ocr/paddle/lean-graph.js';
import { paddleModelFiles } from '../../src/pipeline/ocr/paddle/models.js';
import type { Quad } from '../../src/pipeline/ocr/paddle/db-postprocess.js';

const SLOW = 180_000;
const opTypes = (bytes: Uint8Array) => new Set(onnxProto.onnx.ModelProto.decode(bytes).graph!.node!.map((n) => n.opType));

describe.runIf(dataAvailable())('the lean paddle detector graph', () => {
  it('folds scales, shifts and normalisations into convolutions and fuses hard-swish', () => {
    const original = readFileSync(paddleModelFiles().detection);
    const { bytes, report } = leanGraph(original);
    for (const [rewrite, count] of Object.entries(report.rewrites)) expect(count, rewrite).toBeGreaterThan(0);
    expect(report.nodesAfter).toBeLessThan(report.nodesBefore * 0.6);
    const before = opTypes(original);
    const after = opTypes(bytes);
    expect(before.has('Clip') && before.has('Div') && before.has('BatchNormalization')).toBe(true);
    expect([...after].filter((op) => ['Clip', 'Div', 'BatchNormalization', 'Constant'].includes(op))).toEqual([]);
    expect(after.has('HardSwish')).toBe(true);
  });

  it(
    'finds the same text lines as the exported graph on a form and a receipt',
    async () => {
      const lean = new PaddleEngine({ detectorGraph: 'lean' });
      const exported = new PaddleEngine({ detectorGraph: 'as-exported' });
      const corners = (quads: Quad[]) => quads.flatMap((q) => q.flat());
      try {
        for (const sample of [funsdSamples()[0]!, sroieSamples()[0]!]) {
          const { raster } = await decodeImage(readFileSync(sample.file));
          const [a, b] = [await lean.lineBoxes(raster, 1600), await exported.lineBoxes(raster, 1600)];
          expect(a.length, sample.file).toBeGreaterThan(10);
          expect(a.length, sample.file).toBe(b.length);
          const [ca, cb] = [corners(a), corners(b)];
          expect(Math.max(...ca.map((v, i) => Math.abs(v - cb[i]!)))).toBeLessThanOrEqual(1);
        }
      } finally {
        await lean.close();
        await exported.close();
      }
    },
    SLOW,
  );
});
