// `npm run bench`: canonical pipeline throughput and table accuracy, next to poppler.
//  1. pages/second of runCanonical on a fixed corpus of digitally born PDFs from ../shared/data,
//     on one core (sequential, after a warm-up pass: WebAssembly tiers up during the first
//     documents) and with one worker thread per core;
//  2. poppler's `pdftotext -bbox-layout` on the same files in the same run (sequential and one
//     process per core), when installed (Debian: apt-get install poppler-utils; GPL, bench only);
//  3. table cell accuracy on the tables-camelot cases of bench/lib/table-score.ts.
// Results go to bench/results/canonical-latest.json.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { runCanonical } from '../src/pipeline/index.js';
import { writeLatest } from './lib/results.js';
import { CAMELOT, type CellScore, TABLE_CASES, scoreCase } from './lib/table-score.js';

const DATA = new URL('../../shared/data/', import.meta.url);
const cores = availableParallelism();

/** The fixed corpus: every PDF of these folders that is not meant to fail. */
function corpus(): string[] {
  const dirs = ['invoice2data/compare', 'docling/pdf/sources', 'pdf-realworld/pdfs', 'tables-camelot/files'];
  const skip = new Set(['password-example.pdf', 'empty.pdf', 'issue-297-example.pdf', 'health_protected.pdf']);
  return dirs.flatMap((d) =>
    readdirSync(new URL(d, DATA))
      .filter((f) => f.endsWith('.pdf') && !skip.has(f))
      .sort()
      .map((f) => fileURLToPath(new URL(`${d}/${f}`, DATA))),
  );
}

async function sequential(files: string[]): Promise<{ pages: number; seconds: number }> {
  const started = performance.now();
  let pages = 0;
  for (const f of files) {
    try {
      pages += (await runCanonical(readFileSync(f))).pages.length;
    } catch {
      // failures count no pages; the corpus holds none that should fail
    }
  }
  return { pages, seconds: (performance.now() - started) / 1000 };
}

async function parallel(files: string[], workers: number): Promise<{ pages: number; seconds: number }> {
  // Workers load the TypeScript entry through tsx's loader, registered inside each thread.
  const entry = JSON.stringify(new URL('./lib/canonical-worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`;
  const pool = Array.from({ length: workers }, () => new Worker(boot, { eval: true }));
  // One untimed pass over the corpus warms every worker (WebAssembly tier-up), then the timed one.
  const drain = async () => {
    const queue = [...files];
    let pages = 0;
    await Promise.all(
      pool.map(
        (w) =>
          new Promise<void>((resolve) => {
            const onMessage = (m: { pages: number }) => ((pages += m.pages), next());
            const next = () => {
              const f = queue.shift();
              if (f === undefined) return void (w.off('message', onMessage), resolve());
              w.postMessage(f);
            };
            w.on('message', onMessage);
            next();
          }),
      ),
    );
    return pages;
  };
  await drain();
  const started = performance.now();
  const pages = await drain();
  const seconds = (performance.now() - started) / 1000;
  pool.forEach((w) => w.postMessage(null));
  await Promise.all(pool.map((w) => w.terminate()));
  return { pages, seconds };
}

function hasPdftotext(): boolean {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function poppler(files: string[], workers: number): Promise<number> {
  const run = promisify(execFile);
  const queue = [...files];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
        await run('pdftotext', ['-bbox-layout', f, '-'], { maxBuffer: 1 << 28 }).catch(() => undefined);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

async function tableAccuracy() {
  const cases: ({ name: string; flavor: string } & CellScore)[] = [];
  for (const c of TABLE_CASES) {
    const doc = await runCanonical(readFileSync(new URL(`files/${c.file}`, CAMELOT)), { pageRange: String(c.page) });
    cases.push({ name: c.name, flavor: c.flavor, ...scoreCase(c.expected, doc.pages[0]?.tables ?? []) });
  }
  const sum = (flavor?: string) => {
    const sel = cases.filter((c) => !flavor || c.flavor === flavor);
    const total = sel.reduce((n, c) => n + c.total, 0);
    return {
      cells: total,
      position: +(sel.reduce((n, c) => n + c.position, 0) / total).toFixed(3),
      content: +(sel.reduce((n, c) => n + c.content, 0) / total).toFixed(3),
    };
  };
  return { all: sum(), lattice: sum('lattice'), stream: sum('stream'), cases };
}

const rate = (pages: number, seconds: number) => +(pages / seconds).toFixed(1);

async function main() {
  const files = corpus();
  process.stderr.write(`corpus: ${files.length} PDFs; ${cores} cores (${cpus()[0]?.model ?? 'unknown cpu'})\n`);
  const cold = await sequential(files); // first pass: WebAssembly compiles and tiers up
  const warm = await sequential(files);
  process.stderr.write(`quire, 1 core: ${rate(warm.pages, warm.seconds)} pages/s (cold first pass ${rate(cold.pages, cold.seconds)})\n`);
  const all = await parallel(files, cores);
  process.stderr.write(`quire, ${cores} workers: ${rate(all.pages, all.seconds)} pages/s\n`);
  let popplerResult: Record<string, number> | { skipped: string } = { skipped: 'pdftotext not installed (apt-get install poppler-utils)' };
  if (hasPdftotext()) {
    const one = await poppler(files, 1);
    const many = await poppler(files, cores);
    popplerResult = { pages: warm.pages, one_core_pages_per_s: rate(warm.pages, one), all_cores_pages_per_s: rate(warm.pages, many) };
    process.stderr.write(`pdftotext -bbox-layout: ${rate(warm.pages, one)} pages/s on 1 core, ${rate(warm.pages, many)} with ${cores} processes\n`);
  } else process.stderr.write('pdftotext not installed: poppler comparison skipped\n');
  const tables = await tableAccuracy();
  process.stderr.write(`tables-camelot cell accuracy: ${(tables.all.position * 100).toFixed(1)}% in place, ${(tables.all.content * 100).toFixed(1)}% found (${tables.all.cells} cells)\n`);
  const result = {
    at: new Date().toISOString(),
    // A shared machine skews every number; the 1-minute load at the end says how much.
    machine: { cores, cpu: cpus()[0]?.model, node: process.version, load_average_1m: +loadavg()[0].toFixed(2) },
    corpus: { files: files.length, pages: warm.pages },
    quire: {
      one_core_pages_per_s: rate(warm.pages, warm.seconds),
      one_core_cold_pages_per_s: rate(cold.pages, cold.seconds),
      all_workers_pages_per_s: rate(all.pages, all.seconds),
      workers: cores,
    },
    poppler_pdftotext_bbox_layout: popplerResult,
    tables,
  };
  writeLatest('canonical', result);
  process.stdout.write(`${JSON.stringify({ ...result, tables: { all: tables.all, lattice: tables.lattice, stream: tables.stream } }, null, 2)}\n`);
}

await main();
