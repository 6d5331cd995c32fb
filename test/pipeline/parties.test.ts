// Issuer versus recipient: the name under "Factuuradres" (bill-to) is the customer's and never
// the vendor; the name the document's own website and e-mail spell is the issuer's.
import { describe, expect, it } from 'vitest';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { readData } from './data.js';

const VENDOR = { type: 'object', properties: { vendor: { type: 'string' } } };
const template = { id: null, version: null, json_schema: VENDOR };

async function vendorOf(file: string) {
  const canonical = toCanonicalJson(await runCanonical(readData(`invoice2data/compare/${file}`)));
  return runExtraction(canonical, template).extraction.data.vendor;
}

describe('issuer and recipient blocks', () => {
  it('takes the issuer whose website and e-mail domain its name spells (AzureInterior)', async () => {
    expect(await vendorOf('AzureInterior.pdf')).toBe('Azure Interior');
  });

  it('never returns the bill-to party as the vendor (saeco: "Strategic Corp" under Factuuradres)', async () => {
    expect(await vendorOf('saeco.pdf')).not.toBe('Strategic Corp');
  });

  it('reads the legal name on the row of its legal form when layout merged two rows (coolblue: "Coolblue B.V." over "Weena 664")', async () => {
    expect(await vendorOf('coolblue1.pdf')).toBe('Coolblue B.V.');
    expect(await vendorOf('coolblue2.pdf')).toBe('Coolblue B.V.');
  });

  it('reads the account holder announced with ":" inside a payment-terms table cell (NetpresseInvoice: "Titulaire du compte : NETPRESSE")', async () => {
    expect(await vendorOf('NetpresseInvoice.pdf')).toBe('NETPRESSE');
  });

  it('is sure of an issuer the document confirms: on its registration line, spelled by its own domain (free_fiber: "Free SAS au capital …", free.fr)', async () => {
    const canonical = toCanonicalJson(await runCanonical(readData('invoice2data/compare/free_fiber.pdf')));
    const vendor = runExtraction(canonical, template).extraction.fields.vendor!;
    expect(vendor.value).toBe('Free SAS');
    expect(vendor.confidence).toBeGreaterThanOrEqual(0.7);
  });

  it('stays unsure of a name nothing else on the document confirms', () => {
    const doc = documentFromLines(['Invoice 17', 'Consulting for March by Acme Widgets Ltd', 'Bill to:', 'Jane Customer', 'Total 120.00']);
    const vendor = runExtraction(doc, template).extraction.fields.vendor!;
    expect(vendor.value).toBe('Acme Widgets Ltd');
    expect(vendor.confidence).toBeLessThan(0.7);
  });

  it('reads a heading name without the e-mail address layout ran into it or the title after it (SammyMaystoneLinesTest)', async () => {
    const vendor = await vendorOf('SammyMaystoneLinesTest.pdf');
    expect(vendor).toBe('Sammy Maystone');
  });

  it('reads the vendor from an "Account holder" label', () => {
    const doc = documentFromLines(['INVOICE 2024-17', 'Bill to:', 'Jane Customer Ltd', 'Payment by transfer', 'Account holder: Northwind Traders', 'IBAN: DE89 3704 0044 0532 0130 00']);
    expect(runExtraction(doc, template).extraction.data.vendor).toBe('Northwind Traders');
  });
  it('names the brand that the own domain of the document spells over a legal name that does not carry it (FlipkartInvoice: "Sold By : WS Retail Services", flipkart.com; oyo: oyorooms.com)', async () => {
    expect(await vendorOf('FlipkartInvoice.pdf')).toBe('Flipkart');
    expect(await vendorOf('oyo.pdf')).toBe('OYO');
  });

  it('takes a brand only when its domain spells it and it is printed twice, and keeps a legal name that carries it', () => {
    const lines = ['TAX INVOICE', 'Sold By: Northwind Retail Pvt. Ltd.', 'Ordered through Shopwise.com', 'Questions? Shopwise support: help@shopwise.com', 'Total 120.00', 'Bill to:', 'Jane Customer'];
    expect(runExtraction(documentFromLines(lines), template).extraction.fields.vendor).toMatchObject({ value: 'Shopwise', confidence: 0.75 });
    // Printed once: the legal name stays.
    const once = ['TAX INVOICE', 'Sold By: Northwind Retail Pvt. Ltd.', 'Ordered through Shopwise.com', 'Questions? help@shopwise.com', 'Total 120.00'];
    expect(runExtraction(documentFromLines(once), template).extraction.data.vendor).toBe('Northwind Retail Pvt. Ltd.');
    // The customer's own domain, in its block, is no brand of the issuer.
    const customers = ['TAX INVOICE', 'Sold By: Northwind Retail Pvt. Ltd.', 'Total 120.00', 'Bill to:', 'Shopwise buyer desk', 'buyer@shopwise.com', 'Shopwise Hall 4'];
    expect(runExtraction(documentFromLines(customers), template).extraction.data.vendor).toBe('Northwind Retail Pvt. Ltd.');
    // A legal name that carries the brand stays.
    const carried = ['TAX INVOICE', 'Sold By: Shopwise Retail Pvt. Ltd.', 'Total 120.00', 'Ordered through Shopwise.com', 'Shopwise support: help@shopwise.com'];
    expect(runExtraction(documentFromLines(carried), template).extraction.data.vendor).toBe('Shopwise Retail Pvt. Ltd.');
  });
});
