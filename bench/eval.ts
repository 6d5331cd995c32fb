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
//  5. Text files: the SROIE transcripts as text files through the canonical pipeline (company,
//     date, address, total, and how many receipt lines stay lines), and prose ground-truth texts
//     (wrapped lines joined into paragraphs), bench/lib/text-structure.ts.
// Prints a table and writes bench/results/eval-latest.json. `--only-funsd` prints the FUNSD
// key-value measures alone (nothing written), for layout work; `--only-text` the text-file
// measures of 5. alone (nothing written); `--kv-misses` lists the tuned forms' wrong and missed
// key_values (never the held-out forms').
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BBox } from '../src/pipeline/canonical/model.js';
import { parseDate } from '../src/pipeline/entities/dates.js';
import { parseAmount } from '../src/pipeline/entities/money.js';
import type { DocInput } from '../src/pipeline/entities/text.js';
import { type ExtractionTemplate, runExtraction } from '../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../src/pipeline/index.js';
import { closeOcrEngines } from '../src/pipeline/ocr/index.js';
import { type Scores, equal, normalise, sameCompany, scoreDocument, summarise, total, wilson95 } from './lib/field-score.js';
import { NOT_ON_DOCUMENT, templateSchemaFor } from './lib/invoice-template.js';
import { ocrCanonical } from './lib/ocr-cache.js';
import { SROIE_SCHEMA, sroieDocument, sroieText } from './lib/sroie.js';
import { linesKept, proseJoined } from './lib/text-structure.js';
import { type Slice, sliceOf } from './lib/split.js';
import { assemble } from '../src/pipeline/canonical/assemble.js';
import type { KeyValue } from '../src/pipeline/canonical/model.js';

/** Scores kept apart for the tuned documents and the held-out slice (bench/lib/split.ts). */
type SliceScores = Record<Slice, Scores>;
const sliceScores = (): SliceScores => ({ tuned: {}, held_out: {} });

/** The default review_confidence_floor: a field at or above it passes without review. */
const REVIEW_FLOOR = 0.7;
/** Per slice: fields at or above the floor, and how many of them were right. */
type Calibration = Record<Slice, { passed: number; right: number }>;
const calibration = (): Calibration => ({ tuned: { passed: 0, right: 0 }, held_out: { passed: 0, right: 0 } });

/** Counts the scalar fields at or above the review floor, and whether their value is the expected one. */
function calibrate(into: Calibration, slice: Slice, expected: Json, fields: Record<string, { value: unknown; confidence: number }>, same: (field: string, a: unknown, b: unknown) => boolean = (_f, a, b) => equal(a, b)) {
  for (const [field, exp] of Object.entries(expected)) {
    if (exp === null || exp === undefined || Array.isArray(exp) || (typeof exp === 'object')) continue;
    const got = fields[field];
    if (!got || got.value === null || got.confidence < REVIEW_FLOOR) continue;
    into[slice].passed++;
    if (same(field, exp, got.value)) into[slice].right++;
  }
}
import { classificationEval } from './lib/classification-eval.js';

const DATA = new URL('../../shared/data/', import.meta.url);
const path = (p: string) => fileURLToPath(new URL(p, DATA));
const readJson = <T>(p: string) => JSON.parse(readFileSync(new URL(p, DATA), 'utf8')) as T;

type Json = Record<string, unknown>;
const template = (json_schema: Json): ExtractionTemplate => ({ id: null, version: null, json_schema });

// ---------------------------------------------------------------- invoice2data

/** Fields most invoice templates have: the headline numbers. */
export const INVOICE_CORE = ['issuer', 'partner_name', 'amount', 'amount_untaxed', 'amount_tax', 'date', 'date_due', 'invoice_number', 'currency', 'vat', 'iban', 'bic'];

