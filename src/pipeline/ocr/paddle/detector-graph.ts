// Which graph of the paddle detector onnxruntime loads: as paddle2onnx exported it, rewritten into
// fewer float operations (lean-graph.ts), or that with its neck and head in 8 bits (int8-graph.ts).
import { createHash } from 'node:crypto';
import { DETECTOR_RANGES, DETECTOR_SHA256 } from './detector-int8-table.js';
import { quantiseActivations } from './int8-graph.js';
import { LEAN_OPSET, makeLean } from './lean-graph.js';
import { OnnxGraph } from './onnx-graph.js';

export type DetectorGraph = 'int8' | 'lean' | 'as-exported';

/**
 * The model bytes for `kind`. The 8-bit graph needs the calibration table of this very model; for
 * another model (a different package version) it is the lean float graph.
 */
export function detectorModel(bytes: Uint8Array, kind: DetectorGraph): Uint8Array {
  if (kind === 'as-exported') return bytes;
  const graph = new OnnxGraph(bytes);
  makeLean(graph);
  if (kind === 'int8' && createHash('sha256').update(bytes).digest('hex') === DETECTOR_SHA256) quantiseActivations(graph, DETECTOR_RANGES);
  return graph.encode(LEAN_OPSET);
}
