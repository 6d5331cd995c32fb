// `npm run eval`: accuracy of the embedded extractor (src/pipeline/extract) on public data in
// ../shared/data, and its cost next to the canonical pipeline.
//  1. invoice2data: the 12 vendor PDFs and the Orlen text case, each with a template built from
//     the fields of its expected JSON (bench/lib/invoice-template.ts); field-level precision,
//     recall and exact-match accuracy against that JSON.
//  2. SROIE (company, date, address, total) on 60 receipts, read from their ground-truth OCR
//     lines (box/*.csv, text with line boxes) as a text document: this measures extraction alone.
//     With `--ocr [N]` also the first N receipts (default 20) end to end: the receipt photo through
//     the OCR stage (confidence_based, both engines) and then extraction, as a job does.
//  3. FUNSD key-value pairing on 30 forms: every linked question → answer pair becomes a field
//     whose label is the question; the document is built from the annotated words (grouped into
//     lines by position, not by the annotation's entities). Scored: the extracted value equals the
//     answer text.
//  4. Time: extraction of a 10-page document against its canonical processing time.
// Prints a table and writes bench/results/eval-latest.json.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BBox } from '../src/pipeline/canonical/model.js';
import { parseDate } from '../src/pipeline/entities/dates.js';
import { parseAmount } from '../src/pipeline/entities/money.js';
import { type LineInput, documentFromLines } from '../src/pipeline/entities/text-doc.js';
import type { DocInput } from '../src/pipeline/entities/text.js';
import { type ExtractionTemplate, runExtraction } from '../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { closeOcrEngines } from '../src/pipeline/ocr/index.js';
import { type Scores, equal, normalise, scoreDocument, summarise, total } from './lib/field-score.js';
import { NOT_ON_DOCUMENT, templateSchemaFor } from './lib/invoice-template.js';

const DATA = new URL('../../shared/data/', import.meta.url);
const path = (p: string) => fileURLToPath(new URL(p, DATA));
const readJson = <T>(p: string) => JSON.parse(readFileSync(new URL(p, DATA), 'utf8')) as T;

type Json = Record<string, unknown>;
const template = (json_schema: Json): ExtractionTemplate => ({ id: null, version: null, json_schema });

// ---------------------------------------------------------------- invoice2data

/** Fields most invoice templates have: the headline numbers. */
export const INVOICE_CORE = ['issuer', 'partner_name', 'amount', 'amount_untaxed', 'amount_tax', 'date', 'date_due', 'invoice_number', 'currency', 'vat', 'iban', 'bic'];

async function invoice2data() {
  const dir = 'invoice2data/compare/';
  const cases = readdirSync(new URL(dir, DATA)).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
  const scores: Scores = {};
  const documents: Json[] = [];
  for (const name of cases) {
    const source = readdirSync(new URL(dir, DATA)).find((f) => f.startsWith(`${name}.`) && (f.endsWith('.pdf') || f.endsWith('.txt')));
    if (!source) continue;
    const expected = Object.fromEntries(Object.entries(readJson<Json[]>(`${dir}${name}.json`)[0]!).filter(([k]) => !NOT_ON_DOCUMENT.has(k)));
    const canonical = toCanonicalJson(await runCanonical(readFileSync(path(dir + source))));
    const out = runExtraction(canonical, template(templateSchemaFor(expected)));
    const own: Scores = {};
    scoreDocument(own, expected, out.extraction.data);
    scoreDocument(scores, expected, out.extraction.data);
    documents.push({ name: source, ...summarise(total(own)), status: out.decision.status });
  }
  return { scores, documents };
}

// ---------------------------------------------------------------- SROIE

function sroieDocument(file: string): DocInput {
  const lines: LineInput[] = [];
  for (const row of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const parts = row.split(',');
    if (parts.length < 9) continue;
    const nums = parts.slice(0, 8).map(Number);
    const text = parts.slice(8).join(',').trim();
    if (!text || nums.some((n) => !Number.isFinite(n))) continue;
    const xs = [nums[0]!, nums[2]!, nums[4]!, nums[6]!];
    const ys = [nums[1]!, nums[3]!, nums[5]!, nums[7]!];
    lines.push({ text, bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as BBox });
  }
  lines.sort((a, b) => a.bbox![1] - b.bbox![1] || a.bbox![0] - b.bbox![0]);
  return documentFromLines(lines, { width: 1000, height: 2000 });
}

