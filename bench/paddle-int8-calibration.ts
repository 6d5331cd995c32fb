// `npm run bench -- paddle-int8-calibration [--pages N]`: makes the calibration table of the
// paddle detector's 8-bit neck and head (src/pipeline/ocr/paddle/detector-int8-table.ts).
//
// It prepares N (default 8) FUNSD forms and N SROIE receipts of the tuned slice (never the
// held-out one) as the OCR stage does, feeds each to the lean float detector at the two sizes
// Quire uses (1600 for reading, 960 for the orientation check) with every intermediate tensor as
// an output, and keeps for each tensor the mean over inputs of its lowest and of its highest value
// (the extremes of single pages would let one outlier coarsen a whole tensor's scale). Then it
// checks the result: the 8-bit detector's line boxes against the float detector's on the same
// inputs, as the share of float boxes matched at an IoU above 0.7.
//
// Tensors from the neck on are quantised: the backbone's early depthwise stages in 8 bits lost
// about one box in seven on these pages (docs/performance.md, "Worker memory").
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-node';
import { decodeImage } from '../src/pipeline/ocr/image.js';
import { detectorInput, PaddleEngine } from '../src/pipeline/ocr/paddle/index.js';
import { leanGraph, LEAN_OPSET, makeLean } from '../src/pipeline/ocr/paddle/lean-graph.js';
import { DB_DEFAULTS, dbPostprocess } from '../src/pipeline/ocr/paddle/db-postprocess.js';
import { paddleModelFiles } from '../src/pipeline/ocr/paddle/models.js';
import { OnnxGraph } from '../src/pipeline/ocr/paddle/onnx-graph.js';
import { quantiseActivations } from '../src/pipeline/ocr/paddle/int8-graph.js';
import { readOcrPolicy } from '../src/pipeline/ocr/policy.js';
import { preprocess } from '../src/pipeline/ocr/preprocess.js';
import { dataAvailable, funsdSamples, sroieSamples } from './ocr-data.js';
import { isHeldOut } from './lib/split.js';

const { values: opts } = parseArgs({ options: { pages: { type: 'string', default: '8' } }, allowPositionals: true });
if (!dataAvailable()) throw new Error('../shared/data is missing: the calibration reads FUNSD forms and SROIE receipts');
const perSet = Number(opts.pages);
const TABLE = new URL('../src/pipeline/ocr/paddle/detector-int8-table.ts', import.meta.url);

// 1. The detector's inputs, as the OCR stage makes them.
const tuned = <T extends { file: string }>(list: T[]) => list.filter((s) => !isHeldOut(path.basename(s.file))).slice(0, perSet);
const pages = [...tuned(funsdSamples()), ...tuned(sroieSamples())];
const engine = new PaddleEngine();
const policy = readOcrPolicy({});
const inputs: { name: string; data: Float32Array; width: number; height: number }[] = [];
for (const [i, sample] of pages.entries()) {
  const { raster } = await decodeImage(readFileSync(sample.file));
  const prepared = await preprocess(raster, policy.preprocessing, engine);
  for (const side of [1600, 960]) inputs.push({ name: `${path.basename(sample.file)}@${side}`, ...(await detectorInput(prepared.paddle, side)) });
  process.stderr.write(`\r  prepared ${i + 1}/${pages.length} pages`);
}
await engine.close();
process.stderr.write('\n');

// 2. Every tensor's range over those inputs.
const modelBytes = readFileSync(paddleModelFiles().detection);
const observed = new OnnxGraph(modelBytes);
makeLean(observed);
const order = observed.nodes.flatMap((n) => n.output ?? []);
observed.exposeAllOutputs();
const options: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'all', enableCpuMemArena: false, intraOpNumThreads: 1 };
const session = await ort.InferenceSession.create(observed.encode(LEAN_OPSET), options);
const extremes = new Map<string, { lows: number[]; highs: number[] }>();
for (const [i, input] of inputs.entries()) {
  const out = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', input.data, [1, 3, input.height, input.width]) });
  for (const [name, tensor] of Object.entries(out)) {
    const data = tensor.data as Float32Array;
    let low = Infinity;
    let high = -Infinity;
    for (let k = 0; k < data.length; k++) {
      const v = data[k]!;
      if (v < low) low = v;
      if (v > high) high = v;
    }
    const e = extremes.get(name) ?? { lows: [], highs: [] };
    e.lows.push(low);
    e.highs.push(high);
    extremes.set(name, e);
    tensor.dispose?.();
  }
  process.stderr.write(`\r  observed ${i + 1}/${inputs.length} inputs`);
}
await session.release();
process.stderr.write('\n');

