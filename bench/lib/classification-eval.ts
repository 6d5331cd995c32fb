// Classification accuracy over ../shared/data (`npm run eval`, section "classification").
//  - kinds: one template per kind (invoice, receipt, form, slide deck, table report) whose
//    exemplars are the other documents of that kind (leave-one-out), plus documents of no
//    template's kind (papers, manuals, prose pages), which should come out unmatched;
//  - issuers: one template per invoice2data issuer, keywords from the invoice2data template of
//    that issuer, exemplars the issuer's other invoices (leave-one-out);
//  - learning from use: kind accuracy with 0, 1, 2, 4, 8 and all exemplars per template.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Fingerprint, type TemplateProfile, decide, fieldLabels, fingerprintOf, rankTemplates } from '../../src/pipeline/classify/index.js';
import type { DocInput } from '../../src/pipeline/entities/text.js';
import { runEntities, schemaFields } from '../../src/pipeline/extract/index.js';
import { type CanonicalJson, runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { type Slice, sliceOf } from './split.js';

const DATA = new URL('../../../shared/data/', import.meta.url);
const file = (p: string) => fileURLToPath(new URL(p, DATA));
const list = (dir: string, ext: RegExp) => readdirSync(new URL(dir, DATA)).filter((f) => ext.test(f)).sort().map((f) => dir + f);

interface Doc {
  name: string;
  /** Tuning or held-out (by the file name without directory and extension, bench/lib/split.ts). */
  slice: Slice;
  kind: string;
  issuer?: string;
  fp: Fingerprint;
  text: string;
}

export interface Loaders {
  sroie: (path: string) => DocInput;
  funsd: (path: string) => DocInput;
}

function fromDocInput(doc: DocInput): CanonicalJson {
  const text = doc.pages.map((p) => p.blocks.map((b) => b.text).join('\n')).join('\n\n');
  return { pages: doc.pages as CanonicalJson['pages'], text, markdown: '' };
}

function make(name: string, kind: string, canonical: CanonicalJson, format: string | null, issuer?: string): Doc {
  const entities = runEntities(canonical, { generic_entities_enabled: true });
  const slice = sliceOf(name.split('/').pop()!.replace(/\.[^.]+$/, ''));
  return { name, slice, kind, ...(issuer ? { issuer } : {}), fp: fingerprintOf(canonical, entities, format), text: canonical.text };
}

async function read(path: string, kind: string, issuer?: string): Promise<Doc | null> {
  try {
    const run = await runCanonical(readFileSync(file(path)), { pdfMaxPages: 5, pageCapPolicy: 'truncate' });
    return make(path, kind, toCanonicalJson(run), run.format, issuer);
  } catch (err) {
    console.warn(`  skipped ${path}: ${(err as Error).message}`);
    return null;
  }
}

const KIND_SCHEMAS: Record<string, Record<string, unknown>> = {
  invoice: { type: 'object', properties: { invoice_number: { type: 'string' }, date: { type: 'string', format: 'date' }, due_date: { type: 'string', format: 'date' }, issuer: { type: 'string' }, vat: { type: 'string' }, amount_untaxed: { type: 'number' }, amount_tax: { type: 'number' }, amount: { type: 'number' } } },
  receipt: { type: 'object', properties: { company: { type: 'string' }, date: { type: 'string', format: 'date' }, address: { type: 'string' }, total: { type: 'number' }, cash: { type: 'number' }, change: { type: 'number' } } },
  form: { type: 'object', properties: { name: { type: 'string' }, date: { type: 'string', format: 'date' }, signature: { type: 'string' }, subject: { type: 'string' } } },
  slide_deck: { type: 'object', properties: { title: { type: 'string' }, subtitle: { type: 'string' } } },
  table_report: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'number' } } } } } },
};

