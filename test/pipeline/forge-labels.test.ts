// The labels the deterministic forge offers for an expected value, on real receipts read through
// the pipeline (their SROIE transcripts as text): payment lines last, and text found before the
// value only as the few words after the last figure.
import { describe, expect, it } from 'vitest';
import { isPaymentLabel } from '../../src/pipeline/extract/receipt-total.js';
import { labelOptions } from '../../src/pipeline/forge/deterministic.js';
import { type CanonicalJson, runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { receiptKey, receiptText } from './sroie.js';

const IDS = ['006', '114', '120', '138'];

async function sample(id: string) {
  const canonical: CanonicalJson = toCanonicalJson(await runCanonical(receiptText(id).bytes));
  return { job_id: id, canonical, expected: receiptKey(id) as unknown as Record<string, unknown> };
}

describe('forge label options', () => {
  it('a payment line that prints the total comes after the total lines', async () => {
    for (const id of IDS) {
      const options = labelOptions('total', [await sample(id)]);
      expect(options.some(isPaymentLabel), `${id}: ${options.join(' | ')}`).toBe(true);
      const firstPayment = options.findIndex(isPaymentLabel);
      expect(options.slice(firstPayment).every(isPaymentLabel), `${id}: ${options.join(' | ')}`).toBe(true);
      expect(options[0], id).toMatch(/^total\b/i);
    }
  });

  it('a field that is itself a payment keeps its payment label first', async () => {
    const s = await sample('138');
    const options = labelOptions('cash', [{ ...s, expected: { cash: receiptKey('138').total } }]);
    expect(isPaymentLabel(options[0]!), options.join(' | ')).toBe(true);
  });

  it('text before a value on a line labels it with a few words, not the run of text before them', async () => {
    for (const id of IDS) {
      for (const field of ['total', 'date', 'company', 'address']) {
        for (const label of labelOptions(field, [await sample(id)])) expect(label.split(/\s+/).length, `${id} ${field}: ${label}`).toBeLessThanOrEqual(6);
      }
    }
  });
});

describe('forge label options on crafted text', () => {
  it('reads a label with a long run of separators inside it in time linear in its length', () => {
    // The trailing-currency and trailing-separator regexes retried the run from each of its
    // characters: 100,000 colons took over a minute in each of the three.
    const run = ':'.repeat(100_000);
    const canonical = { text: `TOTAL ${run}x 12.30\n`, markdown: '', pages: [{ key_values: [{ key: `AMOUNT ${run}y`, value: '12.30' }] }] };
    const options = labelOptions('total', [{ job_id: 'separator-run', canonical: canonical as unknown as CanonicalJson, expected: { total: '12.30' } }]);
    // The label the layout paired with the value first.
    expect(options.map((o) => o.replace(run, '<run>'))).toEqual(['AMOUNT <run>y', 'TOTAL <run>x']);
  });

  it('takes a long row of currencies off a label in time linear in its length', () => {
    // Each currency taken off ran the strip again over the whole label: 3,000 took 0.25 s, 60,000 over a minute.
    const currencies = 'RM '.repeat(60_000);
    const canonical = { text: `GRAND TOTAL : ${currencies}12.30\n`, markdown: '', pages: [{ key_values: [] }] };
    const options = labelOptions('total', [{ job_id: 'currency-row', canonical: canonical as unknown as CanonicalJson, expected: { total: '12.30' } }]);
    expect(options).toEqual(['GRAND TOTAL']);
  });
});
