// `npm run bench -- ocr-memory [--engines paddle|tesseract|both] [--det-max-side N] [--passes N]
// [--detector lean|as-exported]`:
// what reading one scanned page costs in memory, stage by stage, in this process. For each page
// (two FUNSD forms and two SROIE receipts, read `--passes` times, 2 by default: the second pass is
// a thread that has read pages before) it resets the process's peak resident memory (`VmHWM`,
// through /proc/self/clear_refs) before each stage and reads it after: preprocessing (with the
// paddle detector's orientation check), tesseract, paddle (in the order confidence_based reads
// them, with garbage collected where ocrPage collects it). A stage's transient is its peak less
// the resident memory before it. Linux only. The glibc allocator is tuned as a worker tunes it.
// Writes bench/results/ocr-memory-latest.json. The service bench's part 4 measures a whole worker.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { collectGarbageNow } from '../src/lib/idle-heap.js';
import { tuneNativeAllocator } from '../src/lib/native-heap.js';
import { decodeImage } from '../src/pipeline/ocr/image.js';
import { PaddleEngine } from '../src/pipeline/ocr/paddle/index.js';
import { readOcrPolicy } from '../src/pipeline/ocr/policy.js';
import { preprocess } from '../src/pipeline/ocr/preprocess.js';
import { createTesseract } from '../src/pipeline/ocr/tesseract/index.js';
import { dataAvailable, funsdSamples, sroieSamples } from './ocr-data.js';
import { machineFacts, writeLatest } from './lib/results.js';

const { values: opts } = parseArgs({
  options: { engines: { type: 'string', default: 'both' }, 'det-max-side': { type: 'string' }, passes: { type: 'string', default: '2' }, detector: { type: 'string', default: 'lean' } },
  allowPositionals: true,
});
if (!dataAvailable()) throw new Error('../shared/data is missing: the bench reads its FUNSD forms and SROIE receipts');
tuneNativeAllocator();

const mb = (kb: string) => Math.round(Number(kb) / 1024);
function memory(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  return { rss: mb(/VmRSS:\s+(\d+)/.exec(status)![1]!), peak: mb(/VmHWM:\s+(\d+)/.exec(status)![1]!) };
}
const resetPeak = () => writeFileSync('/proc/self/clear_refs', '5');

interface Stage {
  before_mb: number;
  peak_mb: number;
  after_mb: number;
  ms: number;
}

/** Runs `work` with the peak reset first; its transient is peak − before. */
async function measured(work: () => Promise<unknown>): Promise<Stage> {
  const before = memory().rss;
  resetPeak();
  const t0 = performance.now();
  await work();
  const ms = Math.round(performance.now() - t0);
  const { rss, peak } = memory();
  return { before_mb: before, peak_mb: peak, after_mb: rss, ms };
}

const engines = opts.engines!;
const detector = opts.detector;
if (detector !== 'lean' && detector !== 'as-exported') throw new Error(`--detector is lean or as-exported, not "${detector}"`);
const paddle = new PaddleEngine({ detectorGraph: detector, ...(opts['det-max-side'] ? { detMaxSide: Number(opts['det-max-side']) } : {}) });
const tesseract = createTesseract();
const policy = readOcrPolicy({});
const pick = <T extends { id: string }>(list: T[], ids: string[]) => ids.map((id) => list.find((s) => s.id === id)!);
const pages = [...pick(funsdSamples(), ['82092117', '82252956_2958']), ...pick(sroieSamples(), ['006', '012'])];

const start = memory().rss;
const rows: { page: string; pass: number; pixels: string; preprocess: Stage; paddle?: Stage; tesseract?: Stage }[] = [];
for (let pass = 1; pass <= Number(opts.passes); pass++) {
  for (const sample of pages) {
    // Garbage collected where ocrPage collects it: before decoding and after preprocessing.
    collectGarbageNow();
    const { raster } = await decodeImage(readFileSync(sample.file));
    let prepared!: Awaited<ReturnType<typeof preprocess>>;
    const pre = await measured(async () => (prepared = await preprocess(raster, policy.preprocessing, paddle)));
    collectGarbageNow();
    const row: (typeof rows)[number] = { page: `${sample.set}/${sample.id}`, pass, pixels: `${prepared.paddle.width}×${prepared.paddle.height}`, preprocess: pre };
    // In the order confidence_based reads them.
    if (engines !== 'paddle') row.tesseract = await measured(() => tesseract.read(prepared.tesseract, { languages: ['eng'] }));
    if (engines !== 'tesseract') row.paddle = await measured(() => paddle.read(prepared.paddle, { languages: ['eng'] }));
    rows.push(row);
    const stage = (name: string, s?: Stage) => (s ? `  ${name} +${s.peak_mb - s.before_mb} MB (peak ${s.peak_mb}, after ${s.after_mb}, ${s.ms} ms)` : '');
    process.stderr.write(`pass ${pass} ${row.page} ${row.pixels}: before ${pre.before_mb} MB${stage('preprocess', pre)}${stage('paddle', row.paddle)}${stage('tesseract', row.tesseract)}\n`);
  }
}
await paddle.close();
await tesseract.close();

const transient = (key: 'preprocess' | 'paddle' | 'tesseract') => {
  const list = rows.map((r) => r[key]).filter((s): s is Stage => s !== undefined);
  return list.length ? { max_mb: Math.max(...list.map((s) => s.peak_mb - s.before_mb)), ms_total: list.reduce((sum, s) => sum + s.ms, 0) } : null;
};
const summary = { preprocess: transient('preprocess'), paddle: transient('paddle'), tesseract: transient('tesseract') };
const end = memory().rss;
process.stderr.write(`process: ${start} MB at the start, ${end} MB after the engines closed; largest transient ${JSON.stringify(summary)}\n`);
writeLatest('ocr-memory', { at: new Date().toISOString(), machine: machineFacts(), engines, detector, det_max_side: opts['det-max-side'] ?? 'default', start_mb: start, end_mb: end, summary, pages: rows });
