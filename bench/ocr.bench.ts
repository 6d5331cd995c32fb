// `npx tsx bench/ocr.bench.ts [--sets ocr-text,sroie,funsd] [--limit N]`
// (`--child selection --from K` runs one configuration on samples K.. and prints raw JSON, e.g. to
// collect confidence-calibration data on pages the bench does not score.)
//
// For each engine alone and each selection mode: character error rate and word recall against
// the ground truth of ocr-text, sroie (box-file line texts) and funsd (words), seconds per page,
// and peak memory of a worker. Every configuration runs in its own child process, so its peak
// RSS (process.resourceUsage().maxRSS) is that of one OCR worker holding just what it needs.
// The selection modes share one run: each page is preprocessed once and each engine reads it at
// most once; a mode's time counts preprocessing plus the engines that mode actually ran.
// Writes bench/results/ocr-<date>.json and prints a table.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PixelEngine } from '../src/pipeline/ocr/engine.js';
import { decodeImage } from '../src/pipeline/ocr/image.js';
import { cer, readingOrderText, wordRecall } from '../src/pipeline/ocr/metrics.js';
import { PaddleEngine } from '../src/pipeline/ocr/paddle/index.js';
import { PADDLE_RISK_DEFAULTS, PREPROCESSING_DEFAULTS, type OcrSelectionMode } from '../src/pipeline/ocr/policy.js';
import { preprocess } from '../src/pipeline/ocr/preprocess.js';
import { selectOcr } from '../src/pipeline/ocr/select.js';
import { createTesseract, findNativeTesseract } from '../src/pipeline/ocr/tesseract/index.js';
import type { PixelPage } from '../src/pipeline/ocr/types.js';
import { type OcrSample, type OcrSet, comparable, samples } from './ocr-data.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
type Config = 'tesseract-native' | 'tesseract-wasm' | 'paddle' | 'selection';
type Row = {
  config: string;
  set: OcrSet;
  pages: number;
  cer: number;
  word_recall: number;
  /** Preprocessing plus the engines the configuration ran. */
  seconds_per_page: number;
  /** The engines alone. */
  engine_seconds_per_page: number;
  peak_rss_mb: number;
  note?: string;
};

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

/** A pixel engine that reads each image once and replays it, recording what a replay would have cost. */
class Replay implements PixelEngine {
  readonly name;
  readonly backend;
  private cache = new Map<unknown, { page: PixelPage; seconds: number }>();
  used = 0;
  constructor(private readonly inner: PixelEngine) {
    this.name = inner.name;
    this.backend = inner.backend;
  }
  async read(raster: Parameters<PixelEngine['read']>[0], opts: Parameters<PixelEngine['read']>[1]): Promise<PixelPage> {
    let hit = this.cache.get(raster);
    if (!hit) {
      const t = performance.now();
      const page = await this.inner.read(raster, opts);
      hit = { page, seconds: (performance.now() - t) / 1000 };
      this.cache.set(raster, hit);
    }
    this.used += hit.seconds;
    return hit.page;
  }
  reset() {
    this.cache.clear();
    this.used = 0;
  }
  close() {
    return this.inner.close();
  }
}

const text = (p: PixelPage) => readingOrderText(p.lines);

