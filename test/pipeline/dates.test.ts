// Dates on invoices: which labelled date is the invoice date, how sure an ambiguous day/month
// order is, and how validation rules read dates a template formatted.
import { describe, expect, it } from 'vitest';
import { findDates } from '../../src/pipeline/entities/dates.js';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { buildPdf } from '../helpers/mixed-pdf.js';

const template = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ id: null, version: null, json_schema: { type: 'object', properties }, ...extra });
const INVOICE_DATE = { invoice_date: { type: 'string', format: 'date' } };

async function pdfOf(lines: string[]) {
  return toCanonicalJson(await runCanonical(await buildPdf([{ text: lines }])));
}

describe('the invoice date is never another labelled date', () => {
  it('leaves the invoice date empty when it is printed as "TBD" and only the due date has a value (PDF)', async () => {
    const doc = await pdfOf(['ACME Ltd', 'Invoice INV-1001', 'Invoice Date: TBD', 'Due Date: 2024-04-30', 'Total: 120.00 EUR']);
    const out = runExtraction(doc, template(INVOICE_DATE));
    expect(out.extraction.data.invoice_date).toBeUndefined();
    const due = runExtraction(doc, template({ ...INVOICE_DATE, due_date: { type: 'string', format: 'date' } }));
    expect(due.extraction.data).toEqual({ due_date: '2024-04-30' });
  });

  it.each([
    [['Invoice Date: Mar-04-2024', 'Due Date: 04 Apr 24']],
    [['Invoice Date: Mar-04-2024', 'Order Date: 2024-02-01', 'Ship Date: 2024-02-05']],
    [['Order Date: 2024-02-01', 'Invoice Date: Mar/04/2024', 'Ship Date: 2024-02-05']],
  ])('reads "Mar-04-2024" as the invoice date beside other dates: %j', (rows) => {
    const out = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', ...rows]), template(INVOICE_DATE));
    expect(out.extraction.data.invoice_date).toBe('2024-03-04');
  });

  it('takes no date under another date\'s label as a stand-in, on its line or below the invoice date\'s label', () => {
    const stand = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', 'Order Date: 2024-02-01', 'Ship Date: 2024-02-05']), template(INVOICE_DATE));
    expect(stand.extraction.data.invoice_date).toBeUndefined();
    const sameLine = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', 'Invoice Date: TBD   Due Date: 2024-04-30']), template(INVOICE_DATE));
    expect(sameLine.extraction.data.invoice_date).toBeUndefined();
    // An unlabelled date is still the stand-in, below the floor.
    const unlabelled = runExtraction(documentFromLines(['ACME Ltd', 'Invoice 1', 'Due Date: 2024-04-30', 'London, 2024-03-01']), template(INVOICE_DATE));
    expect(unlabelled.extraction.data.invoice_date).toBe('2024-03-01');
    expect(unlabelled.extraction.fields.invoice_date!.confidence).toBeLessThan(0.7);
  });

  it('reads month-name-first dates with one separator', () => {
    expect(findDates('Mar-04-2024 and Dec/31/23 and Jan.05.2024').map((d) => d.value)).toEqual(['2024-03-04', '2023-12-31', '2024-01-05']);
  });
});

describe('a day/month order that was a guess', () => {
  const US = ['Lone Star Supplies Inc.', '100 Congress Ave', 'Austin, TX 78701', 'Invoice 2024-17'];

  it('reads "03/04/2024" on an American invoice month-first, and sends it to review (PDF)', async () => {
    const doc = await pdfOf([...US, 'Invoice Date: 03/04/2024', 'Total: $120.00']);
    const out = runExtraction(doc, template(INVOICE_DATE, { json_schema: { type: 'object', properties: INVOICE_DATE, required: ['invoice_date'] } }));
    expect(out.extraction.data.invoice_date).toBe('2024-03-04');
    expect(out.extraction.fields.invoice_date!.confidence).toBeLessThan(0.7);
    expect(out.decision.status).toBe('needs_review');
    expect(out.decision.review_reasons).toContain('low_confidence:invoice_date');
  });

  it('guesses day-first elsewhere, below the floor as well', () => {
    const out = runExtraction(documentFromLines(['ACME Ltd', '1 High Street', 'London SW1A 1AA', 'Invoice Date: 03/04/2024', 'Total: £120.00']), template(INVOICE_DATE));
    expect(out.extraction.data.invoice_date).toBe('2024-04-03');
    expect(out.extraction.fields.invoice_date!.confidence).toBeLessThan(0.7);
  });

  it('passes a date whose order the document proves, or that no order changes', () => {
    const proved = runExtraction(documentFromLines([...US, 'Invoice Date: 03/04/2024', 'Due Date: 04/18/2024', 'Total: $120.00']), template(INVOICE_DATE));
    expect(proved.extraction.data.invoice_date).toBe('2024-03-04');
    expect(proved.extraction.fields.invoice_date!.confidence).toBeGreaterThanOrEqual(0.7);
    for (const printed of ['03/03/2024', '2024-03-04', '03.04.2024', 'March 4, 2024']) {
      const out = runExtraction(documentFromLines([...US, `Invoice Date: ${printed}`, 'Total: $120.00']), template(INVOICE_DATE));
      expect(out.extraction.fields.invoice_date!.confidence, printed).toBeGreaterThanOrEqual(0.7);
    }
  });
});

describe('date rules on dates post-processing formatted', () => {
  const DATES = { invoice_date: { type: 'string', format: 'date' }, due_date: { type: 'string', format: 'date' } };
  const doc = documentFromLines(['ACME Ltd', 'Invoice 1', 'Invoice Date: 2024-03-05', 'Due Date: 2024-04-05', 'Total: 120.00 EUR']);
  const rules = [
    { kind: 'date', field: 'invoice_date', params: { max: '2024-04-01' } },
    { kind: 'date_order', fields: ['invoice_date', 'due_date'] },
  ];

  it.each([
    ['MM/DD/YYYY', '03/05/2024', '04/05/2024'],
    ['YYYY/DD/MM', '2024/05/03', '2024/05/04'],
    ['D.M.YY', '5.3.24', '5.4.24'],
  ])('reads %s back as written', (date_format, invoice, due) => {
    const out = runExtraction(doc, template(DATES, { post_processing: { date_format }, validation_rules: rules }));
    expect(out.extraction.data).toEqual({ invoice_date: invoice, due_date: due });
    expect(out.extraction.validation).toEqual([]);
    expect(out.decision.status).toBe('completed');
  });

  it('still finds a date the format puts after the limit, or out of order', () => {
    const late = documentFromLines(['ACME Ltd', 'Invoice 1', 'Invoice Date: 2024-05-03', 'Due Date: 2024-04-05']);
    const out = runExtraction(late, template(DATES, { post_processing: { fields: { invoice_date: { date_format: 'MM/DD/YYYY' } } }, validation_rules: rules }));
    expect(out.extraction.data.invoice_date).toBe('05/03/2024');
    expect(out.extraction.validation.map((v) => v.rule)).toEqual(['date:invoice_date', 'date_order:invoice_date,due_date']);
  });
});
