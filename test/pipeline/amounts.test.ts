// Subtotal + tax = total: amounts that agree confirm each other, a contradicted one is replaced by
// the printed amount that makes the sum hold, or goes to review, never passing silently.
import { afterAll, describe, expect, it } from 'vitest';
import { closeOcrEngines } from '../../src/pipeline/ocr/index.js';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runEntities, runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { templateSchemaFor } from '../../bench/lib/invoice-template.js';
import { findMoney } from '../../src/pipeline/entities/money.js';
import { parseNumber } from '../../src/pipeline/entities/numbers.js';
import { buildPdf } from '../helpers/mixed-pdf.js';
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

/** A one-page digital PDF of these lines, through the canonical pipeline. */
async function pdfOf(lines: string[]) {
  return toCanonicalJson(await runCanonical(await buildPdf([{ text: lines }])));
}

describe('amounts in Indian lakh grouping', () => {
  it('reads "1,25,000.00" and "11,80,000.00" whole, never their first group', async () => {
    const doc = await pdfOf(['ACME Traders Pvt Ltd', 'Tax Invoice 2024/118', 'Subtotal INR 1,00,000.00', 'GST 18% INR 18,000.00', 'Total INR 1,18,000.00']);
    const out = runExtraction(doc, template(SCHEMA));
    expect(out.extraction.data).toEqual({ subtotal: 100000, tax: 18000, total: 118000 });
    expect(out.extraction.fields.total!.evidence[0]!.text).toBe('INR 1,18,000.00');
    for (const [text, amount] of [['Total: INR 1,25,000.00', 125000], ['Grand Total Rs. 11,80,000.00', 1180000], ['Amount payable ₹ 1,00,00,000', 10000000]] as const) {
      expect(runExtraction(documentFromLines(['ACME Traders Pvt Ltd', 'Invoice 7', text]), template({ type: 'object', properties: { total: { type: 'number' } } })).extraction.data.total).toBe(amount);
    }
  });

  it('takes no prefix of a longer grouped number, and no part from inside one', () => {
    expect(findMoney('Total INR 1,25,000.00').map((m) => m.amount)).toEqual([125000]);
    expect(findMoney('12,34,56 and 1,234,56.00').map((m) => m.amount)).toEqual([]);
    expect(parseNumber('1,00,00,000')).toBe(10000000);
    expect(parseNumber('12,34,567.50')).toBe(1234567.5);
    expect(parseNumber('1,2,345')).toBeNull();
  });
});

describe('negative amounts (credit notes, balances)', () => {
  const one = (field: string) => template({ type: 'object', properties: { [field]: { type: 'number' } } });

  it.each([
    ['Total -450.00', 'total', -450],
    ['Total EUR -450.00', 'total', -450],
    ['Total: -450.00 EUR', 'total', -450],
    ['Total (450.00)', 'total', -450],
    ['Total (EUR 450.00)', 'total', -450],
    ['Balance -75.00 EUR', 'balance', -75],
  ])('keeps the sign of "%s"', (line, field, value) => {
    const out = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', line]), one(field));
    expect(out.extraction.data[field]).toBe(value);
  });

  it('extracts a credit note printed in brackets as negative, its amounts checking each other (PDF)', async () => {
    const doc = await pdfOf(['ACME Ltd', 'Credit note CN-2024-007', 'Subtotal (1,000.00)', 'VAT 20% (200.00)', 'Total (1,200.00)']);
    const out = runExtraction(doc, template(SCHEMA));
    expect(out.extraction.data).toEqual({ subtotal: -1000, tax: -200, total: -1200 });
    expect(out.extraction.validation).toEqual([]);
    expect(runEntities(doc).filter((e) => e.type === 'money').map((e) => (e.value as { amount: number }).amount)).toEqual([-1000, -200, -1200]);
  });

  it('leaves a dash that separates a label from its amount alone', () => {
    const out = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', 'Total - 450.00', 'Invoice No - 7781']), template({ type: 'object', properties: { total: { type: 'number' }, invoice_number: { type: 'string' } } }));
    expect(out.extraction.data).toEqual({ total: 450, invoice_number: '7781' });
  });
});

