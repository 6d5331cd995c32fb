// The paddle detector's rewritten graph (src/pipeline/ocr/paddle/lean-graph.ts) must be the same
// detector: the same text lines on real pages, read by the real onnxruntime.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { dataAvailable, funsdSamples, sroieSamples } from '../../bench/ocr-data.js';
import { isHeldOut } from '../../bench/lib/split.js';
import { decodeImage } from '../../src/pipeline/ocr/image.js';
import { PaddleEngine } from '../../src/pipeline/ocr/paddle/index.js';
import { leanGraph } from '../../src/pipeline/ocr/paddle/lean-graph.js';
import { paddleModelFiles } from '../../src/pipeline/ocr/paddle/models.js';
import type { Quad } from '../../src/pipeline/ocr/paddle/db-postprocess.js';

const SLOW = 180_000;
const opTypes = (bytes: Uint8Array) => onnxProto.onnx.ModelProto.decode(bytes).graph!.node!.map((n) => n.opType ?? '');
const heldOut = <T extends { file: string }>(list: T[]) => list.filter((s) => isHeldOut(path.basename(s.file)));

describe.runIf(dataAvailable())('the lean paddle detector graph', () => {
  const original = readFileSync(paddleModelFiles().detection);

  it('folds scales, shifts and normalisations into convolutions and fuses hard-swish', () => {
    const { bytes, report } = leanGraph(original);
    for (const [rewrite, count] of Object.entries(report.rewrites)) expect(count, rewrite).toBeGreaterThan(0);
    expect(report.nodesAfter).toBeLessThan(report.nodesBefore * 0.6);
    const before = new Set(opTypes(original));
    const after = new Set(opTypes(bytes));
    expect(before.has('Clip') && before.has('Div') && before.has('BatchNormalization')).toBe(true);
    expect([...after].filter((op) => ['Clip', 'Div', 'BatchNormalization', 'Constant'].includes(op))).toEqual([]);
    expect(after.has('HardSwish')).toBe(true);
  });

  it(
    'finds the same text lines as the exported graph on held-out forms and receipts',
    async () => {
      const engines = { lean: new PaddleEngine(), exported: new PaddleEngine({ detectorGraph: 'as-exported' }) };
      const corners = (quads: Quad[]) => quads.flatMap((q) => q.flat());
      try {
        for (const sample of [...heldOut(funsdSamples()).slice(0, 2), ...heldOut(sroieSamples()).slice(0, 2)]) {
          const { raster } = await decodeImage(readFileSync(sample.file));
          const [lean, exported] = [await engines.lean.lineBoxes(raster, 1600), await engines.exported.lineBoxes(raster, 1600)];
          expect(lean.length, sample.file).toBeGreaterThan(10);
          expect(lean.length, sample.file).toBe(exported.length);
          const [a, b] = [corners(lean), corners(exported)];
          expect(Math.max(...a.map((v, i) => Math.abs(v - b[i]!)))).toBeLessThanOrEqual(1);
        }
      } finally {
        await Promise.all(Object.values(engines).map((e) => e.close()));
      }
    },
    SLOW,
  );
});
