// `npm run fuzz -- --seed S --cases N [--timeout-s 60] [--idle-s 10]`: mutated real documents (PDF,
// PPTX, images) and bombs (ZIP, XML, nesting, text operators) through the real pipeline threads.
// Reports the outcome per failure code, uncoded failures, the peak RSS, the slowest case, and
// idle RSS before and after the hostile run, both taken the same way: once the pool has ended its
// idle thread (`--idle-s`, QUIRE_PIPELINE_IDLE_SECONDS in the service), with the collection and
// allocator trims the pool runs then (the last 6 s after the thread ends), as the service does.
// Exits non-zero on a crash or an uncoded failure.
// OCR is off (image pages end as needs_ocr): the campaign targets the parsers, not the models.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { tuneNativeAllocator } from '../src/lib/native-heap.js';
import { PipelineFailure, PipelinePool } from '../src/queue/pipeline-pool.js';
import { DATA, pdfWithNestedForms, pdfWithTextOperators, pptxDeepXml, pptxWithBigSlide, zipBomb } from './lib/hostile-files.js';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, cases: { type: 'string', default: '200' }, 'timeout-s': { type: 'string', default: '60' }, 'idle-s': { type: 'string', default: '10' } } });
const cases = Number(values.cases);
const timeoutMs = Number(values['timeout-s']) * 1000;

// mulberry32: a small seeded generator, so a seed replays the same campaign.
let state = Number(values.seed) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;

const small = (dir: string, ext: RegExp) =>
  readdirSync(path.join(DATA, dir))
    .filter((f) => ext.test(f) && statSync(path.join(DATA, dir, f)).size < 2_000_000)
    .map((f) => path.join(DATA, dir, f));
const seeds = [...small('pdf-realworld/pdfs', /\.pdf$/i), ...small('pptx-python-pptx/files', /\.pptx$/i), ...small('funsd/images', /\.png$/i).slice(0, 10), ...small('sroie/img', /\.jpg$/i).slice(0, 10)];

function mutate(bytes: Uint8Array): { name: string; bytes: Uint8Array } {
  const out = new Uint8Array(bytes);
  const kind = pick(['flip', 'truncate', 'splice', 'zero-run', 'duplicate']);
  const at = Math.floor(random() * out.length);
  switch (kind) {
    case 'flip':
      for (let i = 0; i < 1 + Math.floor(random() * 64); i++) out[Math.floor(random() * out.length)] ^= 1 << Math.floor(random() * 8);
      return { name: kind, bytes: out };
    case 'truncate':
      return { name: kind, bytes: out.slice(0, at) };
    case 'zero-run':
      out.fill(0, at, Math.min(out.length, at + 1 + Math.floor(random() * 4096)));
      return { name: kind, bytes: out };
    case 'duplicate': {
      const len = Math.min(out.length - at, 1 + Math.floor(random() * 8192));
      const merged = new Uint8Array(out.length + len);
      merged.set(out.slice(0, at + len));
      merged.set(out.slice(at), at + len);
      return { name: kind, bytes: merged };
    }
    default: {
      const other = readFileSync(pick(seeds));
      const cut = Math.floor(random() * other.length);
      const merged = new Uint8Array(at + other.length - cut);
      merged.set(out.slice(0, at));
      merged.set(other.subarray(cut), at);
      return { name: kind, bytes: merged };
    }
  }
}

// Built once, before the idle baseline, so the campaign's own allocations do not count as the server's.
const BOMBS: [string, () => Uint8Array][] = (
  [
    ['pptx-xml-120MB', pptxWithBigSlide(400_000)],
    ['pptx-xml-7MB', pptxWithBigSlide(24_000)],
    ['zip-bomb-64MB', zipBomb(64)],
    ['pptx-nesting-100k', pptxDeepXml(100_000)],
    ['pdf-text-ops-20k', pdfWithTextOperators(20_000)],
    ['pdf-nested-forms-10^6', pdfWithNestedForms(6, 10)],
  ] as [string, Uint8Array][]
).map(([name, bytes]) => [name, () => bytes]);

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
const idleMs = Number(values['idle-s']) * 1000;
// The pool applies these itself; called first here only to print which ones it applied.
const allocatorSettings = tuneNativeAllocator();
const pool = new PipelinePool(1, { idleMs });