const SROIE_SCHEMA = {
  type: 'object',
  properties: {
    company: { type: 'string' },
    date: { type: 'string', format: 'date' },
    address: { type: 'string' },
    total: { type: 'number' },
  },
};

const sroieKeys = () => readdirSync(new URL('sroie/key/', DATA)).filter((f) => f.endsWith('.json')).sort();

function scoreReceipt(scores: Scores, key: string, data: Record<string, unknown>) {
  const expected = readJson<Record<string, string>>(`sroie/key/${key}`);
  const truth: Json = { company: expected.company, date: parseDate(expected.date ?? '', 'dmy') ?? expected.date, address: expected.address, total: parseAmount(expected.total ?? '')?.amount ?? expected.total };
  scoreDocument(scores, truth, data, (field, a, b) => (field === 'total' ? equal(Number(a), Number(b)) : normalise(a).replace(/\s*([,.])\s*/g, '$1') === normalise(b).replace(/\s*([,.])\s*/g, '$1')));
}

function sroie() {
  const keys = sroieKeys();
  const scores: Scores = {};
  for (const key of keys) {
    const id = key.replace(/\.json$/, '');
    scoreReceipt(scores, key, runExtraction(sroieDocument(path(`sroie/box/${id}.csv`)), template(SROIE_SCHEMA)).extraction.data);
  }
  return { scores, receipts: keys.length };
}

/** The first `limit` receipts end to end: photo → OCR stage → canonical → extraction. */
async function sroieThroughOcr(limit: number) {
  const keys = sroieKeys().slice(0, limit);
  const scores: Scores = {};
  let seconds = 0;
  for (const [i, key] of keys.entries()) {
    const id = key.replace(/\.json$/, '');
    const started = performance.now();
    const doc = await runCanonical(readFileSync(path(`sroie/img/${id}.jpg`)), { ocr: {} });
    seconds += (performance.now() - started) / 1000;
    scoreReceipt(scores, key, runExtraction(toCanonicalJson(doc), template(SROIE_SCHEMA)).extraction.data);
    process.stderr.write(`\r  OCR ${i + 1}/${keys.length} receipts`);
  }
  process.stderr.write('\n');
  await closeOcrEngines();
  return { scores, receipts: keys.length, ocr_seconds_per_receipt: Math.round((seconds / Math.max(1, keys.length)) * 100) / 100 };
}

/** `--ocr [N]`: how many receipts to run through OCR (0 = none). */
function ocrLimit(): number {
  const at = process.argv.indexOf('--ocr');
  if (at < 0) return 0;
  const n = Number(process.argv[at + 1]);
  return Number.isInteger(n) && n > 0 ? n : 20;
}

// ---------------------------------------------------------------- FUNSD

interface FunsdEntity {
  id: number;
  text: string;
  label: string;
  box: BBox;
  words: { text: string; box: BBox }[];
  linking: [number, number][];
}

