// The `paddle` engine: PP-OCRv4 detection (DB) + recognition (SVTR-LCNet, CTC) ONNX models run by
// onnxruntime-node. One detection and one recognition session per engine instance (= per worker),
// created on first use and reused; pages are read one at a time (Serial) with bounded intra-op
// threads, which keeps a worker's peak memory near 300 MB instead of the 1.55 GB measured for
// @gutenye/ocr-node (which also runs OpenCV compiled to WASM and keeps both models' arenas hot).
import { readFile } from 'node:fs/promises';
import { nativeCall } from '../../../lib/native-gate.js';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { OcrError } from '../errors.js';
import type { PixelEngine, ReadOptions } from '../engine.js';
import { charWeightedConfidence, joinWords } from '../geometry.js';
import { contentBox, type PixelRect } from '../content-box.js';
import { calibrated } from '../confidence.js';
import { Serial } from '../serial.js';
import type { BBox, OcrLine, OcrWord, PixelPage, RasterImage } from '../types.js';
import { REC_HEIGHT, cropInto, readingQuad, recWidth } from './crop.js';
import { DB_DEFAULTS, type DbOptions, type Point, type Quad, dbPostprocess } from './db-postprocess.js';
import { leanGraph } from './lean-graph.js';
import { ctcGreedy, inkColumns, latinMask, restoreSpaces, splitWords } from './decode.js';
import { loadCharset, paddleModelFiles } from './models.js';

export interface PaddleOptions {
  /** Intra-op threads per session (1–2: workers are the unit of parallelism). */
  threads?: number;
  /** Longest side of the detection input; larger pages are scaled down (memory grows with its square). */
  detMaxSide?: number;
  /** Lines per recognition batch. */
  recBatch?: number;
  db?: Partial<DbOptions>;
  /**
   * The detector's graph as paddle2onnx exported it, or rewritten into fewer operations
   * (lean-graph.ts: the same output, less memory and time). Lean unless set; the other is for
   * side-by-side measurement.
   */
  detectorGraph?: 'lean' | 'as-exported';
}

interface Sessions {
  det: ort.InferenceSession;
  /** Loaded on first orientation check. */
  cls?: Promise<ort.InferenceSession>;
  clsPath: string;
  options: ort.InferenceSession.SessionOptions;
  rec: ort.InferenceSession;
  charset: string[];
  latin: Uint8Array;
}

export class PaddleEngine implements PixelEngine {
  readonly name = 'paddle' as const;
  readonly backend = `onnxruntime ${ort.env.versions?.common ?? ''}`.trim();
  private sessions?: Promise<Sessions>;
  private readonly serial = new Serial();
  private readonly threads: number;
  private readonly detMaxSide: number;
  private readonly recBatch: number;
  private readonly db: DbOptions;
  private readonly detectorGraph: 'lean' | 'as-exported';

  constructor(opts: PaddleOptions = {}) {
    this.threads = Math.min(2, Math.max(1, Math.floor(opts.threads ?? 1)));
    this.detMaxSide = opts.detMaxSide ?? 1600;
    // Batch 1: measured here, batching lines of equal width was no faster per line (memory-bound)
    // and padding makes it slower; one line at a time also keeps memory flat.
    this.recBatch = opts.recBatch ?? 1;
    this.db = { ...DB_DEFAULTS, ...opts.db };
    this.detectorGraph = opts.detectorGraph ?? 'lean';
  }

  read(raster: RasterImage, opts: ReadOptions): Promise<PixelPage> {
    return this.serial.run(async () => {
      const s = await this.load();
      try {
        const boxes = await this.detect(s, raster);
        const lines = await this.recognise(s, raster, boxes, latinOnly(opts.languages) ? s.latin : undefined);
        return { width: raster.width, height: raster.height, lines };
      } catch (err) {
        if (err instanceof OcrError) throw err;
        throw new OcrError('ocr_engine_failed', `paddle failed to read the page: ${(err as Error).message}`);
      }
    });
  }

  /**
   * Text-line boxes of a quick detection pass (longest side ≤ `maxSide`), for orientation: lines
   * of text read sideways come out as tall boxes.
   */
  lineBoxes(raster: RasterImage, maxSide = 960): Promise<Quad[]> {
    return this.serial.run(async () => {
      const s = await this.load();
      return this.detect(s, raster, maxSide);
    });
  }

