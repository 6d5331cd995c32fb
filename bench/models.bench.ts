// `npm run bench -- models [--runs N]`: the model path's own cost per page, model latency
// excluded — prompt building (fields, chunks, page texts, the user prompt of every call) and
// grounding (every value looked for in the canonical words) — and what a page costs in tokens.
//  - documents: every invoice2data invoice with ground truth (compare/*.pdf with a .json), and a
//    10-page bundle of them (their canonical pages concatenated, as one document);
//  - values grounded: each invoice's own ground-truth scalars (what a model answering correctly
//    would give); the bundle grounds every invoice's values against all 10 pages;
//  - CPU time of the process (user + system), median of the runs after a first one; the bar is
//    50 ms of CPU per page for prompt building + grounding;
//  - tokens per page: the prompt text as estimated (4 characters a token), the page image at
//    100 dpi as Anthropic counts images (width x height / 750, capped at 1600), the system prompt
//    shared by a call's pages, and the answer (the ground truth as JSON);
//  - grounded: the share of ground-truth values found on the page (some truth values are not
//    printed at all, e.g. a country code implied by an address, so 100 % is not expected).
// Prints a table and writes bench/results/models-latest.json.
import { readFileSync, readdirSync } from 'node:fs';
import sharp from 'sharp';
import { textLines } from '../src/pipeline/entities/text.js';
import { type CanonicalJson, renderPagePng, runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { prepare } from '../src/models/extraction/extract.js';
import { Grounder } from '../src/models/extraction/grounding.js';
import { estimateTokens } from '../src/models/extraction/budget.js';
import { userPrompt } from '../src/models/extraction/prompt.js';
import { INVOICE_TIMING_TEMPLATE } from './lib/extraction-template.js';
import { machineFacts, writeLatest } from './lib/results.js';

const DATA = new URL('../../shared/data/invoice2data/compare/', import.meta.url);
const args = process.argv.slice(2);
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 && Number(args[runsArg + 1]) > 0 ? Number(args[runsArg + 1]) : 15;
const IMAGE_DPI = 100;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (v: number) => Math.round(v * 100) / 100;

function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

interface Subject {
  name: string;
  doc: CanonicalJson;
  values: unknown[];
  imageTokens: number[];
  answerTokens: number;
}

const scalars = (truth: Record<string, unknown>) => Object.values(truth).filter((v) => typeof v === 'string' || typeof v === 'number');

/** One path run: everything the model path does on the CPU around its calls. Answers the values grounded. */
function pathRun(s: Subject): number {
  const lines = textLines(s.doc);
  const template = { id: null, version: null, ...structuredClone(INVOICE_TIMING_TEMPLATE) };
  const prep = prepare(s.doc, template, {}, lines);
  const prompts = prep.chunks.map((chunk) => userPrompt(chunk, prep.pageCount));
  if (!prompts.every((p) => p.length > 0)) throw new Error(`empty prompt for ${s.name}`);
  const grounder = new Grounder(lines);
  let found = 0;
  for (const v of s.values) if (grounder.ground(v, typeof v === 'number' ? 'number' : 'string')) found++;
  return found;
}

async function main() {
  const subjects: Subject[] = [];
  for (const file of readdirSync(DATA).filter((f) => f.endsWith('.pdf')).sort()) {
    const json = file.replace(/\.pdf$/, '.json');
    let truth: Record<string, unknown>;
    try {
      truth = JSON.parse(readFileSync(new URL(json, DATA), 'utf8'))[0];
    } catch {
      continue;
    }
    const bytes = readFileSync(new URL(file, DATA));
    const doc = toCanonicalJson(await runCanonical(bytes));
    const imageTokens: number[] = [];
    for (const page of doc.pages) {
      const meta = await sharp(await renderPagePng(bytes, page.page_number, { dpi: IMAGE_DPI })).metadata();
      imageTokens.push(Math.min(1600, Math.ceil(((meta.width ?? 0) * (meta.height ?? 0)) / 750)));
    }
    subjects.push({ name: file, doc, values: scalars(truth), imageTokens, answerTokens: estimateTokens(JSON.stringify(truth)) });
  }
  // The bundle: 10 pages of invoices as one document.
  const pages: CanonicalJson['pages'] = [];
  const bundle: Subject = { name: 'bundle (10 pages of invoices)', doc: { pages, text: '', markdown: '' }, values: [], imageTokens: [], answerTokens: 0 };
  for (const s of subjects) {
    for (const [i, page] of s.doc.pages.entries()) {
      if (pages.length >= 10) break;
      pages.push({ ...page, page_number: pages.length + 1 });
      bundle.imageTokens.push(s.imageTokens[i]!);
    }
    bundle.values.push(...s.values);
    bundle.answerTokens += s.answerTokens;
    if (pages.length >= 10) break;
  }
  subjects.push(bundle);

  const rows = subjects.map((s) => {
    pathRun(s);
    const cpu: number[] = [];
    let grounded = 0;
    for (let i = 0; i < RUNS; i++) cpu.push(cpuMs(() => (grounded = pathRun(s))));
    const n = s.doc.pages.length;
    const prep = prepare(s.doc, { id: null, version: null, ...structuredClone(INVOICE_TIMING_TEMPLATE) }, {});
    const textTokens = prep.chunks.reduce((sum, chunk) => sum + estimateTokens(userPrompt(chunk, prep.pageCount)) + estimateTokens(prep.system), 0);
    const imageTokens = s.imageTokens.reduce((a, b) => a + b, 0);
    return {
      document: s.name,
      pages: n,
      calls: prep.chunks.length,
      values: s.values.length,
      grounded,
      cpu_ms_per_page: r2(median(cpu) / n),
      input_tokens_per_page: Math.round((textTokens + imageTokens) / n),
      text_tokens_per_page: Math.round(textTokens / n),
      image_tokens_per_page: Math.round(imageTokens / n),
      output_tokens_per_page: Math.round(s.answerTokens / n),
    };
  });

  const pad = (v: unknown, w: number) => String(v).padStart(w);
  console.log(`${'document'.padEnd(34)} ${pad('pages', 5)} ${pad('calls', 5)} ${pad('grounded', 9)} ${pad('cpu ms/pg', 9)} ${pad('in tok/pg', 9)} ${pad('text', 6)} ${pad('image', 6)} ${pad('out tok/pg', 10)}`);
  for (const r of rows) {
    console.log(`${r.document.padEnd(34)} ${pad(r.pages, 5)} ${pad(r.calls, 5)} ${pad(`${r.grounded}/${r.values}`, 9)} ${pad(r.cpu_ms_per_page, 9)} ${pad(r.input_tokens_per_page, 9)} ${pad(r.text_tokens_per_page, 6)} ${pad(r.image_tokens_per_page, 6)} ${pad(r.output_tokens_per_page, 10)}`);
  }
  const single = rows.slice(0, -1);
  const summary = {
    cpu_ms_per_page_median: median(single.map((r) => r.cpu_ms_per_page)),
    cpu_ms_per_page_max: Math.max(...rows.map((r) => r.cpu_ms_per_page)),
    input_tokens_per_page_median: median(single.map((r) => r.input_tokens_per_page)),
    output_tokens_per_page_median: median(single.map((r) => r.output_tokens_per_page)),
    grounded_share: r2(single.reduce((a, r) => a + r.grounded, 0) / single.reduce((a, r) => a + r.values, 0)),
  };
  console.log(`\nCPU per page (prompt building + grounding): median ${summary.cpu_ms_per_page_median} ms, worst ${summary.cpu_ms_per_page_max} ms (bar: 50 ms); input tokens per page: median ${summary.input_tokens_per_page_median}; output: ${summary.output_tokens_per_page_median}; ground-truth values found on the page: ${(summary.grounded_share * 100).toFixed(0)} %`);
  const result = {
    at: new Date().toISOString(),
    machine: machineFacts(),
    runs: RUNS,
    template: 'bench/lib/extraction-template.ts',
    summary,
    documents: rows,
  };
  writeLatest('models', result);
  console.log('written to bench/results/models-latest.json');
}

await main();