/** Words grouped into lines by position alone (same row, small horizontal gap). */
function funsdDocument(form: FunsdEntity[]): DocInput {
  const words = form.flatMap((e) => e.words).filter((w) => w.text.trim());
  words.sort((a, b) => (a.box[1] + a.box[3]) / 2 - (b.box[1] + b.box[3]) / 2 || a.box[0] - b.box[0]);
  const rows: { box: BBox; words: typeof words }[] = [];
  for (const w of words) {
    const h = w.box[3] - w.box[1];
    const cy = (w.box[1] + w.box[3]) / 2;
    const row = rows.find((r) => Math.abs((r.box[1] + r.box[3]) / 2 - cy) < Math.max(4, h * 0.5));
    if (row) {
      row.words.push(w);
      row.box = [Math.min(row.box[0], w.box[0]), Math.min(row.box[1], w.box[1]), Math.max(row.box[2], w.box[2]), Math.max(row.box[3], w.box[3])];
    } else rows.push({ box: [...w.box] as BBox, words: [w] });
  }
  const page = { page_number: 1, width: 1000, height: 1000, blocks: [] as DocInput['pages'][number]['blocks'], tables: [], key_values: [] };
  for (const row of rows.sort((a, b) => a.box[1] - b.box[1])) {
    row.words.sort((a, b) => a.box[0] - b.box[0]);
    // A wide gap splits a row into separate lines (columns of a form).
    let current: typeof words = [];
    const flush = () => {
      if (!current.length) return;
      const bbox: BBox = [current[0]!.box[0], Math.min(...current.map((w) => w.box[1])), current[current.length - 1]!.box[2], Math.max(...current.map((w) => w.box[3]))];
      const text = current.map((w) => w.text).join(' ');
      page.blocks.push({ type: 'paragraph', text, bbox, lines: [{ text, bbox, words: current.map((w) => ({ text: w.text, bbox: w.box, confidence: 1 })) }] });
      current = [];
    };
    for (const w of row.words) {
      const prev = current[current.length - 1];
      if (prev && w.box[0] - prev.box[2] > 3 * (w.box[3] - w.box[1])) flush();
      current.push(w);
    }
    flush();
  }
  return { pages: [page] };
}

function funsd() {
  const files = readdirSync(new URL('funsd/annotations/', DATA)).filter((f) => f.endsWith('.json')).sort();
  const scores: Scores = {};
  let pairs = 0;
  for (const file of files) {
    const form = readJson<{ form: FunsdEntity[] }>(`funsd/annotations/${file}`).form;
    const byId = new Map(form.map((e) => [e.id, e]));
    const properties: Json = {};
    const expected: Json = {};
    for (const q of form.filter((e) => e.label === 'question')) {
      const answer = q.linking.map(([a, b]) => byId.get(a === q.id ? b : a)).find((e) => e?.label === 'answer');
      const label = q.text.replace(/[:\s]+$/, '').trim();
      if (!answer || !answer.text.trim() || label.length < 2) continue;
      properties[`q${q.id}`] = { type: 'string', 'x-aliases': [label] };
      expected[`q${q.id}`] = answer.text;
      pairs++;
    }
    if (!Object.keys(properties).length) continue;
    const out = runExtraction(funsdDocument(form), template({ type: 'object', properties }), { generic_entities_enabled: false });
    const flat: Scores = {};
    scoreDocument(flat, expected, out.extraction.data);
    scoreDocument(scores, { pair: null }, {});
    const t = total(flat);
    const s = (scores.pair ??= { tp: 0, fp: 0, fn: 0, n: 0 });
    s.tp += t.tp;
    s.fp += t.fp;
    s.fn += t.fn;
    s.n += t.n;
  }
  return { scores, forms: files.length, pairs };
}

// ---------------------------------------------------------------- timing

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const TIMING_SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    date: { type: 'string', format: 'date' },
    due_date: { type: 'string', format: 'date' },
    vendor: { type: 'string' },
    customer: { type: 'string' },
    total: { type: 'number' },
    subtotal: { type: 'number' },
    tax: { type: 'number' },
    currency: { type: 'string' },
    vat_id: { type: 'string' },
    iban: { type: 'string' },
    lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'number' }, unit_price: { type: 'number' }, amount: { type: 'number' } } } },
  },
};

async function timing() {
  const out: Json[] = [];
  for (const file of ['pdf-realworld/pdfs/federal-register-2020-17221.pdf', 'pdf-realworld/pdfs/WARN-Report-for-7-1-2015-to-03-25-2016.pdf']) {
    const bytes = readFileSync(path(file));
    await runCanonical(bytes, { pageRange: '1-10' });
    const canonicalMs: number[] = [];
    let doc = null;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      doc = await runCanonical(bytes, { pageRange: '1-10' });
      canonicalMs.push(performance.now() - t0);
    }
    const canonical = toCanonicalJson(doc!);
    runExtraction(canonical, template(TIMING_SCHEMA));
    const extractionMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      runExtraction(canonical, template(TIMING_SCHEMA));
      extractionMs.push(performance.now() - t0);
    }
    const c = median(canonicalMs);
    const e = median(extractionMs);
    out.push({ file, pages: doc!.pages.length, lines: canonical.pages.reduce((s, p) => s + p.blocks.reduce((t, b) => t + b.lines.length, 0), 0), canonical_ms: Math.round(c), extraction_ms: Math.round(e), ratio: Math.round((e / c) * 1000) / 1000 });
  }
  return out;
}