  /**
   * Evidence that the text on `raster` is upside down: the line classifier's mean
   * P(180°) − P(0°) over the widest detected lines, weighted by width, in [-1, 1].
   */
  upsideDown(raster: RasterImage, maxSide = 960): Promise<number> {
    return this.serial.run(async () => {
      const s = await this.load();
      const quads = (await this.detect(s, raster, maxSide))
        .map((q) => readingQuad(q))
        .filter((r) => r.width >= 2 * r.height)
        .sort((a, b) => b.width - a.width)
        .slice(0, 24);
      if (quads.length === 0) return 0;
      s.cls ??= nativeCall(() => ort.InferenceSession.create(s.clsPath!, s.options));
      const cls = await s.cls;
      const W = 192;
      let sum = 0;
      let weight = 0;
      for (const r of quads) {
        const outW = Math.min(W, recWidth(r.width, r.height));
        const input = new Float32Array(3 * REC_HEIGHT * W);
        cropInto(raster, r.quad, outW, input, 0, W);
        const out = await nativeCall(() => cls.run({ [cls.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, REC_HEIGHT, W]) }));
        const p = out[cls.outputNames[0]].data as Float32Array;
        sum += (p[1] - p[0]) * r.width;
        weight += r.width;
      }
      return weight ? sum / weight : 0;
    });
  }

  private load(): Promise<Sessions> {
    this.sessions ??= (async () => {
      const files = paddleModelFiles();
      const options: ort.InferenceSession.SessionOptions = {
        intraOpNumThreads: this.threads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
        // The arena keeps the largest page's buffers for the life of the session; without it the
        // memory goes back after each page (measured: same speed, much lower resting RSS).
        enableCpuMemArena: false,
        // No memory patterns (one block planned per input shape, allocated whole for each run and
        // kept planned for the session). The recogniser sees a new input width with nearly every
        // line: 30–50 MB less kept without them, at the same speed. The detector's tensors, each
        // allocated when needed, peak 35–60 MB lower on a page for about 5 % more detection time
        // (docs/performance.md, "Worker memory").
        enableMemPattern: false,
      };
      const exported = await readFile(files.detection);
      const detector = this.detectorGraph === 'lean' ? leanGraph(exported).bytes : exported;
      const [det, rec] = [await nativeCall(() => ort.InferenceSession.create(detector, options)), await nativeCall(() => ort.InferenceSession.create(files.recognition, options))];
      const charset = loadCharset(files.dictionary);
      return { det, rec, charset, latin: latinMask(charset), clsPath: files.classifier, options };
    })().catch((err: unknown) => {
      this.sessions = undefined;
      throw new OcrError('ocr_engine_failed', `paddle could not load its models: ${(err as Error).message}`);
    });
    return this.sessions;
  }

  private async detect(s: Sessions, raster: RasterImage, maxSide = this.detMaxSide): Promise<Quad[]> {
    const { data: input, width: dw, height: dh, box } = await detectorInput(raster, maxSide);
    const [cx, cy, cw, ch] = box;
    const feeds = { [s.det.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, dh, dw]) };
    const out = await nativeCall(() => s.det.run(feeds));
    const prob = out[s.det.outputNames[0]];
    const [, , ph, pw] = prob.dims as number[];
    const boxes = dbPostprocess(prob.data as Float32Array, pw, ph, this.db);
    prob.dispose?.();
    const fx = cw / pw;
    const fy = ch / ph;
    const clampPt = ([x, y]: Point): Point => [Math.min(raster.width, Math.max(0, cx + x * fx)), Math.min(raster.height, Math.max(0, cy + y * fy))];
    return boxes
      .map((b) => b.quad.map(clampPt) as Quad)
      .sort((a, b) => {
        const dy = a[0][1] - b[0][1];
        return Math.abs(dy) < 10 ? a[0][0] - b[0][0] : dy;
      });
  }

  private async recognise(s: Sessions, raster: RasterImage, quads: Quad[], allowed?: Uint8Array): Promise<OcrLine[]> {
    const items = quads
      .map((q) => {
        const r = readingQuad(q);
        return { quad: r.quad, outW: recWidth(r.width, r.height) };
      })
      .filter((it) => it.outW > 0);
    // Similar widths batch together so little of each batch is padding.
    const order = items.map((_, i) => i).sort((a, b) => items[a].outW - items[b].outW);
    const lines: (OcrLine | undefined)[] = new Array(items.length);
    for (let i = 0; i < order.length; i += this.recBatch) {
      const batch = order.slice(i, i + this.recBatch);
      const padW = Math.max(...batch.map((k) => items[k].outW));
      const slot = 3 * REC_HEIGHT * padW;
      const input = new Float32Array(batch.length * slot);
      batch.forEach((k, j) => cropInto(raster, items[k].quad, items[k].outW, input, j * slot, padW));
      const out = await nativeCall(() => s.rec.run({ [s.rec.inputNames[0]]: new ort.Tensor('float32', input, [batch.length, 3, REC_HEIGHT, padW]) }));
      const t = out[s.rec.outputNames[0]];
      const [, steps, classes] = t.dims as number[];
      const data = t.data as Float32Array;
      batch.forEach((k, j) => {
        const seq = data.subarray(j * steps * classes, (j + 1) * steps * classes);
        const chars = restoreSpaces(ctcGreedy(seq, steps, classes, s.charset, allowed), inkColumns(input, j * slot, padW, items[k].outW), steps, padW);
        // Only the first outW of padW columns hold the line; steps beyond are padding.
        const textSteps = (steps * items[k].outW) / padW;
        const words = splitWords(chars, textSteps).map(
          (w): OcrWord => ({ text: w.text, confidence: calibrated('paddle', w.confidence), bbox: subBox(items[k].quad, w.from, w.to) }),
        );
        if (words.length) {
          lines[k] = { text: joinWords(words), bbox: subBox(items[k].quad, 0, 1), confidence: charWeightedConfidence(words), words };
        }
      });
      t.dispose?.();
    }
    return lines.filter((l): l is OcrLine => l !== undefined);
  }

  /** Frees the sessions once the page in flight (if any) is done: never under a running inference. */
  close(): Promise<void> {
    const s = this.sessions;
    this.sessions = undefined;
    return this.serial.run(async () => {
      const loaded = await s?.catch(() => undefined);
      await loaded?.det.release();
      await loaded?.rec.release();
      await (await loaded?.cls?.catch(() => undefined))?.release();
    });
  }
}

