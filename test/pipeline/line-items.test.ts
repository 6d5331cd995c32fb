// Line items of real invoices (invoice2data) read under their header row: unruled tables that
// layout cut into pieces, multi-line descriptions, section subtotals between items, and totals or
// tax-summary rows never taken for items.
import { describe, expect, it } from 'vitest';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { templateSchemaFor } from '../../bench/lib/invoice-template.js';
import { buildPdf } from '../helpers/mixed-pdf.js';
import { readData, readDataJson } from './data.js';

type Json = Record<string, unknown>;

async function linesOf(name: string) {
  const expected = readDataJson<Json[]>(`invoice2data/compare/${name}.json`)[0]!;
  const canonical = toCanonicalJson(await runCanonical(readData(`invoice2data/compare/${name}.pdf`)));
  const out = runExtraction(canonical, { id: null, version: null, json_schema: templateSchemaFor(expected) });
  return { got: (out.extraction.data.lines ?? []) as Json[], expected: expected.lines as Json[] };
}

describe('line items under a header row', () => {
  it('reads every priced item of coolblue2, not one merged row, and leaves bundle parts without a price out', async () => {
    const { got, expected } = await linesOf('coolblue2');
    const priced = expected.filter((l) => typeof l.price_subtotal === 'number').map((l) => l.price_subtotal);
    expect(got.map((l) => l.price_subtotal)).toEqual(expect.arrayContaining(priced));
    expect(got.every((l) => typeof l.price_subtotal === 'number')).toBe(true);
    expect(got.find((l) => l.price_subtotal === 199.98)).toMatchObject({ qty: 2, price_unit: 99.99, line_tax_percent: 21 });
  });

  it('goes on past a section subtotal, joins a description over two lines and takes a bracketed code apart (AzureInterior)', async () => {
    const got = (await linesOf('AzureInterior')).got.filter((l) => l.price_subtotal !== undefined);
    expect(got.map((l) => l.price_subtotal)).toEqual([42, 70, 0.9, 150]);
    expect(got[0]).toMatchObject({ code: '17589684', name: 'Beeswax XL\nAcme beeswax', qty: 1, price_unit: 42 });
    expect(got[3]).toMatchObject({ code: 'LUX_TRF', name: 'Luxury Truffles', qty: 15 });
  });

  it('keeps a detail under an item ("Serienummer: …") out of its name, in the note column (coolblue2)', async () => {
    const { got } = await linesOf('coolblue2');
    const msi = got.find((l) => l.price_subtotal === 1999);
    expect(msi).toMatchObject({ name: 'MSI GS60 2QE-226NL Ghost Pro', line_note: 'Serienummer: GS60 2QE-226NLK141900003666' });
  });

  it('joins no section heading to the item above but lists it in the section column, and moves a barcode printed between asterisks to its column (AzureInterior)', async () => {
    const { got } = await linesOf('AzureInterior');
    expect(got.map((l) => l.sectionheader).filter(Boolean)).toEqual(['--- Non Food ---', '--- Food Products ---']);
    const priced = got.filter((l) => l.price_subtotal !== undefined);
    expect(priced[1]).toMatchObject({ name: 'Office Chair' });
    expect(priced[2]).toMatchObject({ barcode: '987123' });
    expect(String(priced[2]!.name)).toMatch(/^Olive Oil/);
  });

  it('reads the discount and tax columns ("Disc.%", "Taxes") and the unit printed after the quantity ("1.00 kg") (AzureInterior)', async () => {
    const got = (await linesOf('AzureInterior')).got.filter((l) => l.price_subtotal !== undefined);
    expect(got.map((l) => [l.discount, l.line_tax_percent, l.uom])).toEqual([
      [0, 15, 'kg'],
      [0, 15, 'Units'],
      [10, 15, 'L'],
      [0, undefined, 'g'],
    ]);
  });

  it('moves the article number that leads every description to the code column (saeco)', async () => {
    const { got } = await linesOf('saeco');
    expect(got.map((l) => [l.code, l.name])).toEqual([
      ['E103184', 'Onderhoudsset CA6707/10'],
      ['E103560', 'SX Flyer SAECO Korting KVDNL'],
    ]);
  });

  it('stops at the invoice total and does not read the tax summary below as items (saeco)', async () => {
    const { got } = await linesOf('saeco');
    expect(got).toHaveLength(2);
    expect(got.map((l) => l.price_subtotal)).toEqual([49.99, 0]);
    expect(got[0]).toMatchObject({ qty: 1, price_unit: 49.99, taxpercent: 21 });
  });
});

describe('running totals where an item list breaks across pages', () => {
  const SCHEMA = { type: 'object', properties: { total: { type: 'number' }, lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'number' }, unit_price: { type: 'number' }, amount: { type: 'number' } } } } } };

  /** A 6-page invoice, 3 items a page, each page ending on `carried` and the next starting with `brought`. */
  async function pagedInvoice(carried: string, brought: string) {
    const pages = [];
    let n = 0;
    let sum = 0;
    for (let p = 1; p <= 6; p++) {
      const text = [p === 1 ? 'ACME Ltd\t\tInvoice INV-77' : 'ACME Ltd', '', 'Description\tQty\tUnit price\tAmount'];
      if (p > 1) text.push(`${brought}\t\t\t${sum.toFixed(2)}`);
      for (let i = 0; i < 3; i++, n++, sum += 10) text.push(`Service item ${n + 1}\t1\t10.00\t10.00`);
      text.push(p < 6 ? `${carried}\t\t\t${sum.toFixed(2)}` : `Total\t\t\t${sum.toFixed(2)}`);
      pages.push({ text, columns: [72, 300, 360, 460] });
    }
    const doc = toCanonicalJson(await runCanonical(await buildPdf(pages)));
    return runExtraction(doc, { id: null, version: null, json_schema: SCHEMA });
  }

  it.each([
    ['Carried forward', 'Brought forward'],
    ['Total carried forward', 'B/F'],
    ['c/f', 'Balance brought forward'],
    ['Uebertrag', 'Uebertrag'],
  ])('reads 18 items, none of them "%s" or "%s", and the final total (PDF)', async (carried, brought) => {
    const out = await pagedInvoice(carried, brought);
    const lines = out.extraction.data.lines as Json[];
    expect(lines.map((l) => l.description)).toEqual(Array.from({ length: 18 }, (_, i) => `Service item ${i + 1}`));
    expect(lines.every((l) => l.amount === 10)).toBe(true);
    expect(out.extraction.data.total).toBe(180);
  });

  it('skips them in lines read as text, in any of the languages ("Übertrag", "À reporter", "Suma y sigue")', () => {
    for (const [carried, brought] of [['Übertrag', 'Übertrag'], ['À reporter', 'Report'], ['Suma y sigue', 'Suma anterior'], ['C/F', 'B/F']]) {
      const doc = documentFromLines(['ACME GmbH', 'Description Qty Amount', `${brought} 100.00`, 'Widget 1 10.00', 'Gadget 1 20.00', `${carried} 130.00`, 'Sprocket 1 5.00', 'Total 135.00']);
      const out = runExtraction(doc, { id: null, version: null, json_schema: SCHEMA }, { table_aware_extraction_enabled: false });
      expect((out.extraction.data.lines as Json[]).map((l) => l.description), carried).toEqual(['Widget', 'Gadget', 'Sprocket']);
    }
  });
});
