import { describe, expect, it } from 'vitest';
import type { BBox, Table } from '../canonical/model.js';
import { documentFromLines } from '../entities/text-doc.js';
import type { DocInput, DocPage } from '../entities/text.js';
import { findKeyValues } from '../layout/key-values.js';
import { runEntities, runExtraction } from './index.js';

const template = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ id: 'tpl_1', version: 3, json_schema: { type: 'object', properties }, ...extra });

/** A page with a ruled table: header row and data rows, each row also a line of the table block. */
function withTable(doc: DocInput, rows: string[][], top = 300, page = 1): DocInput {
  const widths = [200, 60, 80, 80];
  const cells: Table['cells'] = [];
  const lines = rows.map((row, r) => {
    let x = 40;
    const y: [number, number] = [top + r * 16, top + r * 16 + 12];
    const words = row.flatMap((text, c) => {
      const x0 = x;
      x += widths[c] ?? 80;
      cells.push({ row: r, col: c, row_span: 1, col_span: 1, text, bbox: [x0, y[0], x0 + (widths[c] ?? 80), y[1]] });
      let at = x0 + 2;
      return text.split(' ').filter(Boolean).map((w) => {
        const box: BBox = [at, y[0], at + w.length * 5, y[1]];
        at += (w.length + 1) * 5;
        return { text: w, bbox: box, confidence: 1 };
      });
    });
    return { text: row.join(' '), bbox: [40, y[0], x, y[1]] as BBox, words };
  });
  const bbox: BBox = [40, top, 460, top + rows.length * 16];
  const target = doc.pages.find((p) => p.page_number === page) as DocPage;
  target.tables.push({ bbox, rows: rows.length, cols: rows[0]!.length, cells, kind: 'ruled', confidence: 0.9 });
  target.blocks.push({ type: 'table', text: rows.map((r) => r.join(' | ')).join('\n'), bbox, lines, table_index: target.tables.length - 1 });
  return doc;
}

const ENGLISH = ['ACME Supplies Ltd.', '221B Baker Street, London NW1 6XE', 'Invoice Number: INV-2024-001', 'Invoice Date: March 5, 2024', 'Due Date: March 19, 2024', 'VAT Reg No: GB 123 4567 89', 'Subtotal: £100.00', 'VAT: £20.00', 'Total Due: £120.00'];