export function issuerKeywords(issuer: string): string[] {
  const dir = new URL('invoice2data/templates/', DATA);
  for (const country of readdirSync(dir)) {
    for (const f of readdirSync(new URL(`${country}/`, dir))) {
      const text = readFileSync(new URL(`${country}/${f}`, dir), 'utf8');
      const m = /^issuer:\s*(.+)$/m.exec(text);
      if (!m || m[1]!.trim().replace(/^["']|["']$/g, '') !== issuer) continue;
      const block = /^keywords:\s*\n((?:\s+-.*\n?)+)/m.exec(text);
      return block ? block[1]!.split('\n').map((l) => l.replace(/^\s*-\s*/, '').trim().replace(/^["']|["']$/g, '')).filter(Boolean) : [issuer];
    }
  }
  return [issuer];
}

export async function loadCorpus(loaders: Loaders): Promise<Doc[]> {
  const docs: (Doc | null)[] = [];
  const compare = 'invoice2data/compare/';
  for (const p of list(compare, /\.(pdf|txt)$/)) {
    const issuer = (JSON.parse(readFileSync(file(p.replace(/\.(pdf|txt)$/, '.json')), 'utf8')) as { issuer: string }[])[0]!.issuer;
    docs.push(await read(p, 'invoice', issuer));
  }
  for (const p of list('sroie/box/', /\.csv$/)) docs.push(make(p, 'receipt', fromDocInput(loaders.sroie(file(p))), 'jpeg'));
  for (const p of list('funsd/annotations/', /\.json$/)) docs.push(make(p, 'form', fromDocInput(loaders.funsd(file(p))), 'png'));
  for (const p of [...list('pptx-python-pptx/files/', /\.pptx$/), ...list('docling/pptx/sources/', /\.pptx$/)]) docs.push(await read(p, 'slide_deck'));
  for (const p of list('tables-camelot/files/', /\.pdf$/)) docs.push(await read(p, 'table_report'));
  for (const p of list('docling/pdf/sources/', /\.pdf$/)) docs.push(await read(p, 'unknown'));
  for (const p of ['ocr-text/8071_093.3B.txt', 'ocr-text/8087_054.3B.txt', 'ocr-text/eurotext.txt', 'ocr-text/phototest.txt', 'pdf-realworld/pdfs/scotus-transcript-p1.pdf', 'pdf-realworld/pdfs/federal-register-2020-17221.pdf', 'pdf-realworld/pdfs/issue-33-lorem-ipsum.pdf']) {
    docs.push(await read(p, 'unknown'));
  }
  // Empty documents (no words: a deck of pictures, a blank page) carry nothing to classify by.
  return docs.filter((d): d is Doc => !!d && d.fp.shape.words_per_page > 0);
}

function kindProfiles(docs: Doc[], leaveOut: Doc | null, perTemplate: number): TemplateProfile[] {
  return Object.entries(KIND_SCHEMAS).map(([kind, schema]) => ({
    template_id: kind,
    version: 1,
    name: kind,
    keywords: [],
    fields: fieldLabels(schemaFields(schema)),
    exemplars: docs.filter((d) => d.kind === kind && d !== leaveOut).slice(0, perTemplate).map((d) => ({ job_id: d.name, fingerprint: d.fp })),
  }));
}

const pct = (n: number, of: number) => (of ? Math.round((1000 * n) / of) / 10 : 0);
const SLICES: Slice[] = ['tuned', 'held_out'];

/** Right answers over documents, per slice and (optionally) per group. */
function tally() {
  const counts = { tuned: { n: 0, right: 0 }, held_out: { n: 0, right: 0 } };
  const groups: Record<string, Record<Slice, { n: number; right: number }>> = {};
  return {
    add(slice: Slice, ok: boolean, group?: string) {
      counts[slice].n++;
      if (ok) counts[slice].right++;
      if (!group) return;
      groups[group] ??= { tuned: { n: 0, right: 0 }, held_out: { n: 0, right: 0 } };
      groups[group]![slice].n++;
      if (ok) groups[group]![slice].right++;
    },
    pct(slice?: Slice) {
      const c = slice ? counts[slice] : { n: counts.tuned.n + counts.held_out.n, right: counts.tuned.right + counts.held_out.right };
      return pct(c.right, c.n);
    },
    n: (slice?: Slice) => (slice ? counts[slice].n : counts.tuned.n + counts.held_out.n),
    bySlice: () => Object.fromEntries(SLICES.map((s) => [s, { documents: counts[s].n, pct: pct(counts[s].right, counts[s].n) }])) as Record<Slice, { documents: number; pct: number }>,
    groups: () => Object.fromEntries(Object.entries(groups).map(([g, v]) => [g, { tuned: `${v.tuned.right}/${v.tuned.n}`, held_out: `${v.held_out.right}/${v.held_out.n}` }])),
  };
}

export function kindAccuracy(docs: Doc[], perTemplate = 50) {
  const known = docs.filter((d) => d.kind !== 'unknown');
  const unknown = docs.filter((d) => d.kind === 'unknown');
  const kinds = tally();
  const misses: { slice: Slice; text: string }[] = [];
  // Rows: the document's kind; columns: what it was classified as (a template, or why none).
  const confusion: Record<string, Record<string, number>> = {};
  const count = (row: string, col: string) => {
    confusion[row] ??= {};
    confusion[row]![col] = (confusion[row]![col] ?? 0) + 1;
  };
  for (const d of known) {
    const decision = decide(rankTemplates(d.fp, d.text, kindProfiles(docs, d, perTemplate)));
    const ok = decision.matched && decision.template_id === d.kind;
    kinds.add(d.slice, ok, d.kind);
    count(d.kind, decision.template_id ?? decision.reason_code ?? decision.method);
    if (!ok) misses.push({ slice: d.slice, text: `${d.name} (${d.kind}) → ${decision.template_id ?? decision.reason_code ?? decision.method} ${decision.score}` });
  }
  const unknowns = tally();
  const falseMatches: { slice: Slice; text: string }[] = [];
  for (const d of unknown) {
    const decision = decide(rankTemplates(d.fp, d.text, kindProfiles(docs, null, perTemplate)));
    unknowns.add(d.slice, !decision.matched);
    count('unknown', decision.template_id ?? decision.reason_code ?? decision.method);
    if (decision.matched) falseMatches.push({ slice: d.slice, text: `${d.name} → ${decision.template_id} ${decision.score}` });
  }
  return {
    exemplars_per_template: perTemplate,
    documents: known.length,
    kind_accuracy_pct: kinds.pct(),
    kind_accuracy_by_slice: kinds.bySlice(),
    by_kind: kinds.groups(),
    unknown_documents: unknown.length,
    unknown_miss_rate_pct: unknowns.pct(),
    unknown_miss_rate_by_slice: unknowns.bySlice(),
    confusion,
    misses,
    false_matches: falseMatches,
  };
}

export function issuerAccuracy(docs: Doc[]) {
  const invoices = docs.filter((d) => d.kind === 'invoice' && d.issuer);
  const issuers = [...new Set(invoices.map((d) => d.issuer!))];
  const keywords = new Map(issuers.map((i) => [i, issuerKeywords(i)]));
  const result = tally();
  const misses: { slice: Slice; text: string }[] = [];
  for (const d of invoices) {
    const profiles: TemplateProfile[] = issuers.map((issuer) => ({
      template_id: issuer,
      version: 1,
      name: issuer,
      keywords: keywords.get(issuer)!,
      fields: fieldLabels(schemaFields(KIND_SCHEMAS.invoice!)),
      exemplars: invoices.filter((x) => x.issuer === issuer && x !== d).map((x) => ({ job_id: x.name, fingerprint: x.fp })),
    }));
    const decision = decide(rankTemplates(d.fp, d.text, profiles));
    const ok = decision.matched && decision.template_id === d.issuer;
    result.add(d.slice, ok);
    if (!ok) misses.push({ slice: d.slice, text: `${d.name} (${d.issuer}) → ${decision.template_id ?? decision.reason_code ?? decision.method} ${decision.score}` });
  }
  return { documents: invoices.length, issuers: issuers.length, issuer_accuracy_pct: result.pct(), issuer_accuracy_by_slice: result.bySlice(), misses };
}

export async function classificationEval(loaders: Loaders) {
  const started = Date.now();
  const docs = await loadCorpus(loaders);
  const kinds = kindAccuracy(docs);
  const issuers = issuerAccuracy(docs);
  const withUse = [0, 1, 2, 4, 8, 50].map((n) => {
    const r = kindAccuracy(docs, n);
    return { exemplars_per_template: n, kind_accuracy_pct: r.kind_accuracy_pct, kind_accuracy_by_slice: r.kind_accuracy_by_slice, unknown_miss_rate_pct: r.unknown_miss_rate_pct };
  });
  return { seconds: Math.round((Date.now() - started) / 100) / 10, kinds, issuers, learning_from_use: withUse };
}
