// Forge scoring against expected outputs written as the documents print them: SROIE's key files
// give the date and total as printed ("13/03/2018", "100.90"), the extractor gives an ISO date
// and a number. They are the same values, and the forge must count them as agreeing.
import { describe, expect, it } from 'vitest';
import { amountOf, evaluate, sameValue } from '../../src/pipeline/forge/score.js';
import type { CanonicalJson } from '../../src/pipeline/index.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { RECEIPT_SCHEMA, receiptDocument, receiptKey } from './sroie.js';

const IDS = ['000', '006', '012', '048', '054', '078'];

describe('forge agreement with expected outputs as printed', () => {
  it('an extracted ISO date and number agree with the printed date and amount of the same value', () => {
    for (const id of IDS) {
      const key = receiptKey(id);
      const data = runExtraction(receiptDocument(id), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction.data;
      expect(typeof data.total, id).toBe('number');
      expect(data.date, id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(sameValue(key.total, data.total), `${id}: ${key.total} vs ${data.total}`).toBe(true);
      expect(sameValue(key.date, data.date), `${id}: ${key.date} vs ${data.date}`).toBe(true);
    }
  });

  it('other values still disagree', () => {
    expect(sameValue('100.90', 100.8)).toBe(false);
    expect(sameValue('13/03/2018', '2018-03-14')).toBe(false);
    expect(sameValue('Table 4, 100.90', 100.9)).toBe(false);
    expect(sameValue('13/03/2018 and 14/03/2018', '2018-03-13')).toBe(false);
    expect(sameValue('', null)).toBe(true);
    expect(sameValue('9.00', null)).toBe(false);
  });

  it('a candidate that extracts the right values scores full agreement on them', () => {
    const samples = IDS.map((id) => {
      const { date, total } = receiptKey(id);
      return { job_id: id, canonical: receiptDocument(id) as unknown as CanonicalJson, expected: { date, total } };
    });
    const scored = evaluate({ json_schema: RECEIPT_SCHEMA, validation_rules: [], prompt_overlay: '' }, samples);
    expect(scored.disagreements).toEqual([]);
    expect(scored.scores.expected_agreement).toBe(1);
  });
});

describe('amounts as printed, on crafted text', () => {
  it('reads a text of spaces around digits and a minus in time linear in its length', () => {
    // Four \s* around the optional currencies split the spaces in polynomially many ways (degree
    // four): 250 spaces, a digit, 500 spaces and "-0" took over a minute.
    expect(amountOf('\t'.repeat(250) + '0' + '\t'.repeat(500) + '-0')).toBeNull();
    expect(amountOf(' RM 1,234.50 ')).toBe(1234.5);
    expect(amountOf('1 234.50 EUR')).toBe(1234.5);
  });
});