describe('runExtraction: scalar fields', () => {
  it('fills fields from labels, with confidence and evidence', () => {
    const out = runExtraction(
      documentFromLines(ENGLISH),
      template({
        invoice_number: { type: 'string' },
        invoice_date: { type: 'string', format: 'date' },
        due_date: { type: 'string', format: 'date' },
        subtotal: { type: 'number' },
        tax_amount: { type: 'number' },
        total: { type: 'number' },
        currency: { type: 'string' },
        vendor: { type: 'string' },
      }),
    );
    expect(out.extraction.data).toEqual({
      invoice_number: 'INV-2024-001',
      invoice_date: '2024-03-05',
      due_date: '2024-03-19',
      subtotal: 100,
      tax_amount: 20,
      total: 120,
      currency: 'GBP',
      vendor: 'ACME Supplies Ltd.',
    });
    expect(out.extraction).toMatchObject({ template_id: 'tpl_1', template_version: 3, validation: [] });
    for (const [path, f] of Object.entries(out.extraction.fields)) {
      expect(f.confidence, path).toBeGreaterThan(0);
      expect(f.confidence, path).toBeLessThanOrEqual(1);
      expect(f.evidence[0], path).toMatchObject({ page: 1, bbox: expect.any(Array), text: expect.any(String) });
    }
    expect(out.extraction.fields.total!.evidence[0]!.text).toBe('£120.00');
    expect(out.extraction.fields.due_date!.evidence[0]!.text).toBe('March 19, 2024');
    expect(out.extraction.fields.total!.confidence).toBeGreaterThan(0.85);
    // The vendor came from a legal-form name, not a label: a weaker reading that asks for review.
    expect(out.extraction.fields.vendor!.confidence).toBeLessThan(0.7);
    expect(out.decision).toMatchObject({ status: 'needs_review', review_reasons: ['low_confidence:vendor'] });
  });

  it.each([
    ['German', ['Rechnungsnummer: R-7781', 'Rechnungsdatum: 7. Mai 2014', 'Fällig am: 21.05.2014', 'Nettobetrag: 29,18 €', 'MwSt. 19%: 5,55 €', 'Gesamtbetrag: 34,73 €']],
    ['French', ['Facture n° R-7781', 'Date de facture : 7 mai 2014', "Date d'échéance : 21/05/2014", 'Total HT : 29,18 €', 'Montant TVA : 5,55 €', 'Total TTC : 34,73 €']],
    ['Spanish', ['Factura nº R-7781', 'Fecha de factura: 7 de mayo de 2014', 'Fecha de vencimiento: 21/05/2014', 'Base imponible: 29,18 €', 'Importe IVA: 5,55 €', 'Total a pagar: 34,73 €']],
  ])('reads %s labels', (_language, lines) => {
    const out = runExtraction(
      documentFromLines(lines),
      template({ invoice_number: { type: 'string' }, date: { type: 'string', format: 'date' }, due_date: { type: 'string', format: 'date' }, amount_untaxed: { type: 'number' }, amount_tax: { type: 'number' }, amount: { type: 'number' } }),
    );
    expect(out.extraction.data).toEqual({ invoice_number: 'R-7781', date: '2014-05-07', due_date: '2014-05-21', amount_untaxed: 29.18, amount_tax: 5.55, amount: 34.73 });
  });

  it('uses title, x-aliases and nested objects', () => {
    const out = runExtraction(
      documentFromLines(['Kunde: Pino Bluebird', 'Klantnummer: 6669263', 'Booking ref: XK-22', 'Lieferant: Coolblue B.V.', 'E-Mail: Sales@Coolblue.nl']),
      template({
        customer: { type: 'object', properties: { name: { type: 'string', 'x-aliases': ['Kunde'] }, number: { type: 'string', title: 'Klantnummer' } } },
        booking: { type: 'string', 'x-aliases': ['booking ref'] },
        supplier: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } },
      }),
    );
    expect(out.extraction.data).toEqual({
      customer: { name: 'Pino Bluebird', number: '6669263' },
      booking: 'XK-22',
      supplier: { name: 'Coolblue B.V.', email: 'sales@coolblue.nl' },
    });
    expect(Object.keys(out.extraction.fields)).toEqual(['customer.name', 'customer.number', 'booking', 'supplier.name', 'supplier.email']);
  });

  it('reads a value under its label (a header row) when evidence planning is on', () => {
    const doc = documentFromLines([
      { text: 'Booking ID Payment Mode', bbox: [40, 100, 200, 112] },
      { text: 'IBZY2087 Cash at Hotel', bbox: [40, 116, 200, 128] },
    ]);
    const schema = template({ booking_id: { type: 'string' } });
    expect(runExtraction(doc, schema).extraction.data).toEqual({ booking_id: 'IBZY2087' });
    expect(runExtraction(doc, schema, { extraction_evidence_planning_enabled: false }).extraction.data).toEqual({});
  });

  it('lets the longest label own its place when planning (due date is not the invoice date)', () => {
    const doc = documentFromLines(['Due date: 2024-04-01']);
    expect(runExtraction(doc, template({ date: { type: 'string', format: 'date' }, due_date: { type: 'string', format: 'date' } })).extraction.fields.date!.confidence).toBeLessThan(0.5);
  });

  it('reads a VAT id printed without its country prefix under a national label (DIČ, IČ DPH, CVR), checked by its check digits', () => {
    const vat = (lines: string[]) => runExtraction(documentFromLines(lines), template({ vat_id: { type: 'string' } })).extraction.fields.vat_id!;
    expect(vat(['Dodavatel: Acme s.r.o.', 'DIČ: 25123891', 'Celkem 1 210,00 Kč'])).toMatchObject({ value: 'CZ25123891' });
    expect(vat(['Dodavatel: Acme s.r.o.', 'DIČ: 25123891', 'Celkem 1 210,00 Kč']).confidence).toBeGreaterThanOrEqual(0.7);
    expect(vat(['Dodávateľ: Acme s.r.o.', 'IČ DPH: 2021853504'])).toMatchObject({ value: 'SK2021853504' });
    expect(vat(['Sælger: Acme ApS', 'CVR-nr.: 13585628'])).toMatchObject({ value: 'DK13585628' });
  });

  it('reads invoices in Polish, Czech and the Nordic languages by their own labels, a number with a spaced prefix whole', () => {
    const fields = template({ invoice_number: { type: 'string' }, date: { type: 'string', format: 'date' }, due_date: { type: 'string', format: 'date' }, total: { type: 'number' } });
    const pl = runExtraction(documentFromLines(['Faktura VAT nr FV 12/2024', 'Data wystawienia: 2024-03-05', 'Termin płatności: 2024-03-19', 'Do zapłaty: 1 230,00 PLN']), fields).extraction;
    expect(pl.data).toEqual({ invoice_number: 'FV 12/2024', date: '2024-03-05', due_date: '2024-03-19', total: 1230 });
    // Where the number starts is a guess with a prefix set apart: held for review.
    expect(pl.fields.invoice_number!.confidence).toBeLessThan(0.7);
    const no = runExtraction(documentFromLines(['Fakturanummer: 20240117', 'Fakturadato: 17.01.2024', 'Forfallsdato: 31.01.2024', 'Å betale: 1 250,00 NOK']), fields).extraction;
    expect(no.data).toEqual({ invoice_number: '20240117', date: '2024-01-17', due_date: '2024-01-31', total: 1250 });
    expect(no.fields.invoice_number!.confidence).toBeGreaterThanOrEqual(0.7);
  });

  it('holds a VAT id or IBAN below the floor when the document prints another one outside the customer\'s block', () => {
    const vat = (lines: string[]) => runExtraction(documentFromLines(lines), template({ vat: { type: 'string' } })).extraction.fields.vat!;
    const issuer = ['ACME Supplies Ltd.', 'VAT Reg No: GB 123 4567 89'];
    // The customer's VAT id in a block nothing labels as the customer's: which one is the issuer's is a guess.
    const unlabelled = vat([...issuer, 'Globex Corporation', 'VAT: NL810433941B01', 'Total Due: £120.00']);
    expect(['GB123456789', 'NL810433941B01']).toContain(unlabelled.value);
    expect(unlabelled.confidence).toBeLessThan(0.7);
    // Under "Bill to" it is the customer's: the issuer's VAT id stands alone.
    const labelled = vat([...issuer, 'Bill to:', 'Globex Corporation', 'VAT: NL810433941B01', 'Total Due: £120.00']);
    expect(labelled).toMatchObject({ value: 'GB123456789' });
    expect(labelled.confidence).toBeGreaterThanOrEqual(0.7);
    const iban = runExtraction(documentFromLines(['ACME GmbH', 'IBAN: DE89 3704 0044 0532 0130 00', 'IBAN: NL91 ABNA 0417 1643 00']), template({ iban: { type: 'string' } })).extraction.fields.iban!;
    expect(iban.confidence).toBeLessThan(0.7);
  });

  it('reads an unprefixed number under a national tax label for that label\'s country first (P.IVA, CIF)', () => {
    const vat = (lines: string[]) => runExtraction(documentFromLines(lines), template({ vat: { type: 'string' } })).extraction.fields.vat!;
    // 07643520567 passes the French check digits too: the Italian label decides.
    expect(vat(['Acme S.r.l.', 'P.IVA 07643520567', 'Totale 122,00 €'])).toMatchObject({ value: 'IT07643520567' });
    expect(runEntities(documentFromLines(['Acme S.r.l.', 'P.IVA 07643520567'])).find((e) => e.type === 'tax_id')?.value).toBe('IT07643520567');
    expect(vat(['Acme S.L.', 'CIF: B58378431', 'Total 121,00 €'])).toMatchObject({ value: 'ESB58378431' });
  });

  it('reads no other field caption as a value: "GST No." under an empty "Address" row', () => {
    const lines = ['LIGHTROOM GALLERY SDN BHD', 'No: 28, JALAN ASTANA 1C,', 'BANDAR BUKIT RAJA, 41050', 'KLANG SELANGOR', 'TAX INVOICE', 'Name : CASH', 'Address', 'GST No.', 'Total 73.00'];
    const address = runExtraction(documentFromLines(lines), template({ address: { type: 'string' } })).extraction.data.address;
    expect(address).toBe('No: 28, JALAN ASTANA 1C, BANDAR BUKIT RAJA, 41050 KLANG SELANGOR');
  });

  it('marks missing required fields for review with confidence 0', () => {
    const out = runExtraction(documentFromLines(['Nothing useful here']), { id: null, version: null, json_schema: { type: 'object', properties: { po_number: { type: 'string' }, note: { type: 'string' } }, required: ['po_number'] } });
    expect(out.extraction.fields.po_number).toEqual({ value: null, confidence: 0, evidence: [] });
    expect(out.decision.review_reasons).toEqual(['low_confidence:po_number']);
  });
});

