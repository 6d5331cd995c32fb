// In-process timing of runCanonical over the digitally born corpus, warm: one untimed pass
// (WebAssembly tiers up during the first documents), then `--passes` timed passes; prints the
// wall milliseconds of each pass and the median wall and CPU time (all threads of the process).
// Run under `node --cpu-prof --import tsx` for a profile.
// Usage: tsx bench/canonical-profile.ts [--passes N] [--dir pdf-realworld/pdfs]
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCanonical } from '../src/pipeline/index.js';

const DATA = new URL('../../shared/data/', import.meta.url);
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const passes = Number(arg('passes', '3'));
const dir = arg('dir', 'pdf-realworld/pdfs');
const files = readdirSync(new URL(dir, DATA))
  .filter((f) => f.endsWith('.pdf'))
  .sort()
  .map((f) => readFileSync(fileURLToPath(new URL(`${dir}/${f}`, DATA))));

async function pass(): Promise<{ ms: number; cpuMs: number; pages: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let pages = 0;
  for (const bytes of files) {
    try {
      pages += (await runCanonical(bytes)).pages.length;
    } catch {
      // protected and empty files fail by design; they count no pages
    }
  }
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, pages };
}

const cold = await pass();
const warm: { ms: number; cpuMs: number }[] = [];
for (let i = 0; i < passes; i++) warm.push(await pass());
const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[xs.length >> 1]);
console.log(
  JSON.stringify({
    files: files.length,
    pages: cold.pages,
    coldMs: Math.round(cold.ms),
    warmMs: warm.map((w) => Math.round(w.ms)),
    medianMs: median(warm.map((w) => w.ms)),
    medianCpuMs: median(warm.map((w) => w.cpuMs)),
    // The fastest pass: other work on the machine only ever adds time.
    minMs: Math.round(Math.min(...warm.map((w) => w.ms))),
    minCpuMs: Math.round(Math.min(...warm.map((w) => w.cpuMs))),
  }),
);
