// Subtotal + tax = total: amounts that agree confirm each other, a contradicted one is replaced by
// the printed amount that makes the sum hold, or goes to review, never passing silently.
import { afterAll, describe, expect, it } from 'vitest';
import { closeOcrEngines } from '../../src/pipeline/ocr/index.js';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { templateSchemaFor } from '../../bench/lib/invoice-template.js';
import { readData, readDataJson } from './data.js';

const SCHEMA = { type: 'object', properties: { total: { type: 'number' }, subtotal: { type: 'number' }, tax: { type: 'number' } } };
const template = (json_schema: Record<string, unknown>) => ({ id: null, version: null, json_schema });

describe('amounts checked against each other', () => {
  it('replaces a tax read as the total by the printed amount that makes subtotal + tax = total (saeco)', async () => {
    const expected = readDataJson<Record<string, unknown>[]>('invoice2data/compare/saeco.json')[0]!;
    const canonical = toCanonicalJson(await runCanonical(readData('invoice2data/compare/saeco.pdf')));
    const out = runExtraction(canonical, template(templateSchemaFor(expected)));
    expect(out.extraction.data.amount_tax).toBe(8.68);
    expect(out.extraction.data.amount_untaxed).toBe(41.31);
    expect(out.extraction.data.amount).toBe(49.99);
  });

  it('sends a contradiction with no printed way out to review', () => {
    const doc = documentFromLines(['ACME Ltd', 'Invoice 1001', 'Subtotal: 100.00', 'Tax: 20.00', 'Total: 150.00']);
    const out = runExtraction(doc, template(SCHEMA));
    expect(out.extraction.data).toMatchObject({ subtotal: 100, tax: 20, total: 150 });
    for (const f of ['subtotal', 'tax', 'total']) expect(out.extraction.fields[f]!.confidence).toBeLessThan(0.7);
    expect(out.decision.status).toBe('needs_review');
  });

  it('raises the confidence of amounts that add up', () => {
    const doc = documentFromLines(['ACME Ltd', 'Invoice 1001', 'Subtotal: 100.00', 'Tax: 20.00', 'Total: 120.00']);
    const agreeing = runExtraction(doc, template(SCHEMA)).extraction.fields;
    const alone = runExtraction(doc, template({ type: 'object', properties: { total: { type: 'number' } } })).extraction.fields;
    expect(agreeing.total!.confidence).toBeGreaterThan(alone.total!.confidence);
  });
});

describe('the amount of a Swiss QR-bill (scan, through OCR)', () => {
  afterAll(() => closeOcrEngines());

  it('is the bill amount and the payment part\'s amount, not the first item\'s "Total" cell', async () => {
    const canonical = toCanonicalJson(await runCanonical(readData('docling/ocr/sources/qr_bill_example.jpg'), { ocr: { pageTimeoutMs: 170_000 } }));
    const out = runExtraction(canonical, template({ type: 'object', properties: { total: { type: 'number' }, currency: { type: 'string' } } }));
    expect(out.extraction.data).toEqual({ total: 3949.75, currency: 'CHF' });
    expect(out.extraction.fields.total!.confidence).toBeGreaterThanOrEqual(0.7);
  }, 180_000);
});

describe('a failed sum check', () => {
  const schema = {
    type: 'object',
    properties: { total: { type: 'number' }, lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'number' }, amount: { type: 'number' } } } } },
  };
  const doc = (total: string) => documentFromLines(['INVOICE 2024-17', 'Description Qty Amount', 'Widget 1 50.00', 'Gadget 1 30.00', `Total ${total}`]);
  const rule = { kind: 'sum', field: 'total', params: { items: 'lines[].amount' }, severity: 'warn' };

  it('sends the contradicted value to review even as a warning', () => {
    const out = runExtraction(doc('90.00'), { ...template(schema), validation_rules: [rule] });
    expect(out.extraction.data.total).toBe(90);
    expect(out.extraction.validation.map((v) => v.rule)).toEqual(['sum:total']);
    expect(out.extraction.fields.total!.confidence).toBeLessThan(0.7);
    expect(out.decision.review_reasons).toContain('low_confidence:total');
  });

  it('leaves a total the items add up to alone', () => {
    const out = runExtraction(doc('80.00'), { ...template(schema), validation_rules: [rule] });
    expect(out.extraction.validation).toEqual([]);
    expect(out.extraction.fields.total!.confidence).toBeGreaterThanOrEqual(0.7);
  });
});
