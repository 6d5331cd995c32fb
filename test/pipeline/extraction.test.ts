// The embedded extractor on real invoices (../shared/data/invoice2data): a template per document
// built from the fields of its expected JSON, scored field by field. The floors sit well below
// what the extractor measures (bench/results/eval-latest.json) and far above what a broken one
// would reach; they are not tuned to these files.
import { describe, expect, it } from 'vitest';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { type Scores, scoreDocument, summarise, total, wilson95 } from '../../bench/lib/field-score.js';
import { NOT_ON_DOCUMENT, templateSchemaFor } from '../../bench/lib/invoice-template.js';
import { listData, readData, readDataJson } from './data.js';

const CORE = ['amount', 'amount_untaxed', 'date', 'date_due', 'invoice_number', 'currency', 'vat', 'iban', 'bic'];

describe('extraction on invoice2data', () => {
  it('finds the core invoice fields, each with confidence and evidence', async () => {
    const scores: Scores = {};
    const sources = listData('invoice2data/compare').filter((f) => f.endsWith('.pdf'));
    expect(sources.length).toBeGreaterThanOrEqual(11);
    for (const source of sources) {
      const expected = Object.fromEntries(
        Object.entries(readDataJson<Record<string, unknown>[]>(`invoice2data/compare/${source.replace(/\.pdf$/, '.json')}`)[0]!).filter(([k]) => !NOT_ON_DOCUMENT.has(k)),
      );
      const canonical = toCanonicalJson(await runCanonical(readData(`invoice2data/compare/${source}`)));
      const out = runExtraction(canonical, { id: 'tpl_eval', version: 1, json_schema: templateSchemaFor(expected) });
      const core = Object.fromEntries(Object.entries(expected).filter(([k]) => CORE.includes(k)));
      scoreDocument(scores, core, out.extraction.data);
      for (const [path, field] of Object.entries(out.extraction.fields)) {
        expect(field.confidence, `${source} ${path}`).toBeGreaterThanOrEqual(0);
        expect(field.confidence, `${source} ${path}`).toBeLessThanOrEqual(1);
        if (field.value !== null && field.evidence.length) expect(field.evidence[0]!.page, `${source} ${path}`).toBeGreaterThanOrEqual(1);
      }
    }
    const all = summarise(total(scores));
    // Measured: exact ≈ 0.8, precision ≈ 0.9 on these fields.
    expect(all.exact_match).toBeGreaterThanOrEqual(0.65);
    expect(all.precision).toBeGreaterThanOrEqual(0.8);
    for (const field of ['amount', 'date', 'currency']) expect(summarise(scores[field]!).exact_match, field).toBeGreaterThanOrEqual(0.8);
  }, 60_000);
});

describe("the eval's interval around a share", () => {
  it('is the Wilson score interval: wide on a few fields, narrow on many', () => {
    expect(wilson95(11, 14)).toEqual([0.524, 0.924]);
    expect(wilson95(71, 76)).toEqual([0.855, 0.972]);
    expect(wilson95(0, 5)![0]).toBe(0);
    expect(wilson95(5, 5)![1]).toBe(1);
    expect(wilson95(0, 0)).toBeNull();
  });
});
