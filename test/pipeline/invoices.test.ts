// Text recovered from real vendor invoices: the invoice number and the amount that invoice2data's
// maintainers validated (compare/*.json) must be in the canonical text, and labelled fields show
// up as key-value pairs.
import { describe, expect, it } from 'vitest';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { listData, readData, readDataJson } from './data.js';

interface Expected {
  invoice_number: string | number;
  amount?: number;
  date?: string;
}

/** 4904.94 as it may be printed: 4904.94, 4,904.94, 4.904,94, 4 904,94 ... */
function amountForms(n: number): string[] {
  const [int, dec] = n.toFixed(2).split('.');
  const grouped = (sep: string) => int.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const forms = new Set<string>();
  for (const sep of ['', ',', '.', ' ']) for (const point of ['.', ',']) if (sep !== point) forms.add(`${grouped(sep)}${point}${dec}`.replace(/\s/g, ''));
  if (dec === '00') for (const sep of ['', ',', '.']) forms.add(grouped(sep)); // "Rs 1939"
  return [...forms];
}

const cases = listData('invoice2data/compare')
  .filter((f) => f.endsWith('.json'))
  .map((json) => {
    const base = json.replace(/\.json$/, '');
    const file = listData('invoice2data/compare').find((f) => f === `${base}.pdf`) ?? `${base}.txt`;
    const raw = readDataJson<Expected | Expected[]>(`invoice2data/compare/${json}`);
    return { file, expected: Array.isArray(raw) ? raw[0] : raw };
  });

describe('invoice2data: text recovered', () => {
  it('covers the whole compare set (11 PDFs with expected values and one text invoice)', () => {
    expect(cases.filter((c) => c.file.endsWith('.pdf'))).toHaveLength(11);
    expect(cases.filter((c) => c.file.endsWith('.txt'))).toHaveLength(1);
  });

  it.each(cases)('$file carries its invoice number and amount', async ({ file, expected }) => {
    const doc = await runCanonical(readData(`invoice2data/compare/${file}`));
    const text = doc.text.replace(/\s+/g, '');
    expect(text).toContain(String(expected.invoice_number).replace(/\s+/g, ''));
    if (expected.amount !== undefined) expect(amountForms(expected.amount).some((f) => text.includes(f))).toBe(true);
    expect(doc.pages.every((p) => p.source === 'text_layer' || p.source === 'plain_text')).toBe(true);
  });

  it('reads the letters of a ligature glyph as one word ("Office", "Thuiskopieheffing" with ffi, coolblue2)', async () => {
    const doc = await runCanonical(readData('invoice2data/compare/coolblue2.pdf'));
    expect(doc.text).toContain('Microsoft Office Mac');
    expect(doc.text).toContain('Thuiskopieheffing:');
    expect(doc.text).not.toMatch(/Of ice|Off ice|hef ing|heff ing/);
  });

  it('finds labelled fields as key-value pairs with boxes on the page', async () => {
    const doc = await runCanonical(readData('invoice2data/compare/AmazonWebServices.pdf'));
    const kvs = doc.pages.flatMap((p) => p.key_values);
    const invoice = kvs.find((kv) => /invoice number/i.test(kv.key));
    expect(invoice?.value).toContain('42183017');
    const page = doc.pages[0];
    for (const kv of kvs) {
      // A value follows its key: to its right, or below it (then starting about where it starts).
      const right = kv.value_bbox[0] >= kv.key_bbox[0];
      const below = kv.value_bbox[1] >= kv.key_bbox[3] - 1 && kv.value_bbox[0] >= kv.key_bbox[0] - 3 * (kv.key_bbox[3] - kv.key_bbox[1]);
      expect(right || below, `${kv.key} => ${kv.value}`).toBe(true);
      expect(kv.key_bbox[3]).toBeLessThanOrEqual(page.height);
    }
  });
});

/** The fields an invoice template has, extracted from a real invoice. */
async function extract(file: string, properties: Record<string, unknown>) {
  const canonical = toCanonicalJson(await runCanonical(readData(`invoice2data/compare/${file}`)));
  return runExtraction(canonical, { id: null, version: null, json_schema: { type: 'object', properties } });
}

describe('invoice2data: fields extracted', () => {
  it('takes the invoice date, not the order date printed above it (FlipkartInvoice)', async () => {
    const out = await extract('FlipkartInvoice.pdf', { date: { type: 'string', format: 'date' } });
    expect(out.extraction.data.date).toBe('2015-10-20');
  });

  it('reads a Polish invoice by its own labels ("Faktura nr", "Data wystawienia"), the number with its prefix held for review (Orlen)', async () => {
    const out = await extract('Orlen.txt', { invoice_number: { type: 'string' }, date: { type: 'string', format: 'date' } });
    expect(out.extraction.data.date).toBe('2021-01-01');
    expect(out.extraction.fields.date!.confidence).toBeGreaterThanOrEqual(0.9);
    expect(out.extraction.data.invoice_number).toBe('F 1234K20/1234/12');
    expect(out.extraction.fields.invoice_number!.confidence).toBeLessThan(0.7);
  });

  it('reads a numeric "vat" that no tax amount fills as the issuer\'s NIP, below the review floor (Orlen)', async () => {
    const out = await extract('Orlen.txt', { vat: { type: 'number' } });
    expect(out.extraction.data.vat).toBe(7740001454);
    expect(out.extraction.fields.vat!.confidence).toBeLessThan(0.7);
    // Where a tax amount is printed, "vat" stays the amount.
    const amount = runExtraction(documentFromLines(['ACME Ltd', 'NIP: 774-00-01-454', 'Subtotal: 100.00', 'VAT: 23.00', 'Total: 123.00']), { id: null, version: null, json_schema: { type: 'object', properties: { vat: { type: 'number' } } } });
    expect(amount.extraction.data.vat).toBe(23);
  });

  it('is sure of the currency printed with the total, and not of one printed once elsewhere (invoice2data custom/basic, FlipkartInvoice)', async () => {
    const canonical = toCanonicalJson(await runCanonical(readData('invoice2data/custom/basic.txt')));
    const basic = runExtraction(canonical, { id: null, version: null, json_schema: { type: 'object', properties: { currency: { type: 'string' } } } }).extraction.fields.currency!;
    expect(basic.value).toBe('EUR');
    expect(basic.confidence).toBeGreaterThanOrEqual(0.7);
    // "Promotional Discount of Rs -40.00" is the only amount with its currency: held for review.
    const flipkart = (await extract('FlipkartInvoice.pdf', { currency: { type: 'string' } })).extraction.fields.currency!;
    expect(flipkart.value).toBe('INR');
    expect(flipkart.confidence).toBeLessThan(0.7);
  });

  it('takes the booking id of a payment receipt that prints no invoice number, below the review floor (oyo)', async () => {
    const out = await extract('oyo.pdf', { invoice_number: { type: 'string' } });
    expect(out.extraction.data.invoice_number).toBe('IBZY2087');
    expect(out.extraction.fields.invoice_number!.confidence).toBeLessThan(0.7);
  });
});
