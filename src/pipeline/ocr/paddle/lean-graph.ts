// The paddle detector's graph, rewritten into fewer operations before onnxruntime loads it.
// paddle2onnx spells PP-LCNetV3's building blocks out one elementwise operation at a time: a
// convolution, then its learnt scale and shift as a Mul and an Add, hard-swish as Add, Clip, Mul
// and Div, squeeze-excitation's `x + x·s` as a Mul and an Add. At the detector's input size every
// one of them writes a whole feature map (up to 46 MB at 1600 × 1248), and several are alive at
// once. Each rewrite here is exact algebra: scales and shifts folded into the convolution's
// weights, hard-swish as its own ONNX operator, `x + x·s` as `x · (s + 1)` on the small `s`.
// Measured in docs/performance.md: the same probability map (largest difference about 3e-5),
// a page's detection peak about 50 MB lower and about 15 % faster.
import { type FloatTensor as Tensor, type Node, OnnxGraph } from './onnx-graph.js';

/** Numbers of each rewrite applied (the test checks every one found its pattern). */
export interface LeanGraphReport {
  nodesBefore: number;
  nodesAfter: number;
  rewrites: Record<string, number>;
}

/** HardSwish is an ONNX operator from opset 14; the model's other operators mean the same there. */
const LEAN_OPSET = 14;

/** Rewrites a serialised ONNX model; returns the new bytes and what was done. */
export function leanGraph(bytes: Uint8Array): { bytes: Uint8Array; report: LeanGraphReport } {
  const graph = new OnnxGraph(bytes);
  const nodesBefore = graph.nodes.length;
  const rewrites = {
    batch_norm_into_conv: foldBatchNormIntoConv(graph),
    scale_shift_into_conv: foldScaleShiftIntoConv(graph),
    hard_swish: fuseHardSwish(graph),
    scale_shift_into_next_conv: foldScaleShiftIntoNextConv(graph),
    squeeze_excitation_residual: fuseSqueezeExcitationResidual(graph),
    bias_into_conv_transpose: foldIntoConvTranspose(graph),
  };
  return { bytes: graph.encode(LEAN_OPSET), report: { nodesBefore, nodesAfter: graph.nodes.length, rewrites } };
}

/** Conv → BatchNormalization: the normalisation folded into the convolution's weights and bias. */
function foldBatchNormIntoConv(graph: OnnxGraph): number {
  let count = 0;
  for (const conv of graph.ofType('Conv')) {
    const bn = graph.soleConsumer(conv.output![0]!, 'BatchNormalization');
    const normalisation = bn && batchNorm(graph, bn);
    const own = convParams(graph, conv);
    if (!bn || !normalisation || !own) continue;
    setConvParams(graph, conv, scaleChannels(own.weight, normalisation.factor, 0), normalisation.onBias(own.bias));
    graph.bypass(bn, conv);
    count++;
  }
  return count;
}

/** Conv → Mul(a) → Add(b) with scalar a, b: `a·conv(x) + b` is a convolution with weights a·W, bias a·B + b. */
function foldScaleShiftIntoConv(graph: OnnxGraph): number {
  let count = 0;
  for (const conv of graph.ofType('Conv')) {
    const mul = graph.soleConsumer(conv.output![0]!, 'Mul');
    const scale = mul && graph.scalarOperand(mul, conv.output![0]!);
    const params = convParams(graph, conv);
    if (!mul || scale === undefined || !params) continue;
    const add = graph.soleConsumer(mul.output![0]!, 'Add');
    const shift = add ? graph.scalarOperand(add, mul.output![0]!) : undefined;
    const { weight, bias } = params;
    setConvParams(graph, conv, mapTensor(weight, (w) => w * scale), bias.map((b) => b * scale + (shift ?? 0)));
    graph.bypass(mul, conv);
    if (add && shift !== undefined) graph.bypass(add, conv);
    count++;
  }
  return count;
}

