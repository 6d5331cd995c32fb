// The paddle detector's rewritten graphs (src/pipeline/ocr/paddle/detector-graph.ts): the lean
// float graph must be the same detector, the 8-bit one nearly so, on real pages read by the real
// onnxruntime.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { dataAvailable, funsdSamples, sroieSamples } from '../../bench/ocr-data.js';
import { isHeldOut } from '../../bench/lib/split.js';
import { decodeImage } from '../../src/pipeline/ocr/image.js';
import { detectorModel } from '../../src/pipeline/ocr/paddle/detector-graph.js';
import { PaddleEngine } from '../../src/pipeline/ocr/paddle/index.js';
import { leanGraph } from '../../src/pipeline/ocr/paddle/lean-graph.js';
import { paddleModelFiles } from '../../src/pipeline/ocr/paddle/models.js';
import type { Quad } from '../../src/pipeline/ocr/paddle/db-postprocess.js';

const SLOW = 180_000;
const opTypes = (bytes: Uint8Array) => onnxProto.onnx.ModelProto.decode(bytes).graph!.node!.map((n) => n.opType ?? '');
const box = (q: Quad) => [Math.min(...q.map((p) => p[0])), Math.min(...q.map((p) => p[1])), Math.max(...q.map((p) => p[0])), Math.max(...q.map((p) => p[1]))];
function iou(q: Quad, r: Quad): number {
  const [a, b] = [box(q), box(r)];
  const inter = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!)) * Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
  return inter / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter);
}
const heldOut = <T extends { file: string }>(list: T[]) => list.filter((s) => isHeldOut(path.basename(s.file)));

describe.runIf(dataAvailable())('the paddle detector graphs', () => {
  const original = readFileSync(paddleModelFiles().detection);

  it('lean: folds scales, shifts and normalisations into convolutions and fuses hard-swish', () => {
    const { bytes, report } = leanGraph(original);
    for (const [rewrite, count] of Object.entries(report.rewrites)) expect(count, rewrite).toBeGreaterThan(0);
    expect(report.nodesAfter).toBeLessThan(report.nodesBefore * 0.6);
    const before = new Set(opTypes(original));
    const after = new Set(opTypes(bytes));
    expect(before.has('Clip') && before.has('Div') && before.has('BatchNormalization')).toBe(true);
    expect([...after].filter((op) => ['Clip', 'Div', 'BatchNormalization', 'Constant'].includes(op))).toEqual([]);
    expect(after.has('HardSwish')).toBe(true);
  });

  it('int8: quantises the neck and head around their convolutions and leaves the backbone in float', () => {
    const ops = opTypes(detectorModel(original, 'int8'));
    const firstQuantise = ops.indexOf('QuantizeLinear');
    expect(firstQuantise).toBeGreaterThan(0);
    // The backbone's convolutions come before the first quantisation, in float.
    expect(ops.slice(0, firstQuantise).filter((op) => op === 'Conv').length).toBeGreaterThan(20);
    expect(ops.filter((op) => op === 'QuantizeLinear').length).toBeGreaterThan(50);
    expect(ops.at(-1)).toBe('Sigmoid');
  });

  it(
    'lean finds the same text lines as the exported graph; int8 nearly all of them, on held-out pages',
    async () => {
      const engines = { int8: new PaddleEngine({ detectorGraph: 'int8' }), lean: new PaddleEngine(), exported: new PaddleEngine({ detectorGraph: 'as-exported' }) };
      const corners = (quads: Quad[]) => quads.flatMap((q) => q.flat());
      let floatLines = 0;
      let matched = 0;
      try {
        for (const sample of [...heldOut(funsdSamples()).slice(0, 2), ...heldOut(sroieSamples()).slice(0, 2)]) {
          const { raster } = await decodeImage(readFileSync(sample.file));
          const [lean, exported, int8] = [await engines.lean.lineBoxes(raster, 1600), await engines.exported.lineBoxes(raster, 1600), await engines.int8.lineBoxes(raster, 1600)];
          expect(lean.length, sample.file).toBeGreaterThan(10);
          expect(lean.length, sample.file).toBe(exported.length);
          const [a, b] = [corners(lean), corners(exported)];
          expect(Math.max(...a.map((v, i) => Math.abs(v - b[i]!)))).toBeLessThanOrEqual(1);
          floatLines += lean.length;
          matched += lean.filter((q) => int8.some((r) => iou(q, r) > 0.7)).length;
        }
        expect(matched / floatLines).toBeGreaterThan(0.9);
      } finally {
        await Promise.all(Object.values(engines).map((e) => e.close()));
      }
    },
    SLOW,
  );
});
