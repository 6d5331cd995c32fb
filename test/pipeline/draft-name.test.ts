// The name a proposed draft gets, on real documents read through the pipeline: SROIE receipts
// (their transcripts as text), invoice2data invoices and a FUNSD form (its transcript as text).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { funsdSamples } from '../../bench/ocr-data.js';
import { fingerprintOfDocument } from '../../src/pipeline/classify/index.js';
import { documentKind } from '../../src/pipeline/classify/draft-name.js';
import { proposeDraft } from '../../src/pipeline/classify/draft-schema.js';
import { runEntities } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { dataPath } from './data.js';
import { receiptText } from './sroie.js';

async function nameOf(bytes: Uint8Array) {
  const canonical = toCanonicalJson(await runCanonical(bytes));
  const title = fingerprintOfDocument({ canonical, format: null }).title;
  return proposeDraft(canonical, runEntities(canonical, { generic_entities_enabled: true }), title);
}

const TEMPLATE_NAME = /^[a-z0-9][a-z0-9_-]*$/;

describe('draft names', () => {
  it('a receipt is named "receipt-" and the shop, without its registration number, address or legal form', async () => {
    const cases: [string, string][] = [
      // "TAN CHAY YEE" (the owner) above "SOON HUAT MACHINERY ENTERPRISE" (the shop, SROIE's company)
      ['006', 'receipt-soon_huat_machinery_enterprise'],
      // "SYARIKAT PERNIAGAAN GIN KEE (81109-A) NO 290, JALAN AIR PANAS, …"
      ['114', 'receipt-syarikat_perniagaan_gin_kee'],
      // "HOME MASTER HARDWARE & ELECTRICAL NO.113G & 115G, …"
      ['012', 'receipt-home_master_hardware_electrical'],
      // "TAX INVOICE" over "BHPETROL SUBANG AIRPORT": a title of kind words names the line after it
      ['180', 'receipt-bhpetrol_subang_airport'],
    ];
    for (const [id, name] of cases) {
      const draft = await nameOf(receiptText(id).bytes);
      expect(draft.name, id).toBe(name);
      expect(draft.description, id).toMatch(/^Receipts like "/);
    }
  });

  it('an invoice is named "invoice-" and its issuer, not a slogan or a row of labels printed first', async () => {
    const cases: [string, string][] = [
      ['coolblue1.pdf', 'invoice-coolblue_weena'], // first line "Dat betaal ik zelf wel."
      ['saeco.pdf', 'invoice-strategic'], // first line "Factuuradres Afleveradres"
      ['oyo.pdf', 'invoice-oravel_stays'], // issuer "Oravel Stays Pvt. Ltd."
      ['Orlen.txt', 'invoice-polski_koncern_naftowy_orlen'], // first line "Faktura nr: F 1234K20/1234/12"
      ['AzureInterior.pdf', 'invoice'], // "Invoice INV/2023/03/0008" names no sender
    ];
    for (const [file, name] of cases) expect((await nameOf(readFileSync(dataPath(`invoice2data/compare/${file}`)))).name, file).toBe(name);
  });

  it('a form says so in its title', async () => {
    const form = funsdSamples().find((s) => s.id === '82491256')!; // "CASE FORM CASE NAME: Wanda G. Robinson …"
    expect((await nameOf(Buffer.from(form.truth))).name).toBe('form-case');
  });

  it('every name is a template name of at most 46 characters, the same for the same document', async () => {
    for (const id of ['000', '006', '012', '048', '054', '078', '114', '120', '138']) {
      const first = (await nameOf(receiptText(id).bytes)).name;
      expect(first, id).toMatch(TEMPLATE_NAME);
      expect(first.length, first).toBeLessThanOrEqual(46);
      expect((await nameOf(receiptText(id).bytes)).name).toBe(first);
    }
  });
});

describe('document kind on crafted text', () => {
  it('reads a payment word followed by a long run of spaces in time linear in its length', () => {
    // Three \s* in a row split the run cubically many ways: 4,000 spaces took over a minute.
    const text = 'Shop\ncash' + ' '.repeat(4000) + '\nCASH 100.00\n';
    expect(documentKind({ text, markdown: text, pages: [] }, null)).toBe('receipt');
    const noAmount = 'Shop\nchange' + ' '.repeat(4000) + '\nthank you\n';
    expect(documentKind({ text: noAmount, markdown: noAmount, pages: [] }, null)).toBeNull();
  });
});