/** Party names compare without their legal form (bench/lib/field-score.ts sameCompany). */
const PARTY_NAMES = new Set(['issuer', 'partner_name']);
/** Document numbers compare without a leading number sign: "# BLR_WFLD…" prints the sign as a label. */
const NUMBER_FIELDS = /(?:number|_id|_ref)$/;
const withoutNumberSign = (v: unknown) => (typeof v === 'string' ? v.replace(/^#\s*/, '') : v);
const invoiceSame = (field: string, a: unknown, b: unknown) =>
  PARTY_NAMES.has(field) ? sameCompany(a, b) : NUMBER_FIELDS.test(field) ? equal(withoutNumberSign(a), withoutNumberSign(b)) : equal(a, b);

async function invoice2data() {
  const dir = 'invoice2data/compare/';
  const cases = readdirSync(new URL(dir, DATA)).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
  const scores = sliceScores();
  const calib = calibration();
  const documents: Json[] = [];
  for (const name of cases) {
    const source = readdirSync(new URL(dir, DATA)).find((f) => f.startsWith(`${name}.`) && (f.endsWith('.pdf') || f.endsWith('.txt')));
    if (!source) continue;
    const slice = sliceOf(name);
    const expected = Object.fromEntries(Object.entries(readJson<Json[]>(`${dir}${name}.json`)[0]!).filter(([k]) => !NOT_ON_DOCUMENT.has(k)));
    // As an extraction job reads it: OCR on, which reads the text of images on text-layer pages.
    const canonical = toCanonicalJson(await runCanonical(readFileSync(path(dir + source)), { ocr: { textInImages: true } }));
    const out = runExtraction(canonical, template(templateSchemaFor(expected)));
    const own: Scores = {};
    scoreDocument(own, expected, out.extraction.data, invoiceSame);
    scoreDocument(scores[slice], expected, out.extraction.data, invoiceSame);
    calibrate(calib, slice, expected, out.extraction.fields, invoiceSame);
    const core = total(own, (f) => INVOICE_CORE.includes(f));
    // The review decision of a template of the core fields alone: what the review rate is measured on.
    const coreExpected = Object.fromEntries(Object.entries(expected).filter(([k]) => INVOICE_CORE.includes(k)));
    const coreOut = runExtraction(canonical, template(templateSchemaFor(coreExpected)));
    const coreOwn: Scores = {};
    scoreDocument(coreOwn, coreExpected, coreOut.extraction.data, invoiceSame);
    const coreRight = total(coreOwn);
    documents.push({
      name: source,
      slice,
      ...summarise(total(own)),
      core_all_right: core.tp === core.n,
      status: out.decision.status,
      review_reasons: out.decision.review_reasons,
      core_template: { all_right: coreRight.tp === coreRight.n, status: coreOut.decision.status, review_reasons: coreOut.decision.review_reasons },
    });
  }
  return { scores, calib, documents };
}

// ---------------------------------------------------------------- SROIE

/** A receipt's ground-truth box file as a text document. */
const sroieFile = (file: string): DocInput => sroieDocument(readFileSync(file, 'utf8'));

const sroieKeys = () => readdirSync(new URL('sroie/key/', DATA)).filter((f) => f.endsWith('.json')).sort();

const sroieSame = (field: string, a: unknown, b: unknown) => (field === 'total' ? equal(Number(a), Number(b)) : normalise(a).replace(/\s*([,.])\s*/g, '$1') === normalise(b).replace(/\s*([,.])\s*/g, '$1'));

function sroieTruth(key: string): Json {
  const expected = readJson<Record<string, string>>(`sroie/key/${key}`);
  return { company: expected.company, date: parseDate(expected.date ?? '', 'dmy') ?? expected.date, address: expected.address, total: parseAmount(expected.total ?? '')?.amount ?? expected.total };
}

function sroie() {
  const keys = sroieKeys();
  const scores = sliceScores();
  const calib = calibration();
  for (const key of keys) {
    const id = key.replace(/\.json$/, '');
    const slice = sliceOf(id);
    const out = runExtraction(sroieFile(path(`sroie/box/${id}.csv`)), template(SROIE_SCHEMA));
    scoreDocument(scores[slice], sroieTruth(key), out.extraction.data, sroieSame);
    calibrate(calib, slice, sroieTruth(key), out.extraction.fields, sroieSame);
  }
  return { scores, calib, receipts: keys.length };
}

/** The receipts' transcripts as text files through the canonical pipeline, then extraction; and how many of their lines stay lines. */
async function sroieAsText() {
  const scores = sliceScores();
  const kept: Record<Slice, { kept: number; lines: number }> = { tuned: { kept: 0, lines: 0 }, held_out: { kept: 0, lines: 0 } };
  for (const key of sroieKeys()) {
    const id = key.replace(/\.json$/, '');
    const slice = sliceOf(id);
    const text = sroieText(readFileSync(path(`sroie/box/${id}.csv`), 'utf8'));
    const out = runExtraction(toCanonicalJson(await runCanonical(Buffer.from(text))), template(SROIE_SCHEMA));
    scoreDocument(scores[slice], sroieTruth(key), out.extraction.data, sroieSame);
    const k = await linesKept(text);
    kept[slice].kept += k.kept;
    kept[slice].lines += k.lines;
  }
  return { scores, kept };
}

/** Prose ground-truth texts (one printed line a line): wrapped lines joined into their paragraphs. */
const PROSE = ['ocr-text/phototest.gold.txt', 'ocr-text/eurotext.txt', 'ocr-text/8071_093.3B.txt', 'ocr-text/8087_054.3B.txt'];

async function textStructure() {
  const sr = await sroieAsText();
  const table = sliced(`SROIE transcripts as text files (${sroieKeys().length} receipts)`, sr.scores, 'text file → canonical → extraction');
  const share = (a: number, b: number) => (b ? Math.round((a / b) * 1000) / 1000 : null);
  const receiptLines = Object.fromEntries((['tuned', 'held_out'] as const).map((s) => [s, { ...sr.kept[s], share: share(sr.kept[s].kept, sr.kept[s].lines) }]));
  console.log(`  receipt lines kept as lines of the canonical text: tuned ${sr.kept.tuned.kept}/${sr.kept.tuned.lines} (${receiptLines.tuned!.share}), held-out ${sr.kept.held_out.kept}/${sr.kept.held_out.lines} (${receiptLines.held_out!.share})`);
  const prose: Json = {};
  for (const file of PROSE) {
    const p = await proseJoined(readFileSync(path(file), 'utf8'));
    prose[file] = { ...p, joined_share: share(p.joined, p.wraps), starts_share: share(p.starts, p.paragraphs) };
    console.log(`  ${file.padEnd(28)} wrapped lines joined ${p.joined}/${p.wraps}, paragraph starts kept ${p.starts}/${p.paragraphs}`);
  }
  return { sroie_text: table, receipt_lines: receiptLines, prose };
}

/** The first `limit` receipts end to end: photo → OCR stage → canonical → extraction (OCR words cached, bench/lib/ocr-cache.ts). */
async function sroieThroughOcr(limit: number) {
  const keys = sroieKeys().slice(0, limit);
  const scores = sliceScores();
  const calib = calibration();
  let seconds = 0;
  for (const [i, key] of keys.entries()) {
    const id = key.replace(/\.json$/, '');
    const slice = sliceOf(id);
    const run = await ocrCanonical(readFileSync(path(`sroie/img/${id}.jpg`)));
    seconds += run.seconds;
    const out = runExtraction(toCanonicalJson(run.doc), template(SROIE_SCHEMA));
    scoreDocument(scores[slice], sroieTruth(key), out.extraction.data, sroieSame);
    calibrate(calib, slice, sroieTruth(key), out.extraction.fields, sroieSame);
    process.stderr.write(`\r  OCR ${i + 1}/${keys.length} receipts`);
  }
  process.stderr.write('\n');
  return { scores, calib, receipts: keys.length, ocr_seconds_per_receipt: Math.round((seconds / Math.max(1, keys.length)) * 100) / 100 };
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

function funsdForms() {
  return readdirSync(new URL('funsd/annotations/', DATA)).filter((f) => f.endsWith('.json')).sort();
}

/** The linked question → answer pairs of a form (question without its trailing colon). */
function funsdPairs(form: FunsdEntity[]): { question: string; answer: string; id: number }[] {
  const byId = new Map(form.map((e) => [e.id, e]));
  const out: { question: string; answer: string; id: number }[] = [];
  for (const q of form.filter((e) => e.label === 'question')) {
    for (const [a, b] of q.linking) {
      const answer = byId.get(a === q.id ? b : a);
      if (answer?.label !== 'answer' || !answer.text.trim()) continue;
      const question = q.text.replace(/[:\s]+$/, '').trim();
      if (question.length >= 2) out.push({ question, answer: answer.text, id: q.id });
    }
  }
  return out;
}

function funsd() {
  const files = funsdForms();
  const scores = sliceScores();
  let pairs = 0;
  for (const file of files) {
    const form = readJson<{ form: FunsdEntity[] }>(`funsd/annotations/${file}`).form;
    const slice = sliceOf(file.replace(/\.json$/, ''));
    const properties: Json = {};
    const expected: Json = {};
    // One field per question (the first answer linked to it).
    for (const p of funsdPairs(form)) {
      if (properties[`q${p.id}`]) continue;
      properties[`q${p.id}`] = { type: 'string', 'x-aliases': [p.question] };
      expected[`q${p.id}`] = p.answer;
      pairs++;
    }
    if (!Object.keys(properties).length) continue;
    const out = runExtraction(funsdDocument(form), template({ type: 'object', properties }), { generic_entities_enabled: false });
    const flat: Scores = {};
    scoreDocument(flat, expected, out.extraction.data);
    const t = total(flat);
    const s = (scores[slice].pair ??= { tp: 0, fp: 0, fn: 0, n: 0 });
    s.tp += t.tp;
    s.fp += t.fp;
    s.fn += t.fn;
    s.n += t.n;
  }
  return { scores, forms: files.length, pairs };
}

/** Pair text compared after normalisation: case, punctuation and spacing do not count. */
const pairText = (s: string) => normalise(s).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * canonical key_values against the linked pairs: a predicted pair is right when both its key and
 * its value equal a gold question and its answer (each gold pair matched once). F1 per slice.
 */
function scoreKeyValues(into: Scores, form: FunsdEntity[], predicted: KeyValue[]): { fp: KeyValue[]; fn: { q: string; a: string }[] } {
  const gold = funsdPairs(form).map((p) => ({ q: pairText(p.question), a: pairText(p.answer), used: false }));
  const c = (into.pair ??= { tp: 0, fp: 0, fn: 0, n: 0 });
  const fp: KeyValue[] = [];
  for (const kv of predicted) {
    const q = pairText(kv.key);
    const a = pairText(kv.value);
    const hit = gold.find((g) => !g.used && g.q === q && g.a === a);
    if (hit) {
      hit.used = true;
      c.tp++;
    } else {
      c.fp++;
      fp.push(kv);
    }
  }
  const fn = gold.filter((g) => !g.used);
  c.fn += fn.length;
  c.n += gold.length;
  return { fp, fn };
}

/** The annotated words laid out as a page (layout/page-layout.ts), so canonical key_values come from the same code as a job's. */
function funsdLaidOut(form: FunsdEntity[]) {
  const words = form.flatMap((e) => e.words).filter((w) => w.text.trim()).map((w) => ({ text: w.text, bbox: [...w.box] as BBox, confidence: 1 }));
  return assemble('png', 1, [{ page_number: 1, width: 1000, height: 1000, rotation: 0, source: 'ocr_tesseract', words }]);
}

/** FUNSD canonical key_values, from the annotation words (`words`) or from the form image through OCR (`ocr`). */
async function funsdKeyValues(mode: 'words' | 'ocr') {
  const scores = sliceScores();
  const files = funsdForms();
  for (const [i, file] of files.entries()) {
    const form = readJson<{ form: FunsdEntity[] }>(`funsd/annotations/${file}`).form;
    const id = file.replace(/\.json$/, '');
    const doc = mode === 'words' ? funsdLaidOut(form) : (await ocrCanonical(readFileSync(path(`funsd/images/${id}.png`)))).doc;
    // OCR measures in points; the annotation in image pixels: key_values compare by text only.
    const slice = sliceOf(id);
    const misses = scoreKeyValues(scores[slice], form, doc.pages.flatMap((p) => p.key_values));
    // Only the tuning slice's misses are listed: the held-out forms are not to be tuned on.
    if (slice === 'tuned' && process.argv.includes('--kv-misses')) printKvMisses(id, misses);
    if (mode === 'ocr') process.stderr.write(`\r  OCR ${i + 1}/${files.length} forms`);
  }
  if (mode === 'ocr') process.stderr.write('\n');
  return { scores, forms: files.length };
}

function printKvMisses(id: string, m: ReturnType<typeof scoreKeyValues>) {
  for (const kv of m.fp) console.log(`  ${id} wrong: ${JSON.stringify(kv.key)} → ${JSON.stringify(kv.value)} [key ${kv.key_bbox.map(Math.round).join(',')}; value ${kv.value_bbox.map(Math.round).join(',')}]`);
  for (const g of m.fn) console.log(`  ${id} missed: ${JSON.stringify(g.q)} → ${JSON.stringify(g.a)}`);
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

const f3 = (v: number | null) => (v === null ? '   -  ' : v.toFixed(3).padStart(6));

function table(title: string, scores: Scores, note = ''): Json {
  const rows = Object.entries(scores).map(([field, c]) => ({ field, ...summarise(c) }));
  rows.sort((a, b) => b.n - a.n || a.field.localeCompare(b.field));
  const overall = summarise(total(scores));
  console.log(`\n${title}${note ? ` (${note})` : ''}`);
  console.log(`${'field'.padEnd(30)} ${'n'.padStart(4)} ${'prec'.padStart(6)} ${'recall'.padStart(6)} ${'exact'.padStart(6)}`);
  for (const r of rows) console.log(`${r.field.padEnd(30)} ${String(r.n).padStart(4)} ${f3(r.precision)} ${f3(r.recall)} ${f3(r.exact_match)}`);
  console.log(`${'ALL'.padEnd(30)} ${String(overall.n).padStart(4)} ${f3(overall.precision)} ${f3(overall.recall)} ${f3(overall.exact_match)}`);
  return { overall, fields: rows };
}

const f1 = (c: { tp: number; fp: number; fn: number }) => (c.tp ? Math.round(((2 * c.tp) / (2 * c.tp + c.fp + c.fn)) * 1000) / 1000 : 0);

/** The tuned documents' table in full, then the held-out slice's headline (and its table in the JSON). */
function sliced(title: string, scores: SliceScores, note = '', only?: (field: string) => boolean): Json {
  const pick = (s: Scores) => (only ? Object.fromEntries(Object.entries(s).filter(([k]) => only(k))) : s);
  const tuned = table(`${title}: tuned`, pick(scores.tuned), note);
  const heldCounts = total(pick(scores.held_out));
  const held = { ...summarise(heldCounts), exact_match_95ci: wilson95(heldCounts.tp, heldCounts.n) };
  const tunedCounts = total(pick(scores.tuned));
  (tuned.overall as Json).exact_match_95ci = wilson95(tunedCounts.tp, tunedCounts.n);
  const ci = (c: [number, number] | null) => (c ? `  95 % interval ${c[0].toFixed(3)}–${c[1].toFixed(3)}` : '');
  console.log(`${'HELD-OUT'.padEnd(30)} ${String(held.n).padStart(4)} ${f3(held.precision)} ${f3(held.recall)} ${f3(held.exact_match)}${ci(held.exact_match_95ci)}`);
  const rows = Object.entries(pick(scores.held_out)).map(([field, c]) => ({ field, ...summarise(c) }));
  return { tuned, held_out: { overall: held, fields: rows } };
}

function calibrationReport(title: string, c: Calibration): Json {
  const share = (s: { passed: number; right: number }) => (s.passed ? Math.round((s.right / s.passed) * 1000) / 1000 : null);
  console.log(`  calibration ${title}: ${c.tuned.right}/${c.tuned.passed} right at or above ${REVIEW_FLOOR} (${share(c.tuned)}); held-out ${c.held_out.right}/${c.held_out.passed} (${share(c.held_out)})`);
  return { floor: REVIEW_FLOOR, tuned: { ...c.tuned, right_share: share(c.tuned) }, held_out: { ...c.held_out, right_share: share(c.held_out) } };
}

function kvReport(title: string, scores: SliceScores): Json {
  const out: Json = {};
  for (const slice of ['tuned', 'held_out'] as const) {
    const c = scores[slice].pair ?? { tp: 0, fp: 0, fn: 0, n: 0 };
    out[slice] = { ...summarise(c), f1: f1(c) };
  }
  const t = out.tuned as { f1: number; precision: number | null; recall: number | null; n: number };
  const h = out.held_out as { f1: number; n: number };
  console.log(`\n${title}: tuned F1 ${t.f1} (precision ${t.precision}, recall ${t.recall}, ${t.n} pairs); held-out F1 ${h.f1} (${h.n} pairs)`);
  return out;
}

function printClassification(c: Awaited<ReturnType<typeof classificationEval>>) {
  const sliced = (x: Record<string, { documents: number; pct: number }>) => `tuned ${x.tuned!.pct} % of ${x.tuned!.documents}, held-out ${x.held_out!.pct} % of ${x.held_out!.documents}`;
  console.log(`\nclassification (${c.kinds.documents} documents of 5 kinds, ${c.kinds.unknown_documents} of no template's kind; leave-one-out exemplars):`);
  console.log(`  kind accuracy ${c.kinds.kind_accuracy_pct} % (${sliced(c.kinds.kind_accuracy_by_slice)})`);
  console.log(`    by kind (tuned, held-out): ${Object.entries(c.kinds.by_kind).map(([k, v]) => `${k} ${v.tuned} ${v.held_out}`).join(', ')}`);
  console.log(`  unknown kinds marked unmatched ${c.kinds.unknown_miss_rate_pct} % (${sliced(c.kinds.unknown_miss_rate_by_slice)})`);
  console.log(`  issuer accuracy ${c.issuers.issuer_accuracy_pct} % (${c.issuers.documents} invoices, ${c.issuers.issuers} issuers; ${sliced(c.issuers.issuer_accuracy_by_slice)})`);
  console.log(`  with use (exemplars per template → kind accuracy tuned / held-out, unknown miss rate): ${c.learning_from_use.map((u) => `${u.exemplars_per_template}: ${u.kind_accuracy_by_slice.tuned.pct} / ${u.kind_accuracy_by_slice.held_out.pct} % / ${u.unknown_miss_rate_pct} %`).join(', ')}`);
  const columns = [...new Set(Object.values(c.kinds.confusion).flatMap((r) => Object.keys(r)))].sort();
  console.log(`  confusion (rows: kind, columns: classified as):\n    ${''.padEnd(13)}${columns.map((x) => x.slice(0, 12).padStart(13)).join('')}`);
  for (const [row, cols] of Object.entries(c.kinds.confusion)) console.log(`    ${row.padEnd(13)}${columns.map((x) => String(cols[x] ?? '').padStart(13)).join('')}`);
  // Only the tuning slice's misses are listed: the held-out documents are not to be tuned on.
  const tuned = [...c.kinds.misses, ...c.kinds.false_matches, ...c.issuers.misses].filter((m) => m.slice === 'tuned');
  for (const m of tuned) console.log(`    miss: ${m.text}`);
}

async function main() {
  const started = Date.now();
  if (process.argv.includes('--only-classification')) {
    printClassification(await classificationEval({ sroie: sroieFile, funsd: (f) => funsdDocument(JSON.parse(readFileSync(f, 'utf8')).form) }));
    return;
  }
  if (process.argv.includes('--only-text')) {
    // Text files: receipt transcripts keep their lines, prose joins its wrapped lines.
    await textStructure();
    return;
  }
  if (process.argv.includes('--only-funsd')) {
    // Layout work on forms: the key-value measures alone (with --funsd-ocr, through OCR too).
    kvReport('FUNSD canonical key_values from the annotation words (layout alone)', (await funsdKeyValues('words')).scores);
    if (process.argv.includes('--funsd-ocr')) {
      kvReport('FUNSD canonical key_values through OCR (form image → OCR → layout)', (await funsdKeyValues('ocr')).scores);
      await closeOcrEngines();
    }
    return;
  }
  const inv = await invoice2data();
  const invoiceAll = sliced('invoice2data: every field of the expected JSON', inv.scores);
  const invoiceCore = sliced('invoice2data: core invoice fields', inv.scores, '', (k) => INVOICE_CORE.includes(k));
  const invoiceLines = sliced('invoice2data: line-item fields', inv.scores, '', (k) => k.includes('[].'));
  const invoiceCalibration = calibrationReport('invoice2data', inv.calib);
  // Review rate: digital invoices (PDF) whose every field is right, run with a template of the core fields.
  type CoreRun = { all_right: boolean; status: string; review_reasons: string[] };
  const reviewRate = (slice: string) => {
    const allRight = inv.documents.filter((d) => d.slice === slice && String(d.name).endsWith('.pdf') && (d.core_template as CoreRun).all_right);
    return { reviewed: allRight.filter((d) => (d.core_template as CoreRun).status === 'needs_review').length, documents: allRight.length };
  };
  const reviewTuned = reviewRate('tuned');
  const reviewHeld = reviewRate('held_out');
  console.log(`  review rate on digital invoices with every core field right (core-field template): ${reviewTuned.reviewed} of ${reviewTuned.documents} to review; held-out ${reviewHeld.reviewed} of ${reviewHeld.documents}`);
  const allRight = inv.documents.filter((d) => d.core_all_right && String(d.name).endsWith('.pdf'));
  const reviewed = allRight.filter((d) => d.status === 'needs_review').length;
  console.log(`  with the full template (every field of the expected JSON): ${reviewed} of ${allRight.length} to review`);
  console.log('\nper document:');
  for (const d of inv.documents) console.log(`  ${String(d.name).padEnd(30)} ${String(d.slice).padEnd(8)} exact ${String(d.exact_match).padStart(5)}  precision ${String(d.precision).padStart(5)}  ${String(d.status)} ${(d.review_reasons as string[]).slice(0, 4).join(' ')}`);
  const sr = sroie();
  const sroieTable = sliced(`SROIE (${sr.receipts} receipts)`, sr.scores, 'text from the ground-truth OCR lines, not OCR');
  const sroieCalibration = calibrationReport('SROIE', sr.calib);
  const limit = ocrLimit();
  const srOcr = limit ? await sroieThroughOcr(limit) : null;
  const sroieOcrTable = srOcr ? sliced(`SROIE through OCR (${srOcr.receipts} receipts, confidence_based, ${srOcr.ocr_seconds_per_receipt} s OCR per receipt)`, srOcr.scores, 'receipt photo → OCR → extraction') : null;
  const sroieOcrCalibration = srOcr ? calibrationReport('SROIE through OCR', srOcr.calib) : null;
  const text = await textStructure();
  const fu = funsd();
  const funsdTable = sliced(`FUNSD pairing by template labels (${fu.forms} forms, ${fu.pairs} linked pairs)`, fu.scores, 'words from the annotations, label = question');
  const kvWords = kvReport('FUNSD canonical key_values from the annotation words (layout alone)', (await funsdKeyValues('words')).scores);
  const kvOcr = process.argv.includes('--funsd-ocr') ? kvReport('FUNSD canonical key_values through OCR (form image → OCR → layout)', (await funsdKeyValues('ocr')).scores) : null;
  await closeOcrEngines();
  const classification = await classificationEval({ sroie: sroieFile, funsd: (f) => funsdDocument(JSON.parse(readFileSync(f, 'utf8')).form) });
  printClassification(classification);
  const time = process.argv.includes('--no-timing') ? [] : await timing();
  console.log('\nextraction vs canonical time, 10 pages:');
  for (const t of time) console.log(`  ${String(t.file).padEnd(60)} canonical ${t.canonical_ms} ms, extraction ${t.extraction_ms} ms (${((t.ratio as number) * 100).toFixed(1)} %)`);
  const result = {
    at: new Date().toISOString(),
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
    seconds: Math.round((Date.now() - started) / 100) / 10,
    held_out_rule: 'FNV-1a(file name without extension) mod 5 == 0 (bench/lib/split.ts)',
    invoice2data: { all_fields: invoiceAll, core_fields: invoiceCore, line_item_fields: invoiceLines, calibration: invoiceCalibration, review_rate_all_right: { core_template: { tuned: reviewTuned, held_out: reviewHeld }, full_template: { reviewed, documents: allRight.length } }, documents: inv.documents },
    sroie: { receipts: sr.receipts, source: 'box/*.csv ground-truth OCR lines', ...sroieTable, calibration: sroieCalibration },
    ...(srOcr ? { sroie_through_ocr: { receipts: srOcr.receipts, ocr_seconds_per_receipt: srOcr.ocr_seconds_per_receipt, ...sroieOcrTable, calibration: sroieOcrCalibration } } : {}),
    text_files: text,
    funsd: { forms: fu.forms, pairs: fu.pairs, source: 'annotation words regrouped into lines', ...funsdTable },
    funsd_key_values_words: kvWords,
    ...(kvOcr ? { funsd_key_values_ocr: kvOcr } : {}),
    classification,
    timing_10_pages: time,
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/eval-latest.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  console.log('\nwritten to bench/results/eval-latest.json');
}

await main();
