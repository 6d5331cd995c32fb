import { describe, expect, it } from 'vitest';
import { runCanonical, toCanonicalJson } from '../index.js';
import { runJudgedExtraction } from './judge.js';

const doc = async (text: string) => toCanonicalJson(await runCanonical(new TextEncoder().encode(text)));
const template = {
  id: 'tpl_judge',
  version: 1,
  json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } },
};

describe('runJudgedExtraction', () => {
  it('agrees where both readings give the same values and passes', async () => {
    const a = await doc('Invoice number: INV-2041\nTotal: 1,250.00 EUR\n');
    const out = runJudgedExtraction(a, a, template, {});
    expect(out.judge.agreement).toEqual({ invoice_number: 1, total: 1 });
    expect(out.judge.disagreements).toEqual({});
    expect(out.decision.review_reasons.filter((r) => r.startsWith('low_agreement'))).toEqual([]);
  });

  it('flags a field the second reading disagrees on, keeping the primary value', async () => {
    const primary = await doc('Invoice number: INV-2041\nTotal: 1,250.00 EUR\n');
    const second = await doc('Invoice number: INV-2041\nTotal: 1,230.00 EUR\n');
    const out = runJudgedExtraction(primary, second, template, { review_agreement_floor: 0.8 });
    expect(out.extraction.data.total).toBe(1250);
    expect(out.judge.disagreements).toEqual({ total: { value: 1250, judge_value: 1230, agreement: 0 } });
    expect(out.decision.status).toBe('needs_review');
    expect(out.decision.review_reasons).toContain('low_agreement:total');
  });

  it('scores near-identical strings by similarity against the floor', async () => {
    const primary = await doc('Invoice number: INV-2041\nTotal: 10.00\n');
    const second = await doc('Invoice number: INV-2O41\nTotal: 10.00\n');
    const lenient = runJudgedExtraction(primary, second, template, { review_agreement_floor: 0.8 });
    expect(lenient.judge.agreement.invoice_number).toBeCloseTo(0.875, 3);
    expect(lenient.decision.review_reasons).not.toContain('low_agreement:invoice_number');
    const strict = runJudgedExtraction(primary, second, template, { review_agreement_floor: 0.95 });
    expect(strict.decision.review_reasons).toContain('low_agreement:invoice_number');
  });
});
