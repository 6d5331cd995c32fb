// What reading the text of images on text-layer pages costs (`textInImages`, on for entities and
// extraction jobs): the digitally born invoices of invoice2data and the PDFs of pdf-realworld
// through runCanonical with it off and on, one thread, the OCR engines loaded by an untimed
// first document. Prints the time per document with and without, the images read and the words
// they added. Then the invoices three times over through a pipeline pool of two threads as a
// worker runs it (compiled to dist/, default memory marks): the time with the engines loaded,
// ended and loaded again as the process mark decides. Writes bench/results/text-in-images-latest.json.
// Usage: npm run bench -- text-in-images
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCanonical } from '../src/pipeline/index.js';
import { closeOcrEngines } from '../src/pipeline/ocr/index.js';
import { machineFacts, writeLatest } from './lib/results.js';

const DATA = new URL('../../shared/data/', import.meta.url);
const sets = { invoices: 'invoice2data/compare/', realworld: 'pdf-realworld/pdfs/' };
const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

async function timed(bytes: Uint8Array, textInImages: boolean) {
  const started = performance.now();
  const doc = await runCanonical(bytes, { ocr: { textInImages } });
  const regions = doc.ocr?.image_regions ?? [];
  return { ms: performance.now() - started, pages: doc.pages.length, regions: regions.length, words: regions.reduce((n, r) => n + r.words, 0) };
}

// Loads both OCR engines before anything is timed.
await runCanonical(readFileSync(new URL('invoice2data/compare/saeco.pdf', DATA)), { ocr: { textInImages: true } });
const results: Record<string, unknown> = {};
for (const [name, dir] of Object.entries(sets)) {
  let off = 0;
  let on = 0;
  let pages = 0;
  let regions = 0;
  let words = 0;
  let documents = 0;
  let withRegions = 0;
  for (const file of readdirSync(new URL(dir, DATA)).filter((f) => f.endsWith('.pdf')).sort()) {
    const bytes = readFileSync(new URL(dir + file, DATA));
    try {
      const a = await timed(bytes, false);
      const b = await timed(bytes, true);
      off += a.ms;
      on += b.ms;
      pages += a.pages;
      regions += b.regions;
      words += b.words;
      documents++;
      if (b.regions) withRegions++;
    } catch {
      // protected and broken files fail by design; they are not part of the measure
    }
  }
  results[name] = { documents, pages, documents_with_images_read: withRegions, images_read: regions, words_added: words, seconds_off: round(off / 1000, 2), seconds_on: round(on / 1000, 2), ms_per_document_off: round(off / documents), ms_per_document_on: round(on / documents) };
  console.log(`${name}: ${documents} documents (${pages} pages), ${withRegions} with images read (${regions} images, ${words} words added): ${round(off / documents)} ms a document without, ${round(on / documents)} ms with`);
}
await closeOcrEngines();

// Two threads as `quire worker` runs them: from dist/ (no tsx loader in the threads), in a child
// process of their own (this one's memory would count against the pool's process mark).
const root = fileURLToPath(new URL('..', import.meta.url));
execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`], { cwd: root });
const pooled = (mode: 'on' | 'off') => JSON.parse(execFileSync(process.execPath, [`${root}bench/lib/invoice-pool-run.mjs`, mode], { encoding: 'utf8' }).trim().split('\n').at(-1)!) as Record<string, number>;
results.pool_two_threads = { off: pooled('off'), on: pooled('on') };
console.log(`invoices ×3 on two pipeline threads: ${JSON.stringify(results.pool_two_threads)}`);
writeLatest('text-in-images', { at: new Date().toISOString(), machine: machineFacts(), results });
