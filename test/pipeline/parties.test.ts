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

  it('reads the vendor from an "Account holder" label', () => {
    const doc = documentFromLines(['INVOICE 2024-17', 'Bill to:', 'Jane Customer Ltd', 'Payment by transfer', 'Account holder: Northwind Traders', 'IBAN: DE89 3704 0044 0532 0130 00']);
    expect(runExtraction(doc, template).extraction.data.vendor).toBe('Northwind Traders');
  });
});