async function runOne(bytes: Uint8Array): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await pool.run({ bytes, ocr: null, renderDpi: null }, { signal: controller.signal, abortKind: () => 'timeout' });
    return 'document';
  } catch (err) {
    if (err instanceof PipelineFailure) return err.internal ? `UNCODED:${err.code}` : err.code;
    return `CRASH:${(err as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

/** RSS once the idle thread has ended (its engines closed, the pool's idle collection and trim done). */
async function idleRss(): Promise<{ rss: number; js: number; anon: number; file: number }> {
  const deadline = Date.now() + idleMs + 180_000;
  while (pool.liveThreads > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 8_000));
  const m = process.memoryUsage();
  // Anonymous memory (heaps, malloc) against mapped files (the code of native libraries loaded
  // once, such as sharp's libvips: they stay mapped and are shared, not a leak).
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: m.rss, js: m.heapTotal + m.external, anon: kb('RssAnon'), file: kb('RssFile') };
}

// Warm-up with one ordinary document: both idle figures follow a thread that ran and ended.
await runOne(new Uint8Array(readFileSync(seeds[0]!)));
const idleBefore = await idleRss();
const outcomes: Record<string, number> = {};
let slowest = { ms: 0, name: '' };
const started = Date.now();
for (let i = 0; i < cases; i++) {
  const bomb = i < BOMBS.length ? BOMBS[i]! : random() < 0.05 ? pick(BOMBS) : null;
  const source = bomb ? null : pick(seeds);
  const { name, bytes } = bomb ? { name: bomb[0], bytes: bomb[1]() } : mutate(new Uint8Array(readFileSync(source!)));
  const label = bomb ? `bomb ${name}` : `${name} of ${path.basename(source!)}`;
  const t = Date.now();
  const outcome = await runOne(bytes);
  const ms = Date.now() - t;
  if (ms > slowest.ms) slowest = { ms, name: `#${i} ${label}` };
  outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  if (outcome.startsWith('CRASH') || outcome.startsWith('UNCODED')) process.stdout.write(`case #${i} ${label}: ${outcome}\n`);
  if ((i + 1) % 50 === 0) process.stderr.write(`  ${i + 1}/${cases} cases, ${Math.round((Date.now() - started) / 1000)} s\n`);
}
const idleAfter = await idleRss();
clearInterval(sampler);
await pool.stop();

const bad = Object.entries(outcomes).filter(([k]) => k.startsWith('CRASH') || k.startsWith('UNCODED')).reduce((n, [, v]) => n + v, 0);
process.stdout.write(
  [
    `fuzz: seed ${values.seed}, ${cases} cases in ${Math.round((Date.now() - started) / 1000)} s, ${seeds.length} seed files, per-case limit ${timeoutMs / 1000} s`,
    `outcomes: ${JSON.stringify(outcomes)}`,
    `crashes or uncoded failures: ${bad}`,
    `slowest case: ${slowest.name} (${(slowest.ms / 1000).toFixed(1)} s)`,
    `threads ended: ${pool.recycledThreads} past the memory high-water mark, ${pool.idleEndedThreads} after ${idleMs / 1000} s idle`,
    `peak RSS: ${mb(peakRss)} MB; idle RSS before ${mb(idleBefore.rss)} MB, after ${mb(idleAfter.rss)} MB (${(((idleAfter.rss - idleBefore.rss) / idleBefore.rss) * 100).toFixed(1)} %)`,
    `  anonymous: before ${mb(idleBefore.anon)} MB, after ${mb(idleAfter.anon)} MB; mapped files: before ${mb(idleBefore.file)} MB, after ${mb(idleAfter.file)} MB; main-thread JS heap and buffers: before ${mb(idleBefore.js)} MB, after ${mb(idleAfter.js)} MB`,
    `  allocator settings applied by Quire: ${allocatorSettings.join(', ') || 'none'}; from the environment: ${['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_'].filter((k) => process.env[k] !== undefined).map((k) => `${k}=${process.env[k]}`).join(' ') || 'none'}`,
  ].join('\n') + '\n',
);
process.exit(bad > 0 ? 1 : 0);
