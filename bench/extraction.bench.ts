// `npm run bench -- extraction [--runs N] [--canonical-runs N]`: the embedded extractor's cost next
// to the canonical pipeline on 10-page documents (the issue's bar: "extraction of a 10-page document
// must not take more than a small fraction of its canonical processing time").
//  - documents: the first 10 pages of every PDF in ../shared/data that has at least 10, and a
//    10-page bundle of invoice2data invoices (their canonical pages concatenated, as one document:
//    its canonical time is the sum of its parts');
//  - canonical: runCanonical; extraction: runExtraction on the stored JSON form with an invoice
//    template (bench/lib/extraction-template.ts): entities, template extraction, validation rules
//    and the decision, which is what an `extraction` job runs after the pipeline. Every run gets its
//    own copy of the template, as a job reads it from the database;
//  - a worker processes document after document, so both are warmed first on other documents
//    (tables-camelot and docling PDFs shorter than 10 pages): compiled code, WebAssembly tiered up;
//  - "first": the first run on each document, which is what a job pays (for extraction, right
//    after a run on each of the other documents, as in a worker busy with such documents);
//    "median": the median of the runs that follow. The template is one in use (what is compiled
//    from a template is kept for the templates most recently used; its first job pays for that);
//  - wall time, and the process's CPU time (less sensitive to other load on a shared machine);
//  - entities: runEntities, what an `entities` job runs (median).
// Prints a table and writes bench/results/extraction-latest.json.
import { readFileSync, readdirSync } from 'node:fs';
import type { DocInput } from '../src/pipeline/entities/text.js';
import { type ExtractionTemplate, runEntities, runExtraction } from '../src/pipeline/extract/index.js';
import { type CanonicalJson, runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { INVOICE_TIMING_TEMPLATE } from './lib/extraction-template.js';
import { machineFacts, writeLatest } from './lib/results.js';

const DATA = new URL('../../shared/data/', import.meta.url);
const PAGES = 10;

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  const n = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const CANONICAL_RUNS = option('canonical-runs', 5);
const EXTRACTION_RUNS = option('runs', 15);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r1 = (v: number) => Math.round(v * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

interface Cost {
  ms: number;
  cpuMs: number;
}

async function time<T>(fn: () => T | Promise<T>): Promise<Cost & { value: T }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
}

const medianCost = (runs: Cost[]): Cost => ({ ms: median(runs.map((r) => r.ms)), cpuMs: median(runs.map((r) => r.cpuMs)) });
const sumCost = (a: Cost, b: Cost): Cost => ({ ms: a.ms + b.ms, cpuMs: a.cpuMs + b.cpuMs });

interface Subject {
  name: string;
  doc: DocInput;
  canonical: { first: Cost; median: Cost };
}

/** The first run and the median of the runs after it, of one file; and the document. */
async function canonicalOf(bytes: Uint8Array, pageRange: string): Promise<Subject['canonical'] & { doc: CanonicalJson }> {
  const first = await time(() => runCanonical(bytes, { pageRange }));
  const runs: Cost[] = [];
  for (let i = 0; i < CANONICAL_RUNS; i++) runs.push(await time(() => runCanonical(bytes, { pageRange })));
  return { first, median: medianCost(runs), doc: toCanonicalJson(first.value) };
}

/** The PDFs of docling and tables-camelot shorter than 10 pages (none of them a subject), as canonical JSON. */
async function warmUpDocuments(): Promise<DocInput[]> {
  const out: DocInput[] = [];
  for (const dir of ['docling/pdf/sources', 'tables-camelot/files']) {
    for (const file of readdirSync(new URL(dir, DATA)).filter((f) => f.endsWith('.pdf')).sort()) {
      try {
        const doc = await runCanonical(readFileSync(new URL(`${dir}/${file}`, DATA)));
        if (doc.page_count < PAGES) out.push(toCanonicalJson(doc));
      } catch {
        // not meant to open (encrypted)
      }
    }
  }
  return out;
}

/** Every PDF with at least 10 pages: runCanonical refuses a page range past the end. */
async function tenPagePdfs(): Promise<Subject[]> {
  const out: Subject[] = [];
  for (const dir of ['pdf-realworld/pdfs', 'docling/pdf/sources', 'tables-camelot/files', 'invoice2data/compare']) {
    for (const file of readdirSync(new URL(dir, DATA)).filter((f) => f.endsWith('.pdf')).sort()) {
      const bytes = readFileSync(new URL(`${dir}/${file}`, DATA));
      try {
        const { doc, ...canonical } = await canonicalOf(bytes, `1-${PAGES}`);
        out.push({ name: `${dir}/${file}`, doc, canonical });
      } catch {
        // fewer than 10 pages (invalid_page_range), or not meant to open (encrypted, broken)
      }
    }
  }
  return out;
}

/** invoice2data's invoices, page after page, until the bundle has 10 pages. */
async function invoiceBundle(): Promise<Subject> {
  const dir = 'invoice2data/compare';
  const pages: CanonicalJson['pages'] = [];
  const canonical = { first: { ms: 0, cpuMs: 0 }, median: { ms: 0, cpuMs: 0 } };
  for (const file of readdirSync(new URL(dir, DATA)).filter((f) => f.endsWith('.pdf')).sort()) {
    if (pages.length >= PAGES) break;
    const bytes = readFileSync(new URL(`${dir}/${file}`, DATA));
    const wanted = Math.min((await runCanonical(bytes)).page_count, PAGES - pages.length);
    const part = await canonicalOf(bytes, `1-${wanted}`);
    canonical.first = sumCost(canonical.first, part.first);
    canonical.median = sumCost(canonical.median, part.median);
    for (const page of part.doc.pages) pages.push({ ...page, page_number: pages.length + 1 });
  }
  return { name: `invoice2data bundle (${PAGES} pages of invoices)`, doc: { pages }, canonical };
}

/** A copy of the template, as a job gets from the database. */
function freshTemplate(): ExtractionTemplate {
  return { id: null, version: null, ...structuredClone(INVOICE_TIMING_TEMPLATE) };
}

async function main() {
  process.stderr.write(`canonical: first run and median of ${CANONICAL_RUNS} more; extraction and entities: first run and median of ${EXTRACTION_RUNS} more\n`);
  const warmUp = await warmUpDocuments();
  for (const doc of warmUp) {
    for (let i = 0; i < 3; i++) {
      runExtraction(doc, freshTemplate());
      runEntities(doc);
    }
  }
  const subjects = [...(await tenPagePdfs()), await invoiceBundle()];

  const rows = [];
  for (const s of subjects) {
    for (const other of subjects) if (other !== s) runExtraction(other.doc, freshTemplate());
    const first = await time(() => runExtraction(s.doc, freshTemplate()));
    const extraction: Cost[] = [];
    const entities: Cost[] = [];
    for (let i = 0; i < EXTRACTION_RUNS; i++) {
      const template = freshTemplate();
      extraction.push(await time(() => runExtraction(s.doc, template)));
      entities.push(await time(() => runEntities(s.doc)));
    }
    const e = medianCost(extraction);
    const c = s.canonical;
    rows.push({
      document: s.name,
      pages: s.doc.pages.length,
      lines: s.doc.pages.reduce((n, p) => n + p.blocks.reduce((m, b) => m + b.lines.length, 0), 0),
      entities_found: first.value.entities.length,
      canonical_ms: r1(c.median.ms),
      extraction_ms: r1(e.ms),
      ratio: ratio(e.ms, c.median.ms),
      canonical_first_ms: r1(c.first.ms),
      extraction_first_ms: r1(first.ms),
      ratio_first: ratio(first.ms, c.first.ms),
      canonical_cpu_ms: r1(c.median.cpuMs),
      extraction_cpu_ms: r1(e.cpuMs),
      ratio_cpu: ratio(e.cpuMs, c.median.cpuMs),
      entities_ms: r1(medianCost(entities).ms),
    });
  }

  const pad = (v: unknown, n: number) => String(v).padStart(n);
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  console.log(`\n${''.padEnd(62)} ${'median'.padStart(29)} ${'first run'.padStart(29)}`);
  console.log(
    `${'document'.padEnd(62)} ${pad('lines', 5)} ${pad('canonical', 9)} ${pad('extract', 8)} ${pad('ratio', 7)} ${pad('canonical', 9)} ${pad('extract', 8)} ${pad('ratio', 7)} ${pad('cpu ratio', 9)} ${pad('entities', 8)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.document.padEnd(62)} ${pad(r.lines, 5)} ${pad(r.canonical_ms, 9)} ${pad(r.extraction_ms, 8)} ${pad(pct(r.ratio), 7)} ${pad(r.canonical_first_ms, 9)} ${pad(r.extraction_first_ms, 8)} ${pad(pct(r.ratio_first), 7)} ${pad(pct(r.ratio_cpu), 9)} ${pad(r.entities_ms, 8)}`,
    );
  }
  const summary = {
    median_ratio: median(rows.map((r) => r.ratio)),
    max_ratio: Math.max(...rows.map((r) => r.ratio)),
    median_ratio_first: median(rows.map((r) => r.ratio_first)),
    max_ratio_first: Math.max(...rows.map((r) => r.ratio_first)),
    median_ratio_cpu: median(rows.map((r) => r.ratio_cpu)),
    max_ratio_cpu: Math.max(...rows.map((r) => r.ratio_cpu)),
  };
  console.log('(times in ms; ratio: extraction / canonical)');
  console.log(
    `\nextraction / canonical, median runs: median ${pct(summary.median_ratio)}, worst ${pct(summary.max_ratio)}; first runs: median ${pct(summary.median_ratio_first)}, worst ${pct(summary.max_ratio_first)}; CPU time of median runs: median ${pct(summary.median_ratio_cpu)}, worst ${pct(summary.max_ratio_cpu)}`,
  );

  const result = {
    at: new Date().toISOString(),
    machine: machineFacts(),
    runs: { canonical: CANONICAL_RUNS, extraction: EXTRACTION_RUNS, warm_up_documents: warmUp.length },
    template: 'bench/lib/extraction-template.ts',
    summary,
    documents: rows,
  };
  writeLatest('extraction', result);
  console.log('written to bench/results/extraction-latest.json');
}

await main();