// 3. The neck and head: from the first squeeze-excitation's input on, all but the probability map.
const lean = new OnnxGraph(modelBytes);
makeLean(lean);
const firstSqueeze = lean.nodes.find((n) => n.opType === 'GlobalAveragePool')!;
const neckStart = lean.nodes.indexOf(lean.producer(firstSqueeze.input![0]!)!);
const probabilityMap = lean.nodes.at(-1)!.output![0]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round = (v: number) => Number(v.toPrecision(6));
const ranges: Record<string, [number, number]> = {};
for (const name of order.slice(order.indexOf(lean.nodes[neckStart]!.output![0]!))) {
  const e = extremes.get(name);
  if (e && name !== probabilityMap) ranges[name] = [round(mean(e.lows)), round(mean(e.highs))];
}

// 4. How the 8-bit detector's boxes compare with the float one's on the same inputs.
quantiseActivations(lean, ranges);
const int8 = await ort.InferenceSession.create(lean.encode(LEAN_OPSET), options);
const float = await ort.InferenceSession.create(leanGraph(modelBytes).bytes, options);
const boxes = async (s: ort.InferenceSession, input: (typeof inputs)[number]) => {
  const out = await s.run({ [s.inputNames[0]!]: new ort.Tensor('float32', input.data, [1, 3, input.height, input.width]) });
  const map = out[s.outputNames[0]!]!;
  return dbPostprocess(map.data as Float32Array, input.width, input.height, DB_DEFAULTS).map((b) => {
    const xs = b.quad.map((p) => p[0]);
    const ys = b.quad.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  });
};
const iou = (a: number[], b: number[]) => {
  const w = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!));
  const h = Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
  const inter = w * h;
  return inter / ((a[2]! - a[0]!) * (a[3]! - a[1]!) + (b[2]! - b[0]!) * (b[3]! - b[1]!) - inter);
};
let floatBoxes = 0;
let int8Boxes = 0;
let matched = 0;
for (const input of inputs) {
  const [f, q] = [await boxes(float, input), await boxes(int8, input)];
  floatBoxes += f.length;
  int8Boxes += q.length;
  matched += f.filter((a) => q.some((b) => iou(a, b) > 0.7)).length;
}
const agreement = { float_boxes: floatBoxes, int8_boxes: int8Boxes, matched_at_iou_0_7: matched, recall: round(matched / floatBoxes) };
process.stderr.write(`  ${Object.keys(ranges).length} tensors; 8-bit boxes against float: ${JSON.stringify(agreement)}\n`);

const sha256 = createHash('sha256').update(modelBytes).digest('hex');
writeFileSync(
  TABLE,
  `// Made by bench/paddle-int8-calibration.ts (${new Date().toISOString().slice(0, 10)}): do not edit by hand. The ranges of the
// paddle detector's neck and head tensors over ${pages.length} tuned-slice pages (${perSet} FUNSD forms, ${perSet} SROIE
// receipts) at inputs of 1600 and 960 pixels; int8-graph.ts quantises with them. On those inputs the
// 8-bit detector found ${matched} of the float detector's ${floatBoxes} line boxes (IoU above 0.7) and ${int8Boxes} in all.
import type { RangeTable } from './int8-graph.js';

/** SHA-256 of the detector model the ranges were observed on; another model is read in float. */
export const DETECTOR_SHA256 = '${sha256}';

export const DETECTOR_RANGES: RangeTable = ${JSON.stringify(ranges, null, 2)};
`,
);
process.stderr.write(`wrote ${TABLE.pathname}\n`);
