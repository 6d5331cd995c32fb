// The paddle detector's graph, rewritten into fewer operations before onnxruntime loads it.
// paddle2onnx spells PP-LCNetV3's building blocks out one elementwise operation at a time: a
// convolution, then its learnt scale and shift as a Mul and an Add, hard-swish as Add, Clip, Mul
// and Div, squeeze-excitation's `x + x·s` as a Mul and an Add. At the detector's input size every
// one of them writes a whole feature map (up to 46 MB at 1600 × 1248), and several are alive at
// once. Each rewrite here is exact algebra: scales and shifts folded into the convolution's
// weights, hard-swish as its own ONNX operator, `x + x·s` as `x · (s + 1)` on the small `s`.
// Measured in docs/performance.md: the same probability map (largest difference about 3e-5),
// a page's detection peak about 80 MB lower and about a quarter faster.
import onnxProto, { type onnx as Onnx } from 'onnx-proto';

// A CommonJS module: its namespace is a property of the default export.
const { onnx } = onnxProto;

type Tensor = { dims: number[]; data: Float32Array };
type Node = Onnx.INodeProto;

/** Numbers of each rewrite applied, for tests and the bench. */
export interface LeanGraphReport {
  nodesBefore: number;
  nodesAfter: number;
  rewrites: Record<string, number>;
}

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const asNumber = (v: number | { toNumber(): number }): number => (typeof v === 'number' ? v : v.toNumber());

/** Rewrites a serialised ONNX model; returns the new bytes and what was done. */
export function leanGraph(bytes: Uint8Array): { bytes: Uint8Array; report: LeanGraphReport } {
  const model = onnx.ModelProto.decode(bytes);
  const graph = new GraphEditor(model.graph!);
  const nodesBefore = graph.nodes.length;
  const rewrites = {
    batch_norm_into_conv: graph.foldBatchNormIntoConv(),
    scale_shift_into_conv: graph.foldScaleShiftIntoConv(),
    hard_swish: graph.fuseHardSwish(),
    scale_shift_into_next_conv: graph.foldScaleShiftIntoNextConv(),
    squeeze_excitation_residual: graph.fuseSqueezeExcitationResidual(),
    bias_into_conv_transpose: graph.foldIntoConvTranspose(),
  };
  graph.commit();
  // HardSwish is an ONNX operator from opset 14; the model's other operators mean the same there.
  for (const opset of model.opsetImport ?? []) if (!opset.domain || opset.domain === 'ai.onnx') opset.version = Math.max(14, asNumber(opset.version ?? 0));
  return { bytes: onnx.ModelProto.encode(model).finish(), report: { nodesBefore, nodesAfter: graph.nodes.length, rewrites } };
}

class GraphEditor {
  nodes: Node[];
  /** Float constants by name, from initialisers and Constant nodes. */
  private readonly constants = new Map<string, Tensor>();
  /** Initialisers that are not float (kept as they are). */
  private readonly otherInitializers: Onnx.ITensorProto[] = [];
  private fresh = 0;

  constructor(private readonly graph: Onnx.IGraphProto) {
    for (const t of graph.initializer ?? []) {
      const tensor = readFloats(t);
      if (tensor) this.constants.set(t.name!, tensor);
      else this.otherInitializers.push(t);
    }
    this.nodes = [];
    for (const node of graph.node ?? []) {
      const value = node.opType === 'Constant' ? node.attribute?.find((a) => a.name === 'value')?.t : undefined;
      const tensor = value ? readFloats(value) : undefined;
      if (tensor) this.constants.set(node.output![0]!, tensor);
      else this.nodes.push(node);
    }
  }