/** Add(x, 3) → Clip(0, 6) → Mul(x, ·) → Div(6): `x · relu6(x + 3) / 6` is HardSwish(x). */
function fuseHardSwish(graph: OnnxGraph): number {
  let count = 0;
  for (const add of graph.ofType('Add')) {
    const x = add.input!.find((name) => graph.scalarValue(name) !== 3);
    if (!x || add.input!.length !== 2 || graph.scalarOperand(add, x) !== 3) continue;
    const clip = graph.soleConsumer(add.output![0]!, 'Clip');
    if (!clip || graph.scalarValue(clip.input![1]) !== 0 || graph.scalarValue(clip.input![2]) !== 6) continue;
    const mul = graph.soleConsumer(clip.output![0]!, 'Mul');
    if (!mul || !mul.input!.includes(x)) continue;
    const div = graph.soleConsumer(mul.output![0]!, 'Div');
    if (!div || div.input![0] !== mul.output![0] || graph.scalarValue(div.input![1]) !== 6) continue;
    const at = graph.nodes.indexOf(add);
    graph.remove(add, clip, mul, div);
    graph.nodes.splice(at, 0, { opType: 'HardSwish', name: `${div.output![0]}/hard_swish`, input: [x], output: [div.output![0]!] });
    count++;
  }
  return count;
}

/**
 * Mul(a) → Add(b) → an unpadded 1×1 convolution: `W·(a·h + b)` is a convolution of h with
 * weights a·W and bias B + b·ΣW. Only unpadded ones: padding would read 0 where `a·h + b` has b.
 */
function foldScaleShiftIntoNextConv(graph: OnnxGraph): number {
  let count = 0;
  for (const mul of graph.ofType('Mul')) {
    const h = mul.input!.find((name) => graph.scalarValue(name) === undefined);
    const scale = h === undefined ? undefined : graph.scalarOperand(mul, h);
    if (h === undefined || scale === undefined) continue;
    const add = graph.soleConsumer(mul.output![0]!, 'Add');
    const shift = add && graph.scalarOperand(add, mul.output![0]!);
    const conv = add && graph.soleConsumer(add.output![0]!, 'Conv');
    const params = conv && convParams(graph, conv);
    if (!add || shift === undefined || !conv || !params || conv.input![0] !== add.output![0] || !isPlainPointwise(graph, conv)) continue;
    const { weight, bias } = params;
    const perOutput = weight.data.length / weight.dims[0]!;
    const sums = bias.map((_, o) => weight.data.subarray(o * perOutput, (o + 1) * perOutput).reduce((s, w) => s + w, 0));
    setConvParams(graph, conv, mapTensor(weight, (w) => w * scale), bias.map((b, o) => b + shift * sums[o]!));
    conv.input![0] = h;
    graph.remove(mul, add);
    count++;
  }
  return count;
}

/** Add(x, Mul(x, s)) with s a HardSigmoid's output: `x + x·s` as `x · (s + 1)`, one map fewer. */
function fuseSqueezeExcitationResidual(graph: OnnxGraph): number {
  let count = 0;
  const one = graph.constant({ dims: [], data: new Float32Array([1]) });
  for (const add of graph.ofType('Add')) {
    for (const [x, product] of [add.input!, [...add.input!].reverse()] as [string, string][]) {
      const mul = graph.producer(product);
      if (mul?.opType !== 'Mul' || !mul.input!.includes(x) || graph.consumers(product).length !== 1) continue;
      const s = mul.input!.find((name) => name !== x);
      if (!s || graph.producer(s)?.opType !== 'HardSigmoid') continue;
      const sPlusOne = `${s}/plus_one`;
      graph.nodes.splice(graph.nodes.indexOf(mul), 0, { opType: 'Add', name: sPlusOne, input: [s, one], output: [sPlusOne] });
      mul.input = [x, sPlusOne];
      mul.output = [add.output![0]!];
      graph.remove(add);
      count++;
      break;
    }
  }
  return count;
}