describe('runExtraction: line items', () => {
  const schema = template({
    lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'number' }, unit_price: { type: 'number' }, amount: { type: 'number' } } } },
    total: { type: 'number' },
  });
  const rows = [
    ['Description', 'Qty', 'Unit price', 'Amount'],
    ['Widget', '2', '€ 10,00', '€ 20,00'],
    ['continued description', '', '', ''],
    ['Gadget', '1', '€ 5,50', '€ 5,50'],
    ['Total', '', '', '€ 25,50'],
  ];

  it('reads a table whose header names the columns, joining continuation rows and stopping at totals', () => {
    const out = runExtraction(withTable(documentFromLines(['Invoice']), rows), schema);
    expect(out.extraction.data.lines).toEqual([
      { description: 'Widget\ncontinued description', qty: 2, unit_price: 10, amount: 20 },
      { description: 'Gadget', qty: 1, unit_price: 5.5, amount: 5.5 },
    ]);
    expect(out.extraction.fields['lines[1].amount']).toMatchObject({ value: 5.5, evidence: [{ page: 1, text: '€ 5,50' }] });
    expect(out.extraction.data.total).toBe(25.5);
  });

  it('continues the list on a later page whose table repeats no header', () => {
    const doc = documentFromLines(['Invoice', { text: 'Page 2', page: 2 }]);
    withTable(doc, rows.slice(0, 2), 300, 1);
    withTable(doc, [['Gadget', '1', '€ 5,50', '€ 5,50']], 100, 2);
    const out = runExtraction(doc, schema);
    expect((out.extraction.data.lines as unknown[]).length).toBe(2);
    expect(out.extraction.fields['lines[1].description']!.evidence[0]!.page).toBe(2);
  });

  it('reads items from lines when table-aware extraction is off', () => {
    const doc = documentFromLines(['Description Qty Amount', 'Widget 2 20,00', 'Gadget 1 5,50', 'Total 25,50']);
    const out = runExtraction(doc, template({ lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'number' }, amount: { type: 'number' } } } } }), { table_aware_extraction_enabled: false });
    expect(out.extraction.data.lines).toEqual([{ description: 'Widget', qty: 2, amount: 20 }, { description: 'Gadget', qty: 1, amount: 5.5 }]);
  });

  it('reads text-only columns from lines without handing them numbers', () => {
    // A header naming only text columns once made slice(-0) assign every number to no column.
    const doc = documentFromLines(['Description Reference', 'Widget 42 blue', 'Total 42']);
    const out = runExtraction(doc, template({ lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, reference: { type: 'string' } } } } }), { table_aware_extraction_enabled: false });
    expect(out.extraction.data.lines).toEqual([{ description: 'Widget' }]);
  });
});