describe('totals qualified by the tax they include or leave out', () => {
  it('reads the Swiss "Total exkl. MWST / MWST 8.1% / Total inkl. MWST" rows as subtotal, tax and total (PDF)', async () => {
    const doc = await pdfOf(['Muster AG', 'Rechnung 2024-118', "Total exkl. MWST CHF 1'500.00", 'MWST 8.1% CHF 121.50', "Total inkl. MWST CHF 1'621.50"]);
    const out = runExtraction(doc, template(SCHEMA));
    expect(out.extraction.data).toEqual({ subtotal: 1500, tax: 121.5, total: 1621.5 });
    expect(out.decision.status).toBe('completed');
    // The PDF's apostrophe is a typographic one (U+2019), as Swiss documents often print it.
    expect(parseNumber('1\u2019621.50')).toBe(1621.5);
  });

  it.each([
    ['English', ['Total excl. VAT GBP 1,000.00', 'VAT 20% GBP 200.00', 'Total incl. VAT GBP 1,200.00']],
    ['German', ['Summe exkl. MwSt. 1.000,00 EUR', 'MwSt. 20% 200,00 EUR', 'Gesamtbetrag inkl. MwSt. 1.200,00 EUR']],
    ['German, zzgl.', ['Betrag zzgl. MwSt. 1.000,00 EUR', 'MwSt. 20% 200,00 EUR', 'Betrag inkl. MwSt. 1.200,00 EUR']],
    ['French', ['Montant HT 1 000,00 €', 'TVA 20% 200,00 €', 'Montant TTC 1 200,00 €']],
    ['Dutch', ['Totaal exclusief BTW € 1.000,00', 'BTW 20% € 200,00', 'Totaal inclusief BTW € 1.200,00']],
  ])('%s', (_language, rows) => {
    const out = runExtraction(documentFromLines(['ACME', 'Invoice 1', ...rows]), template(SCHEMA));
    expect(out.extraction.data).toEqual({ subtotal: 1000, tax: 200, total: 1200 });
  });

  it('still reads a tax stated after the total\'s amount, and a "zzgl." tax row', () => {
    const receipt = runExtraction(documentFromLines(['ACME GmbH', 'Beleg 1', 'Total EUR 11,90', 'inkl. 19% MwSt 1,90']), template(SCHEMA));
    expect(receipt.extraction.data).toMatchObject({ total: 11.9, tax: 1.9 });
    const plus = runExtraction(documentFromLines(['ACME GmbH', 'Rechnung 1', 'Nettobetrag 1.000,00 EUR', 'zzgl. 19% MwSt. 190,00 EUR', 'Gesamtbetrag 1.190,00 EUR']), template(SCHEMA));
    expect(plus.extraction.data).toEqual({ subtotal: 1000, tax: 190, total: 1190 });
  });
});

describe('identifiers after a tax label are no tax amount', () => {
  it('reads no tax amount from FlipkartInvoice\'s "Service tax #: … | Phone: 8756390642" or "VAT/TIN: 29670869006"', async () => {
    const canonical = toCanonicalJson(await runCanonical(readData('invoice2data/compare/FlipkartInvoice.pdf')));
    const properties = { issuer: { type: 'string' }, amount: { type: 'number' }, amount_untaxed: { type: 'number' }, amount_tax: { type: 'number' }, date: { type: 'string', format: 'date' }, invoice_number: { type: 'string' }, currency: { type: 'string' } };
    const out = runExtraction(canonical, template({ type: 'object', properties }));
    expect(out.extraction.data.amount).toBe(319);
    expect([8756390642, 29670869006]).not.toContain(out.extraction.data.amount_tax);
    // What is left is the item table's "Tax Total" (319.00 = 278.61 + 40.39), below the floor.
    if (out.extraction.data.amount_tax !== undefined) expect(out.extraction.fields.amount_tax!.confidence).toBeLessThan(0.7);
  });

  it.each([
    'Service tax #: AAACW8725FSD001 | Phone: 8756390642',
    'VAT/TIN: 29670869006',
    'VAT Reg. No.: 123 4567 89',
    'Tax ID: 12-3456789',
    'Tax registration 27AAACW8725F1ZJ',
    'Tax: 8756390642',
  ])('"%s" gives the tax amount nothing', (line) => {
    const out = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', line, 'Phone: 8756390642']), template({ type: 'object', properties: { tax: { type: 'number' } } }));
    expect(out.extraction.data.tax).toBeUndefined();
  });

  it('still reads tax amounts', () => {
    for (const [line, tax] of [['Tax: 40.39', 40.39], ['VAT 20% 200.00', 200], ['Tax (9%) Rs. 1,25,000.00', 125000], ['GST 6% 4.13', 4.13]] as const) {
      const out = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', line]), template({ type: 'object', properties: { tax: { type: 'number' } } }));
      expect(out.extraction.data.tax, line).toBe(tax);
    }
  });
});

describe('counts and payments around a receipt total', () => {
  const TOTAL = template({ type: 'object', properties: { total: { type: 'number' } } });

  it('takes no count after a total\'s label ("TOTAL QUANTITY(S): 3", "Total Items 4") for the total', () => {
    const out = runExtraction(documentFromLines(['BOOKCENTRE SDN BHD', 'SUB-TOTAL 62.00', 'TOTAL ITEM(S): 3', 'TOTAL QUANTITY(S): 3', 'TOTAL INCL GST RM 62.00']), TOTAL);
    expect(out.extraction.data.total).toBe(62);
    const counts = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', 'Total Items: 4', 'Total Qty: 12']), TOTAL);
    expect(counts.extraction.data.total).toBeUndefined();
  });

  it('reads a payment printed as a deduction ("Cash -50.00") as the amount tendered, confirming the total', () => {
    const out = runExtraction(documentFromLines(['POPULAR BOOK CO. (M) SDN BHD', 'T R RING 2.65', 'PB SHEET 7.00', 'Total RM Incl. of GST 9.65', 'Cash -50.00 CHANGE 40.35', 'GST Summary 9.10 0.55']), TOTAL);
    expect(out.extraction.data.total).toBe(9.65);
    expect(out.extraction.fields.total!.confidence).toBeGreaterThanOrEqual(0.85);
  });
});