/** ConvTranspose → Add(bias) → BatchNormalization: both folded into the transposed convolution. */
function foldIntoConvTranspose(graph: OnnxGraph): number {
  let count = 0;
  for (const convT of graph.ofType('ConvTranspose')) {
    const add = graph.soleConsumer(convT.output![0]!, 'Add');
    const added = add?.input!.find((name) => name !== convT.output![0]);
    const addedBias = added ? graph.constants.get(added) : undefined;
    const weight = graph.constants.get(convT.input![1]!);
    if (!add || !addedBias || !weight || (convT.input![2] && !graph.constants.get(convT.input![2]!)) || graph.intAttribute(convT, 'group', 1) !== 1) continue;
    const channels = weight.dims[1]!;
    if (addedBias.data.length !== 1 && addedBias.data.length !== channels) continue;
    const own = convT.input![2] ? graph.constants.get(convT.input![2]!)!.data : new Float32Array(channels);
    let bias: Float32Array = own.map((b, c) => b + addedBias.data[addedBias.data.length === 1 ? 0 : c]!);
    let scaled = weight;
    graph.bypass(add, convT);
    const bn = graph.soleConsumer(convT.output![0]!, 'BatchNormalization');
    const normalisation = bn && batchNorm(graph, bn);
    if (bn && normalisation) {
      scaled = scaleChannels(weight, normalisation.factor, 1);
      bias = normalisation.onBias(bias);
      graph.bypass(bn, convT);
    }
    convT.input = [convT.input![0]!, graph.constant(scaled), graph.constant({ dims: [channels], data: bias })];
    count++;
  }
  return count;
}

/**
 * An inference-time BatchNormalization with constant parameters as a per-channel factor on the
 * weights and what it makes of a bias: `γ·(x − μ)/√(σ² + ε) + β`.
 */
function batchNorm(graph: OnnxGraph, bn: Node): { factor: Float32Array; onBias: (bias: Float32Array) => Float32Array } | undefined {
  const params = bn.input!.slice(1, 5).map((name) => graph.constants.get(name));
  if (params.length !== 4 || params.some((p) => !p)) return undefined;
  const [gamma, beta, mean, variance] = params as Tensor[];
  const epsilon = graph.floatAttribute(bn, 'epsilon', 1e-5);
  const factor = gamma!.data.map((g, c) => g / Math.sqrt(variance!.data[c]! + epsilon));
  return { factor, onBias: (bias) => bias.map((b, c) => (b - mean!.data[c]!) * factor[c]! + beta!.data[c]!) };
}

/** A convolution's constant weights and bias (zeros when it has none), or undefined. */
function convParams(graph: OnnxGraph, conv: Node): { weight: Tensor; bias: Float32Array } | undefined {
  const weight = graph.constants.get(conv.input![1]!);
  const bias = conv.input![2] ? graph.constants.get(conv.input![2]!)?.data : new Float32Array(weight?.dims[0] ?? 0);
  return weight && bias ? { weight, bias } : undefined;
}

function setConvParams(graph: OnnxGraph, conv: Node, weight: Tensor, bias: Float32Array): void {
  conv.input = [conv.input![0]!, graph.constant(weight), graph.constant({ dims: [bias.length], data: bias })];
}

function mapTensor(t: Tensor, f: (v: number) => number): Tensor {
  return { dims: t.dims, data: t.data.map(f) };
}

/** Multiplies each slice along `axis` (0 for Conv's output channels, 1 for ConvTranspose's) by its factor. */
function scaleChannels(t: Tensor, factor: Float32Array, axis: 0 | 1): Tensor {
  const inner = t.dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const channels = t.dims[axis]!;
  return { dims: t.dims, data: t.data.map((v, i) => v * factor[Math.floor(i / inner) % channels]!) };
}

/** A 1×1, unpadded, ungrouped convolution. */
function isPlainPointwise(graph: OnnxGraph, conv: Node): boolean {
  return graph.intAttribute(conv, 'group', 1) === 1 && graph.intsAttribute(conv, 'pads').every((p) => p === 0) && graph.intsAttribute(conv, 'kernel_shape').every((k) => k === 1);
}