// ---------------------------------------------------------------- report

function table(title: string, scores: Scores, note = ''): Json {
  const rows = Object.entries(scores).map(([field, c]) => ({ field, ...summarise(c) }));
  rows.sort((a, b) => b.n - a.n || a.field.localeCompare(b.field));
  const overall = summarise(total(scores));
  const f = (v: number | null) => (v === null ? '   -  ' : v.toFixed(3).padStart(6));
  console.log(`\n${title}${note ? ` (${note})` : ''}`);
  console.log(`${'field'.padEnd(30)} ${'n'.padStart(4)} ${'prec'.padStart(6)} ${'recall'.padStart(6)} ${'exact'.padStart(6)}`);
  for (const r of rows) console.log(`${r.field.padEnd(30)} ${String(r.n).padStart(4)} ${f(r.precision)} ${f(r.recall)} ${f(r.exact_match)}`);
  console.log(`${'ALL'.padEnd(30)} ${String(overall.n).padStart(4)} ${f(overall.precision)} ${f(overall.recall)} ${f(overall.exact_match)}`);
  return { overall, fields: rows };
}

async function main() {
  const started = Date.now();
  const inv = await invoice2data();
  const invCore: Scores = Object.fromEntries(Object.entries(inv.scores).filter(([k]) => INVOICE_CORE.includes(k)));
  const invoiceAll = table('invoice2data: every field of the expected JSON', inv.scores);
  const invoiceCore = table('invoice2data: core invoice fields', invCore);
  console.log('\nper document:');
  for (const d of inv.documents) console.log(`  ${String(d.name).padEnd(30)} exact ${String(d.exact_match).padStart(5)}  precision ${String(d.precision).padStart(5)}  ${String(d.status)}`);
  const sr = sroie();
  const sroieTable = table('SROIE (60 receipts)', sr.scores, 'text from the ground-truth OCR lines, not OCR');
  const limit = ocrLimit();
  const srOcr = limit ? await sroieThroughOcr(limit) : null;
  const sroieOcrTable = srOcr ? table(`SROIE through OCR (${srOcr.receipts} receipts, confidence_based, ${srOcr.ocr_seconds_per_receipt} s OCR per receipt)`, srOcr.scores, 'receipt photo → OCR → extraction') : null;
  const fu = funsd();
  const funsdTable = table(`FUNSD key-value pairing (${fu.forms} forms, ${fu.pairs} linked pairs)`, fu.scores, 'words from the annotations');
  const time = await timing();
  console.log('\nextraction vs canonical time, 10 pages:');
  for (const t of time) console.log(`  ${String(t.file).padEnd(60)} canonical ${t.canonical_ms} ms, extraction ${t.extraction_ms} ms (${((t.ratio as number) * 100).toFixed(1)} %)`);
  const result = {
    at: new Date().toISOString(),
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
    seconds: Math.round((Date.now() - started) / 100) / 10,
    invoice2data: { all_fields: invoiceAll, core_fields: invoiceCore, documents: inv.documents },
    sroie: { receipts: sr.receipts, source: 'box/*.csv ground-truth OCR lines', ...sroieTable },
    ...(srOcr ? { sroie_through_ocr: { receipts: srOcr.receipts, ocr_seconds_per_receipt: srOcr.ocr_seconds_per_receipt, ...sroieOcrTable } } : {}),
    funsd: { forms: fu.forms, pairs: fu.pairs, source: 'annotation words regrouped into lines', ...funsdTable },
    timing_10_pages: time,
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/eval-latest.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  console.log('\nwritten to bench/results/eval-latest.json');
}

await main();
