// An ONNX model's graph, open for rewriting: its nodes in order, its float constants decoded
// (initialisers and Constant nodes alike), and the lookups the rewrites need. lean-graph.ts
// rewrites the paddle detector with it before onnxruntime loads the bytes.
import onnxProto, { type onnx as Onnx } from 'onnx-proto';

// A CommonJS module: its namespace is a property of the default export.
const { onnx } = onnxProto;

export type Node = Onnx.INodeProto;
export interface FloatTensor {
  dims: number[];
  data: Float32Array;
}

const DataType = onnx.TensorProto.DataType;
const asNumber = (v: number | { toNumber(): number } | null | undefined): number => (v == null ? 0 : typeof v === 'number' ? v : v.toNumber());

export class OnnxGraph {
  nodes: Node[];
  /** Float constants by name, from initialisers and Constant nodes. */
  readonly constants = new Map<string, FloatTensor>();
  /** Initialisers of other types, written back as they are. */
  private readonly otherInitializers: Onnx.ITensorProto[] = [];
  private fresh = 0;
  private readonly model: Onnx.ModelProto;
  private readonly graph: Onnx.IGraphProto;

  constructor(bytes: Uint8Array) {
    this.model = onnx.ModelProto.decode(bytes);
    this.graph = this.model.graph!;
    for (const t of this.graph.initializer ?? []) {
      const tensor = readFloats(t);
      if (tensor) this.constants.set(t.name!, tensor);
      else this.otherInitializers.push(t);
    }
    this.nodes = [];
    for (const node of this.graph.node ?? []) {
      const value = node.opType === 'Constant' ? node.attribute?.find((a) => a.name === 'value')?.t : undefined;
      const tensor = value ? readFloats(value) : undefined;
      if (tensor) this.constants.set(node.output![0]!, tensor);
      else this.nodes.push(node);
    }
  }

  /** The model with the nodes and the constants still in use, at opset `opset` or above. */
  encode(opset: number): Uint8Array {
    const used = new Set(this.nodes.flatMap((n) => n.input ?? []));
    for (const o of this.graph.output ?? []) used.add(o.name!);
    this.graph.node = this.nodes;
    const produced = new Set(this.nodes.flatMap((n) => n.output ?? []));
    this.graph.valueInfo = (this.graph.valueInfo ?? []).filter((v) => produced.has(v.name!));
    this.graph.initializer = [
      ...this.otherInitializers.filter((t) => used.has(t.name!)),
      ...[...this.constants].filter(([name]) => used.has(name)).map(([name, t]) => tensorProto(name, t.dims, DataType.FLOAT, t.data)),
    ];
    for (const entry of this.model.opsetImport ?? []) if (!entry.domain || entry.domain === 'ai.onnx') entry.version = Math.max(opset, asNumber(entry.version));
    return onnx.ModelProto.encode(this.model).finish();
  }

  /** The nodes of a type, each passed over once an earlier rewrite removed it. */
  *ofType(opType: string): Generator<Node> {
    for (const node of this.nodes.filter((n) => n.opType === opType)) if (this.nodes.includes(node)) yield node;
  }

  consumers(name: string): Node[] {
    return this.nodes.filter((n) => n.input?.includes(name));
  }

  producer(name: string): Node | undefined {
    return this.nodes.find((n) => n.output?.includes(name));
  }

  isGraphOutput(name: string): boolean {
    return (this.graph.output ?? []).some((o) => o.name === name);
  }

  /** The one node reading `name`, when it is of `opType` and `name` is not a graph output. */
  soleConsumer(name: string, opType: string): Node | undefined {
    if (this.isGraphOutput(name)) return undefined;
    const readers = this.consumers(name);
    return readers.length === 1 && readers[0]!.opType === opType ? readers[0] : undefined;
  }

  /** The value of a one-element float constant. */
  scalarValue(name: string | undefined): number | undefined {
    const t = name === undefined ? undefined : this.constants.get(name);
    return t && t.data.length === 1 ? t.data[0] : undefined;
  }

  /** For a two-input node, the scalar constant beside `other`. */
  scalarOperand(node: Node, other: string): number | undefined {
    if (node.input!.length !== 2 || !node.input!.includes(other)) return undefined;
    return this.scalarValue(node.input!.find((name) => name !== other) ?? other);
  }

  /** A new float constant; returns its name. */
  constant(t: FloatTensor): string {
    const name = `quire/${this.fresh++}`;
    this.constants.set(name, t);
    return name;
  }

  remove(...nodes: Node[]): void {
    this.nodes = this.nodes.filter((n) => !nodes.includes(n));
  }

  /** Removes `node`, whose output `into` now produces itself. */
  bypass(node: Node, into: Node): void {
    into.output = [node.output![0]!];
    this.remove(node);
  }

  intsAttribute(node: Node, name: string): number[] {
    return (node.attribute?.find((a) => a.name === name)?.ints ?? []).map((v) => asNumber(v as number));
  }

  intAttribute(node: Node, name: string, fallback: number): number {
    const a = node.attribute?.find((x) => x.name === name);
    return a ? asNumber(a.i as number) : fallback;
  }

  floatAttribute(node: Node, name: string, fallback: number): number {
    const a = node.attribute?.find((x) => x.name === name);
    return a?.f ?? fallback;
  }
}

function tensorProto(name: string, dims: number[], dataType: number, data: Float32Array): Onnx.ITensorProto {
  return { name, dims, dataType, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

function readFloats(t: Onnx.ITensorProto): FloatTensor | undefined {
  if (t.dataType !== DataType.FLOAT || t.externalData?.length) return undefined;
  const dims = (t.dims ?? []).map(asNumber);
  if (t.rawData?.length) {
    const copy = new Uint8Array(t.rawData); // a fresh, aligned buffer
    return { dims, data: new Float32Array(copy.buffer, 0, copy.byteLength / 4) };
  }
  return { dims, data: Float32Array.from(t.floatData ?? []) };
}
