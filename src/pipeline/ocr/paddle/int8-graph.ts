// The paddle detector's neck and head in 8 bits. onnxruntime runs a convolution, an addition, a
// product, a concatenation or an upsampling whose inputs come through DequantizeLinear and whose
// output goes through QuantizeLinear on 8-bit tensors (its "QDQ" format), so a feature map held
// between two of them takes a quarter of the bytes, and the arithmetic is integer. The scales come
// from a calibration table (detector-int8-table.ts, made by bench/paddle-int8-calibration.ts from
// tuned-slice pages): activations asymmetric 8-bit per tensor, weights symmetric 8-bit per output
// channel, biases 32-bit at the product of their input's and weights' scales.
// Only tensors the table names are quantised: the calibration leaves the backbone in float,
// because its early depthwise stages lose too much at 8 bits (docs/performance.md).
import type { Node, OnnxGraph } from './onnx-graph.js';

/** Per-tensor ranges [low, high] of the float values, from calibration. */
export type RangeTable = Record<string, readonly [number, number]>;

interface ActivationQuantisation {
  scale: number;
  zeroPoint: number;
  scaleName: string;
  zeroName: string;
  quantised: string;
}

/** Inserts QuantizeLinear/DequantizeLinear around the tensors of `ranges`; returns how many. */
export function quantiseActivations(graph: OnnxGraph, ranges: RangeTable): number {
  const activations = new Map<string, ActivationQuantisation>();
  const activation = (name: string): ActivationQuantisation | undefined => {
    const range = ranges[name];
    if (!range) return undefined;
    let q = activations.get(name);
    if (!q) {
      const { scale, zeroPoint } = asymmetric(range[0], range[1]);
      q = { scale, zeroPoint, scaleName: graph.constant({ dims: [], data: new Float32Array([scale]) }), zeroName: graph.integerConstant('uint8', [], new Uint8Array([zeroPoint])), quantised: `${name}/quantised` };
      activations.set(name, q);
    }
    return q;
  };

  const nodes: Node[] = [];
  const dequantise = (quantised: string, scale: string, zero: string, output: string, axis?: number) =>
    nodes.push({ opType: 'DequantizeLinear', name: output, input: [quantised, scale, zero], output: [output], attribute: axis === undefined ? [] : [{ name: 'axis', type: 2, i: axis }] });

  const quantise = (name: string, q: ActivationQuantisation) => nodes.push({ opType: 'QuantizeLinear', name: q.quantised, input: [name, q.scaleName, q.zeroName], output: [q.quantised] });
  // The graph's own inputs, when the table names them, are quantised before anything reads them.
  for (const name of Object.keys(ranges)) if (!graph.producer(name) && !graph.constants.has(name)) quantise(name, activation(name)!);

  graph.nodes.forEach((node, index) => {
    const inputs = node.input ?? [];
    const quantisedData = activation(inputs[0] ?? '');
    const weight = node.opType === 'Conv' && quantisedData ? graph.constants.get(inputs[1] ?? '') : undefined;
    const weights = weight && symmetricPerChannel(weight.data, weight.dims[0]!);
    node.input = inputs.map((name, k) => {
      const q = activation(name);
      if (q) {
        const output = `${name}/dequantised/${index}`;
        dequantise(q.quantised, q.scaleName, q.zeroName, output);
        return output;
      }
      const constant = graph.constants.get(name);
      if (!constant) return name;
      if (k === 1 && weights) {
        const { data, scales } = weights;
        const output = `${name}/dequantised/${index}`;
        dequantise(graph.integerConstant('int8', constant.dims, data), graph.constant({ dims: [scales.length], data: scales }), graph.integerConstant('int8', [scales.length], new Int8Array(scales.length)), output, 0);
        return output;
      }
      if (k === 2 && weights && quantisedData) {
        const scales = weights.scales.map((s) => Math.fround(s * quantisedData.scale));
        const values = Int32Array.from(constant.data, (b, c) => clamp(Math.round(b / scales[c]!), -2147483648, 2147483647));
        const output = `${name}/dequantised/${index}`;
        dequantise(graph.integerConstant('int32', constant.dims, values), graph.constant({ dims: [scales.length], data: scales }), graph.integerConstant('int32', [scales.length], new Int32Array(scales.length)), output, 0);
        return output;
      }
      if ((node.opType === 'Add' || node.opType === 'Mul') && inputs.some((other) => other !== name && ranges[other])) {
        let low = Math.min(0, ...constant.data);
        let high = Math.max(0, ...constant.data);
        if (high === low) high = low + 1e-6;
        const { scale, zeroPoint } = asymmetric(low, high);
        const values = Uint8Array.from(constant.data, (v) => clamp(Math.round(v / scale) + zeroPoint, 0, 255));
        const output = `${name}/dequantised/${index}`;
        dequantise(graph.integerConstant('uint8', constant.dims, values), graph.constant({ dims: [], data: new Float32Array([scale]) }), graph.integerConstant('uint8', [], new Uint8Array([zeroPoint])), output);
        return output;
      }
      return name;
    });
    nodes.push(node);
    for (const output of node.output ?? []) {
      const q = activation(output);
      if (q) quantise(output, q);
    }
  });
  graph.nodes = nodes;
  return activations.size;
}

/** 8-bit asymmetric quantisation of [low, high] widened to hold 0 (so zero padding is exact). */
function asymmetric(low: number, high: number): { scale: number; zeroPoint: number } {
  const lo = Math.min(0, low);
  const hi = Math.max(0, high);
  const scale = Math.fround((hi - lo) / 255 || 1);
  return { scale, zeroPoint: clamp(Math.round(-lo / scale), 0, 255) };
}

/** Weights in [-127, 127], one scale per output channel (the first axis). */
function symmetricPerChannel(weights: Float32Array, channels: number): { data: Int8Array; scales: Float32Array } {
  const per = weights.length / channels;
  const scales = new Float32Array(channels);
  const data = new Int8Array(weights.length);
  for (let c = 0; c < channels; c++) {
    let max = 0;
    for (let i = c * per; i < (c + 1) * per; i++) max = Math.max(max, Math.abs(weights[i]!));
    const scale = Math.fround(max / 127 || 1);
    scales[c] = scale;
    for (let i = c * per; i < (c + 1) * per; i++) data[i] = clamp(Math.round(weights[i]! / scale), -127, 127);
  }
  return { data, scales };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