describe('runExtraction: policy and template settings', () => {
  const lines = ['Invoice Number: A-1', 'Total: EUR 10.00', { text: 'Invoice Number: B-2', page: 9 }, { text: 'Total: EUR 99.00', page: 9 }];
  const schema = template({ invoice_number: { type: 'string' }, total: { type: 'number' } });

  it('merges chunks: field_aware keeps the best-supported value, legacy lets the later chunk win', () => {
    const policy = { prompt_budget_policy: { pages_per_chunk: 1 } };
    expect(runExtraction(documentFromLines(lines), schema, { ...policy, extraction_chunk_merge_strategy: 'field_aware' }).extraction.data.invoice_number).toBe('A-1');
    expect(runExtraction(documentFromLines(lines), schema, { ...policy, extraction_chunk_merge_strategy: 'legacy' }).extraction.data.invoice_number).toBe('B-2');
  });

  it('applies post-processing only when the policy allows it', () => {
    const t = { ...schema, post_processing: { case: 'lower', defaults: { currency: 'EUR' } } };
    const withPp = runExtraction(documentFromLines(lines.slice(0, 2)), { ...t, json_schema: { type: 'object', properties: { ...schema.json_schema.properties, currency: { type: 'string', 'x-aliases': ['Währung'] } } } }, { extraction_postprocessing_enabled: true });
    expect(withPp.extraction.data.invoice_number).toBe('a-1');
    expect(runExtraction(documentFromLines(lines.slice(0, 2)), t, { extraction_postprocessing_enabled: false }).extraction.data.invoice_number).toBe('A-1');
  });

  it('sets nothing through a prototype key, even from a stored template that predates the check', () => {
    const t = { ...schema, post_processing: { defaults: { '__proto__.polluted': 'yes', 'constructor.prototype.polluted': 'yes', invoice_number: 'none' }, fields: { constructor: { case: 'upper' } } } };
    const out = runExtraction(documentFromLines(['Total: EUR 10.00']), t, { extraction_postprocessing_enabled: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(out.extraction.data.invoice_number).toBe('none');
    expect(Object.keys(out.extraction.data)).not.toContain('__proto__');
  });

  it('runs the template rules and review thresholds', () => {
    const t = { ...schema, validation_rules: [{ kind: 'range', field: 'total', params: { max: 5 }, severity: 'warn' }], review_thresholds: { warn_count_threshold: 1 } };
    const out = runExtraction(documentFromLines(lines.slice(0, 2)), t, { review_warn_count_threshold: 5 });
    expect(out.extraction.validation).toEqual([{ rule: 'range:total', field: 'total', severity: 'warn', message: expect.any(String) }]);
    expect(out.decision.review_reasons).toEqual(['warn_count']);
    expect(out.extraction.review_reasons).toEqual(['warn_count']);
  });

  it('passes judge-mode agreement to the decision', () => {
    const out = runExtraction(documentFromLines(lines.slice(0, 2)), schema, {}, { agreement: { total: 0.4 } });
    expect(out.decision.review_reasons).toContain('low_agreement:total');
  });

  it('gates generic entities', () => {
    expect(runExtraction(documentFromLines(lines), schema).entities.length).toBeGreaterThan(0);
    expect(runExtraction(documentFromLines(lines), schema, { generic_entities_enabled: false }).entities).toEqual([]);
  });
});

describe('runExtraction: what confirms a value', () => {
  /** The document with its key-value pairs found by layout, as a job's canonical output has them. */
  const withPairs = (doc: DocInput) => {
    for (const page of doc.pages) page.key_values = findKeyValues(page.blocks.flatMap((b) => b.lines));
    return doc;
  };

  it('reads a header row caption as no value of the caption before it', () => {
    const doc = withTable(documentFromLines(['PAYMENT RECEIPT']), [
      ['Hotel Details', 'Check In', 'Check Out', 'Rooms'],
      ['Sea View Resort', '31/12/2017', '01/01/2018', '1'],
    ]);
    const out = runExtraction(doc, template({ hotel_details: { type: 'string' } }));
    expect(out.extraction.data.hotel_details).not.toBe('Check In');
    expect(out.extraction.fields.hotel_details!.value === null || out.extraction.fields.hotel_details!.value === 'Sea View Resort').toBe(true);
  });

  it('holds a value under a label many values share below the floor, unless the field is named by it', () => {
    const doc = withPairs(documentFromLines(['Invoice INV/2023/03/0008', 'Reference: CUSTREF123', 'Total: $ 279.84']));
    const qualified = runExtraction(doc, template({ payment_reference: { type: 'string' } }));
    expect(qualified.extraction.data.payment_reference).toBe('CUSTREF123');
    expect(qualified.extraction.fields.payment_reference!.confidence).toBeLessThan(0.7);
    expect(qualified.decision.review_reasons).toContain('low_confidence:payment_reference');
    const named = runExtraction(doc, template({ reference: { type: 'string' } }));
    expect(named.extraction.fields.reference!.confidence).toBeGreaterThanOrEqual(0.7);
  });

  /** The box of `text` on the page's line that holds it. */
  const boxOf = (doc: DocInput, text: string): BBox => {
    const line = doc.pages[0]!.blocks.flatMap((b) => b.lines).find((l) => l.text.includes(text))!;
    const words = line.words.filter((w) => text.split(' ').includes(w.text));
    return [Math.min(...words.map((w) => w.bbox[0])), line.bbox[1], Math.max(...words.map((w) => w.bbox[2])), line.bbox[3]];
  };

  it('takes no single value from a caption heading a column of values', () => {
    // Read by OCR: the receipt's own total line is less sure than the caption's pairs.
    const doc = documentFromLines(['RESTORAN SIAM VILLAGE', 'Qty Description Total (RM)', '1 CLAYPOT TOFU 18.90', '2 SPICY THAI TOM 50.00', 'NET TOTAL : 275.90'].map((text) => ({ text, confidence: 0.87 })));
    const caption = boxOf(doc, 'Total (RM)');
    // As layout pairs a grid header with each value under it.
    doc.pages[0]!.key_values = ['18.90', '50.00'].map((value) => ({ key: 'Total (RM)', value, key_bbox: caption, value_bbox: boxOf(doc, value), confidence: 0.8 }));
    const out = runExtraction(doc, template({ total: { type: 'number' } }));
    expect(out.extraction.data.total).toBe(275.9);
    // A caption over one value is that value's label.
    const single = documentFromLines(['Qty Description Total', '1 CLAYPOT TOFU 18.90']);
    single.pages[0]!.key_values = [{ key: 'Total', value: '18.90', key_bbox: boxOf(single, 'Total'), value_bbox: boxOf(single, '18.90'), confidence: 0.8 }];
    expect(runExtraction(single, template({ total: { type: 'number' } })).extraction.data.total).toBe(18.9);
  });

  it('reads no party name from a key that labels a number', () => {
    const doc = documentFromLines(['ADVANCO COMPANY', 'Company Reg. No. : 725186-V', 'NO 1&3, Jalan Wangsa Delima 12.']);
    doc.pages[0]!.key_values = [{ key: 'Company Reg. No.', value: '725186-V Delima 12.', key_bbox: boxOf(doc, 'Company Reg. No.'), value_bbox: boxOf(doc, '725186-V'), confidence: 0.85 }];
    const out = runExtraction(doc, template({ company: { type: 'string' } }));
    expect(out.extraction.data.company).not.toBe('725186-V Delima 12.');
    expect(out.extraction.fields.company!.value === 'ADVANCO COMPANY' || out.extraction.fields.company!.confidence < 0.7).toBe(true);
    // Nor any other free text; a field whose name names a number reads it.
    const description = runExtraction(documentFromLines(['Item No. : 725186-V', 'Item : Claypot tofu']), template({ item: { type: 'string' } }));
    expect(description.extraction.data.item).toBe('Claypot tofu');
    const registration = runExtraction(doc, template({ company_reg_no: { type: 'string' } }));
    expect(registration.extraction.data.company_reg_no).toMatch(/^725186-?V$/);
  });

  it('counts a key-value pair and a label reading of the same words as one piece of evidence', () => {
    const once = withPairs(documentFromLines(['Incoterm: DPU - DELIVERED AT PLACE UNLOADED']));
    const twice = withPairs(documentFromLines(['Incoterm: DPU - DELIVERED AT PLACE UNLOADED', 'Payment terms: 15 days', 'Incoterm: DPU - DELIVERED AT PLACE UNLOADED']));
    const schema = template({ incoterm: { type: 'string' } });
    const a = runExtraction(once, schema).extraction.fields.incoterm!;
    const b = runExtraction(twice, schema).extraction.fields.incoterm!;
    expect(a.value).toBe('DPU - DELIVERED AT PLACE UNLOADED');
    // A long free-text value read once stays below the floor; printed again elsewhere, it is confirmed.
    expect(a.confidence).toBeLessThan(0.7);
    expect(b.confidence).toBeGreaterThan(a.confidence);
  });

  it('reads an IBAN under "Bank Account", holding one that fails the IBAN check below the floor', () => {
    const schema = template({ iban: { type: 'string' } });
    const valid = runExtraction(withPairs(documentFromLines(['Payment terms: 15 Days', 'Bank Account: DE89 3704 0044 0532 0130 00'])), schema).extraction.fields.iban!;
    expect(valid.value).toBe('DE89370400440532013000');
    expect(valid.confidence).toBeGreaterThanOrEqual(0.7);
    const unchecked = runExtraction(withPairs(documentFromLines(['Payment terms: 15 Days', 'Bank Account: US1234567890'])), schema).extraction.fields.iban!;
    expect(unchecked.value).toBe('US1234567890');
    expect(unchecked.confidence).toBeLessThan(0.7);
  });
});
