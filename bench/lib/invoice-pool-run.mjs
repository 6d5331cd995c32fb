// Child process of bench/text-in-images.bench.ts: the invoices three times over through a pipeline
// pool of two threads, built from dist/ as `quire worker` runs it, in a process of its own (the
// bench process's own memory would count against the pool's process mark). Prints one JSON line.
// Usage: node bench/lib/invoice-pool-run.mjs on|off
import { readFileSync, readdirSync } from 'node:fs';

const { PipelinePool } = await import(new URL('../../dist/queue/pipeline-pool.js', import.meta.url).href);
const dir = new URL('../../../shared/data/invoice2data/compare/', import.meta.url);
const invoices = readdirSync(dir).filter((f) => f.endsWith('.pdf')).map((f) => readFileSync(new URL(f, dir)));
const textInImages = process.argv[2] === 'on';
const pool = new PipelinePool(2);
const tasks = [...invoices, ...invoices, ...invoices];
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 200);
const started = performance.now();
let next = 0;
await Promise.all([0, 1].map(async () => {
  while (next < tasks.length) await pool.run({ bytes: tasks[next++], ocr: { textInImages }, renderDpi: null }, { signal: new AbortController().signal, abortKind: () => 'cancelled' });
}));
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
await pool.stop();
console.log(JSON.stringify({ documents: tasks.length, seconds: Math.round(seconds * 100) / 100, threads_ended_at_the_memory_mark: pool.recycledThreads, peak_rss_mb: Math.round(peak / 1048576) }));