/**
 * The detector's input for a page: its inked part (a receipt photographed on a wide white margin
 * keeps its text large instead of shrinking it with the margin), scaled so its longest side is at
 * most `maxSide` (sides in multiples of 32), as ImageNet-normalised BGR planes; `box` is the inked
 * part [x, y, width, height] in the page's pixels.
 */
async function detectorInput(raster: RasterImage, maxSide: number): Promise<{ data: Float32Array; width: number; height: number; box: PixelRect }> {
  const box = await contentBox(raster);
  const [, , cw, ch] = box;
  const scale = Math.min(1, maxSide / Math.max(cw, ch));
  const dw = Math.max(32, Math.round((cw * scale) / 32) * 32);
  const dh = Math.max(32, Math.round((ch * scale) / 32) * 32);
  const rgb = await sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } })
    .extract({ left: box[0], top: box[1], width: cw, height: ch })
    .resize(dw, dh, { fit: 'fill', kernel: 'linear' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer();
  const plane = dw * dh;
  const data = new Float32Array(3 * plane);
  // ImageNet mean/std on BGR channels, as PaddleOCR's NormalizeImage applies them to cv2 images.
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  for (let i = 0; i < plane; i++) {
    data[i] = (rgb[i * 3 + 2] / 255 - mean[0]) / std[0];
    data[i + plane] = (rgb[i * 3 + 1] / 255 - mean[1]) / std[1];
    data[i + 2 * plane] = (rgb[i * 3] / 255 - mean[2]) / std[2];
  }
  return { data, width: dw, height: dh, box };
}

/** Axis-aligned box of the part of the quad between fractions `from` and `to` of its width. */
function subBox(q: Quad, from: number, to: number): BBox {
  const at = (s: number, t: number): Point => [
    (1 - t) * ((1 - s) * q[0][0] + s * q[1][0]) + t * ((1 - s) * q[3][0] + s * q[2][0]),
    (1 - t) * ((1 - s) * q[0][1] + s * q[1][1]) + t * ((1 - s) * q[3][1] + s * q[2][1]),
  ];
  const pts = [at(from, 0), at(to, 0), at(to, 1), at(from, 1)];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Tesseract codes of languages written in Latin script (the recogniser is then masked to it). */
const LATIN = new Set(['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld', 'dan', 'swe', 'nor', 'fin', 'pol', 'ces', 'slk', 'hun', 'ron', 'hrv', 'slv', 'tur', 'cat', 'lat', 'ind', 'msa', 'vie']);

function latinOnly(languages: readonly string[]): boolean {
  return languages.length > 0 && languages.every((l) => LATIN.has(l));
}