  /** Writes the nodes and the constants still in use back into the graph. */
  commit(): void {
    const used = new Set(this.nodes.flatMap((n) => n.input ?? []));
    for (const o of this.graph.output ?? []) used.add(o.name!);
    this.graph.node = this.nodes;
    const produced = new Set(this.nodes.flatMap((n) => n.output ?? []));
    this.graph.valueInfo = (this.graph.valueInfo ?? []).filter((v) => produced.has(v.name!));
    this.graph.initializer = [
      ...this.otherInitializers,
      ...[...this.constants].filter(([name]) => used.has(name)).map(([name, t]) => ({ name, dims: t.dims, dataType: FLOAT, rawData: new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength) })),
    ];
  }

  /** Conv → BatchNormalization: the normalisation folded into the convolution's weights and bias. */
  foldBatchNormIntoConv(): number {
    let count = 0;
    for (const conv of this.ofType('Conv')) {
      const bn = this.soleConsumer(conv.output![0]!, 'BatchNormalization');
      const params = bn?.input!.slice(1, 5).map((name) => this.constants.get(name));
      const convParams = this.convParams(conv);
      if (!bn || !params || params.some((p) => !p) || !convParams) continue;
      const [gamma, beta, mean, variance] = params as Tensor[];
      const epsilon = bn.attribute?.find((a) => a.name === 'epsilon')?.f ?? 1e-5;
      const factor = gamma!.data.map((g, c) => g / Math.sqrt(variance!.data[c]! + epsilon));
      const { weight, bias } = convParams;
      this.setConvParams(conv, scaleChannels(weight, factor, 0), bias.map((b, c) => (b - mean!.data[c]!) * factor[c]! + beta!.data[c]!));
      this.bypass(bn, conv);
      count++;
    }
    return count;
  }

  /** Conv → Mul(a) → Add(b) with scalar a, b: `a·conv(x) + b` is a convolution with weights a·W, bias a·B + b. */
  foldScaleShiftIntoConv(): number {
    let count = 0;
    for (const conv of this.ofType('Conv')) {
      const mul = this.soleConsumer(conv.output![0]!, 'Mul');
      const scale = mul && this.scalarOperand(mul, conv.output![0]!);
      const params = this.convParams(conv);
      if (!mul || scale === undefined || !params) continue;
      const add = this.soleConsumer(mul.output![0]!, 'Add');
      const shift = add ? this.scalarOperand(add, mul.output![0]!) : undefined;
      const { weight, bias } = params;
      this.setConvParams(conv, mapTensor(weight, (w) => w * scale), bias.map((b) => b * scale + (shift ?? 0)));
      this.bypass(mul, conv);
      if (add && shift !== undefined) this.bypass(add, conv);
      count++;
    }
    return count;
  }

  /** Add(x, 3) → Clip(0, 6) → Mul(x, ·) → Div(6): `x · relu6(x + 3) / 6` is HardSwish(x). */
  fuseHardSwish(): number {
    let count = 0;
    for (const add of this.ofType('Add')) {
      const x = add.input!.find((name) => this.scalarValue(name) !== 3);
      if (!x || add.input!.length !== 2 || this.scalarOperand(add, x) !== 3) continue;
      const clip = this.soleConsumer(add.output![0]!, 'Clip');
      if (!clip || this.scalarValue(clip.input![1]) !== 0 || this.scalarValue(clip.input![2]) !== 6) continue;
      const mul = this.soleConsumer(clip.output![0]!, 'Mul');
      if (!mul || !mul.input!.includes(x)) continue;
      const div = this.soleConsumer(mul.output![0]!, 'Div');
      if (!div || div.input![0] !== mul.output![0] || this.scalarValue(div.input![1]) !== 6) continue;
      const at = this.nodes.indexOf(add);
      this.remove(add, clip, mul, div);
      this.nodes.splice(at, 0, { opType: 'HardSwish', name: `${div.output![0]}/hard_swish`, input: [x], output: [div.output![0]!] });
      count++;
    }
    return count;
  }

  /**
   * Mul(a) → Add(b) → an unpadded 1×1 convolution: `W·(a·h + b)` is a convolution of h with
   * weights a·W and bias B + b·ΣW. Only unpadded ones: padding would read 0 where `a·h + b` has b.
   */
  foldScaleShiftIntoNextConv(): number {
    let count = 0;
    for (const mul of this.ofType('Mul')) {
      const h = mul.input!.find((name) => this.scalarValue(name) === undefined);
      const scale = h === undefined ? undefined : this.scalarOperand(mul, h);
      if (h === undefined || scale === undefined) continue;
      const add = this.soleConsumer(mul.output![0]!, 'Add');
      const shift = add && this.scalarOperand(add, mul.output![0]!);
      const conv = add && this.soleConsumer(add.output![0]!, 'Conv');
      const params = conv && this.convParams(conv);
      if (!add || shift === undefined || !conv || !params || conv.input![0] !== add.output![0] || !isPlainPointwise(conv)) continue;
      const { weight, bias } = params;
      const perOutput = weight.data.length / weight.dims[0]!;
      const sums = bias.map((_, o) => weight.data.subarray(o * perOutput, (o + 1) * perOutput).reduce((s, w) => s + w, 0));
      this.setConvParams(conv, mapTensor(weight, (w) => w * scale), bias.map((b, o) => b + shift * sums[o]!));
      conv.input![0] = h;
      this.remove(mul, add);
      count++;
    }
    return count;
  }

  /** Add(x, Mul(x, s)) with s a HardSigmoid's output: `x + x·s` as `x · (s + 1)`, one map fewer. */
  fuseSqueezeExcitationResidual(): number {
    let count = 0;
    const one = this.constant({ dims: [], data: new Float32Array([1]) });
    for (const add of this.ofType('Add')) {
      for (const [x, product] of [add.input!, [...add.input!].reverse()] as [string, string][]) {
        const mul = this.producer(product);
        if (mul?.opType !== 'Mul' || !mul.input!.includes(x) || this.consumers(product).length !== 1) continue;
        const s = mul.input!.find((name) => name !== x);
        if (!s || this.producer(s)?.opType !== 'HardSigmoid') continue;
        const sPlusOne = `${s}/plus_one`;
        this.nodes.splice(this.nodes.indexOf(mul), 0, { opType: 'Add', name: sPlusOne, input: [s, one], output: [sPlusOne] });
        mul.input = [x, sPlusOne];
        mul.output = [add.output![0]!];
        this.remove(add);
        count++;
        break;
      }
    }
    return count;
  }

  /** ConvTranspose → Add(bias) → BatchNormalization: both folded into the transposed convolution. */
  foldIntoConvTranspose(): number {
    let count = 0;
    for (const convT of this.ofType('ConvTranspose')) {
      const add = this.soleConsumer(convT.output![0]!, 'Add');
      const added = add?.input!.find((name) => name !== convT.output![0]);
      const addedBias = added ? this.constants.get(added) : undefined;
      const weight = this.constants.get(convT.input![1]!);
      if (!add || !addedBias || !weight || (convT.input![2] && !this.constants.get(convT.input![2]!)) || asGroup(convT) !== 1) continue;
      const channels = weight.dims[1]!;
      if (addedBias.data.length !== 1 && addedBias.data.length !== channels) continue;
      const own = convT.input![2] ? this.constants.get(convT.input![2]!)!.data : new Float32Array(channels);
      let bias = own.map((b, c) => b + addedBias.data[addedBias.data.length === 1 ? 0 : c]!);
      let scaled = weight;
      this.bypass(add, convT);
      const bn = this.soleConsumer(convT.output![0]!, 'BatchNormalization');
      const params = bn?.input!.slice(1, 5).map((name) => this.constants.get(name));
      if (bn && params && params.every(Boolean)) {
        const [gamma, beta, mean, variance] = params as Tensor[];
        const epsilon = bn.attribute?.find((a) => a.name === 'epsilon')?.f ?? 1e-5;
        const factor = gamma!.data.map((g, c) => g / Math.sqrt(variance!.data[c]! + epsilon));
        scaled = scaleChannels(weight, factor, 1);
        bias = bias.map((b, c) => (b - mean!.data[c]!) * factor[c]! + beta!.data[c]!);
        this.bypass(bn, convT);
      }
      convT.input = [convT.input![0]!, this.constant(scaled), this.constant({ dims: [channels], data: bias })];
      count++;
    }
    return count;
  }

  // Graph plumbing.

  /** The nodes of a type, each passed over once it was removed by an earlier rewrite. */
  private *ofType(opType: string): Generator<Node> {
    for (const node of this.nodes.filter((n) => n.opType === opType)) if (this.nodes.includes(node)) yield node;
  }

  private consumers(name: string): Node[] {
    return this.nodes.filter((n) => n.input?.includes(name));
  }

  private producer(name: string): Node | undefined {
    return this.nodes.find((n) => n.output?.includes(name));
  }

  /** The one node reading `name`, when it is of `opType` and `name` is not a graph output. */
  private soleConsumer(name: string, opType: string): Node | undefined {
    if ((this.graph.output ?? []).some((o) => o.name === name)) return undefined;
    const readers = this.consumers(name);
    return readers.length === 1 && readers[0]!.opType === opType ? readers[0] : undefined;
  }

  /** The value of a one-element float constant. */
  private scalarValue(name: string | undefined): number | undefined {
    const t = name === undefined ? undefined : this.constants.get(name);
    return t && t.data.length === 1 ? t.data[0] : undefined;
  }

  /** For a two-input node, the scalar constant beside `other`. */
  private scalarOperand(node: Node, other: string): number | undefined {
    if (node.input!.length !== 2 || !node.input!.includes(other)) return undefined;
    return this.scalarValue(node.input!.find((name) => name !== other) ?? other);
  }

  private constant(t: Tensor): string {
    const name = `quire/lean/${this.fresh++}`;
    this.constants.set(name, t);
    return name;
  }

  /** A convolution's constant weights and bias (zeros when it has none), or undefined. */
  private convParams(conv: Node): { weight: Tensor; bias: Float32Array } | undefined {
    const weight = this.constants.get(conv.input![1]!);
    const bias = conv.input![2] ? this.constants.get(conv.input![2]!)?.data : new Float32Array(weight?.dims[0] ?? 0);
    return weight && bias ? { weight, bias } : undefined;
  }

  private setConvParams(conv: Node, weight: Tensor, bias: Float32Array): void {
    conv.input = [conv.input![0]!, this.constant(weight), this.constant({ dims: [bias.length], data: bias })];
  }

  /** Removes `node`, whose output `into` now produces itself. */
  private bypass(node: Node, into: Node): void {
    into.output = [node.output![0]!];
    this.remove(node);
  }

  private remove(...nodes: Node[]): void {
    this.nodes = this.nodes.filter((n) => !nodes.includes(n));
  }
}

function readFloats(t: Onnx.ITensorProto): Tensor | undefined {
  if (t.dataType !== FLOAT || t.externalData?.length) return undefined;
  const dims = (t.dims ?? []).map(asNumber);
  if (t.rawData?.length) {
    const copy = new Uint8Array(t.rawData); // a fresh, aligned buffer
    return { dims, data: new Float32Array(copy.buffer, 0, copy.byteLength / 4) };
  }
  return { dims, data: Float32Array.from(t.floatData ?? []) };
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

function asGroup(node: Node): number {
  const g = node.attribute?.find((a) => a.name === 'group')?.i;
  return g === undefined || g === null ? 1 : asNumber(g as number);
}

/** A 1×1, stride-1, unpadded, ungrouped convolution. */
function isPlainPointwise(conv: Node): boolean {
  const ints = (name: string) => (conv.attribute?.find((a) => a.name === name)?.ints ?? []).map((v) => asNumber(v as number));
  return asGroup(conv) === 1 && ints('pads').every((p) => p === 0) && ints('kernel_shape').every((k) => k === 1);
}