async function child(config: Config, sets: OcrSet[], limit: number, from = 0): Promise<void> {
  const modes: (OcrSelectionMode | 'tesseract' | 'paddle')[] =
    config === 'selection' ? ['tesseract', 'paddle', 'tesseract_priority', 'paddle_priority', 'confidence_based'] : [config === 'paddle' ? 'paddle' : 'tesseract'];
  const tesseract = new Replay(createTesseract(config === 'tesseract-wasm' ? 'wasm' : config === 'tesseract-native' ? 'native' : 'auto'));
  const paddleEngine = new PaddleEngine();
  const paddle = new Replay(paddleEngine);
  const out: Record<string, { set: OcrSet; id: string; cer: number; recall: number; seconds: number; engine_seconds: number; engine?: string }[]> = {};
  const calibration: Record<string, { n: number[]; ok: number[] }> = {};
  for (const set of sets) {
    for (const sample of samples(set).slice(from, from + limit)) {
      await runSample(sample);
    }
  }

  async function runSample(sample: OcrSample) {
    tesseract.reset();
    paddle.reset();
    const t0 = performance.now();
    const { raster, density } = await decodeImage(readFileSync(sample.file));
    const prepared = await preprocess(raster, PREPROCESSING_DEFAULTS, paddleEngine);
    const pre = (performance.now() - t0) / 1000;
    const dpi = (density ?? 72) * prepared.upscale;
    for (const mode of modes) {
      tesseract.used = 0;
      paddle.used = 0;
      let page: PixelPage;
      let engine: string | undefined;
      if (mode === 'tesseract' || mode === 'paddle') {
        const e = mode === 'tesseract' ? tesseract : paddle;
        page = await e.read(mode === 'tesseract' ? prepared.tesseract : prepared.paddle, { languages: sample.languages, dpi });
        calibrate(mode, page, sample);
      } else {
        const r = await selectOcr({ prepared, engines: { tesseract, paddle }, mode, margin: 0.1, risk: PADDLE_RISK_DEFAULTS, languages: sample.languages, dpi });
        page = r.page;
        engine = r.decision.engine_used;
      }
      const hyp = comparable(sample, text(page));
      (out[mode] ??= []).push({ set: sample.set, id: sample.id, cer: cer(hyp, sample.truth), recall: wordRecall(hyp, sample.truth), seconds: pre + tesseract.used + paddle.used, engine_seconds: tesseract.used + paddle.used, engine });
    }
    process.stderr.write(`${config} ${sample.set}/${sample.id} ${modes.map((m) => `${m}=${out[m].at(-1)!.cer.toFixed(3)}`).join(' ')}\n`);
  }

  /** Word confidence (20 bins) against whether the word occurs in the truth: the calibration data. */
  function calibrate(engine: string, page: PixelPage, sample: OcrSample) {
    const c = (calibration[engine] ??= { n: new Array(20).fill(0), ok: new Array(20).fill(0) });
    const bag = new Set(sample.truth.split(/\s+/));
    for (const w of page.lines.flatMap((l) => l.words)) {
      const b = Math.min(19, Math.floor(w.confidence * 20));
      c.n[b]++;
      if (bag.has(comparable(sample, w.text))) c.ok[b]++;
    }
  }

  await tesseract.close();
  await paddle.close();
  const peak = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ config, backend: tesseract.backend, peak_rss_mb: peak, results: out, calibration }));
}

async function main(): Promise<void> {
  const sets = (arg('sets') ?? 'ocr-text,sroie,funsd').split(',') as OcrSet[];
  const limit = Number(arg('limit') ?? 1000);
  const childConfig = arg('child') as Config | undefined;
  if (childConfig) return child(childConfig, sets, limit, Number(arg('from') ?? 0));

  const configs: Config[] = ['selection', 'paddle', 'tesseract-wasm'];
  if (findNativeTesseract()) configs.push('tesseract-native');
  const rows: Row[] = [];
  const raw: Record<string, unknown> = {};
  for (const config of configs) {
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', config, '--sets', sets.join(','), '--limit', String(limit)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`${config} failed with ${r.status}`);
    const res = JSON.parse(r.stdout) as { backend: string; peak_rss_mb: number; results: Record<string, { set: OcrSet; cer: number; recall: number; seconds: number; engine_seconds: number }[]> };
    raw[config] = res;
    for (const [mode, items] of Object.entries(res.results)) {
      const name = config === 'selection' ? (mode === 'tesseract' ? `tesseract (${res.backend}) alone` : mode === 'paddle' ? 'paddle alone' : mode) : `${config} only`;
      for (const set of sets) {
        const xs = items.filter((i) => i.set === set);
        if (!xs.length) continue;
        const mean = (f: (i: (typeof xs)[number]) => number) => xs.reduce((s, i) => s + f(i), 0) / xs.length;
        rows.push({
          config: name,
          set,
          pages: xs.length,
          cer: round(mean((i) => i.cer)),
          word_recall: round(mean((i) => i.recall)),
          seconds_per_page: round(mean((i) => i.seconds), 2),
          engine_seconds_per_page: round(mean((i) => i.engine_seconds), 2),
          peak_rss_mb: Math.round(res.peak_rss_mb),
          ...(config === 'selection' ? { note: 'one worker holding both engines' } : {}),
        });
      }
    }
  }
  const dir = path.join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `ocr-${new Date().toISOString().slice(0, 10)}.json`);
  const os = await import('node:os');
  // Timings depend on what else runs: record the load the machine was under.
  const machine = { cores: os.cpus().length, loadavg_at_end: os.loadavg().map((v) => round(v, 2)) };
  writeFileSync(file, `${JSON.stringify({ machine, sets, limit, rows, raw }, null, 2)}\n`);
  console.log(table(rows));
  console.log(`\nwritten ${path.relative(process.cwd(), file)}`);
}

function table(rows: Row[]): string {
  const head = ['config', 'set', 'pages', 'CER', 'word recall', 's/page', 'engine s/page', 'peak RSS MB'];
  const body = rows.map((r) => [r.config, r.set, String(r.pages), r.cer.toFixed(3), r.word_recall.toFixed(3), r.seconds_per_page.toFixed(2), r.engine_seconds_per_page.toFixed(2), String(r.peak_rss_mb)]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(w[i])).join(' | ')} |`;
  return [line(head), `|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

await main();
