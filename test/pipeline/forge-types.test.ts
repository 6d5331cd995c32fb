// The type the deterministic forge gives a field of the expected outputs: what every non-empty
// expected value is, whether the user wrote it as JSON or as the document prints it. SROIE's key
// files write every total and date as text ("55.10", "$8.20", "12-03-18", "05 MAR 2018").
import { describe, expect, it } from 'vitest';
import { typeOfExpected } from '../../src/pipeline/forge/deterministic.js';
import { sameValue } from '../../src/pipeline/forge/score.js';
import { listData } from './data.js';
import { receiptKey } from './sroie.js';

const keys = listData('sroie/key').map((f) => receiptKey(f.replace(/\.json$/, '')));

describe('forge field types from expected values', () => {
  it('amounts and dates written as text are a number and a date on all SROIE receipts', () => {
    expect(keys.length).toBeGreaterThan(50);
    expect(keys.every((k) => typeof k.total === 'string' && typeof k.date === 'string')).toBe(true);
    expect(typeOfExpected('total', keys.map((k) => k.total))).toEqual({ type: 'number' });
    expect(typeOfExpected('date', keys.map((k) => k.date))).toEqual({ type: 'string', format: 'date' });
    expect(typeOfExpected('company', keys.map((k) => k.company))).toEqual({ type: 'string' });
    expect(typeOfExpected('address', keys.map((k) => k.address))).toEqual({ type: 'string' });
  });

  it('takes every value into account, empty ones left out', () => {
    expect(typeOfExpected('paid', ['55.10', 'RM 1,234.50', null, '', undefined])).toEqual({ type: 'number' });
    expect(typeOfExpected('paid', ['55.10', 'see attached'])).toEqual({ type: 'string' });
    expect(typeOfExpected('issued', ['2018-03-12', '12/03/2018', '05 MAR 2018'])).toEqual({ type: 'string', format: 'date' });
    expect(typeOfExpected('issued', ['2018-03-12', '5/3/2018 22:52:33'])).toEqual({ type: 'string' });
    expect(typeOfExpected('anything', [null, ''])).toEqual({ type: 'string' });
  });

  it('whole numbers are integers, JSON numbers stay numbers, identifiers stay text', () => {
    expect(typeOfExpected('quantity', ['3', '12'])).toEqual({ type: 'integer' });
    expect(typeOfExpected('quantity', ['3', '12.5'])).toEqual({ type: 'number' });
    expect(typeOfExpected('total', [55, 8.2])).toEqual({ type: 'number' });
    expect(typeOfExpected('total', [55, '8.20'])).toEqual({ type: 'number' });
    expect(typeOfExpected('invoice_number', ['1234', '5678'])).toEqual({ type: 'string' });
    expect(typeOfExpected('receipt_no', ['1234', '5678'])).toEqual({ type: 'string' });
    expect(typeOfExpected('branch', ['0042', '0107'])).toEqual({ type: 'string' });
    expect(typeOfExpected('phone', ['03-7865 1234'])).toEqual({ type: 'string' });
  });
});

describe('forge agreement of typed values', () => {
  it('an amount or a date written as printed agrees with the typed value extracted', () => {
    expect(sameValue('55.10', 55.1)).toBe(true);
    expect(sameValue('RM 1,234.50', 1234.5)).toBe(true);
    expect(sameValue('3', 3)).toBe(true);
    expect(sameValue('12-03-18', '2018-03-12')).toBe(true);
  });

  it('an ambiguous printed date agrees with either reading: the extractor reads the document in its own order', () => {
    // A month-first document: "03/12/2018" is 12 March there.
    expect(sameValue('03/12/2018', '2018-03-12')).toBe(true);
    expect(sameValue('03/12/2018', '2018-12-03')).toBe(true);
    expect(sameValue('03/12/2018', '2018-12-04')).toBe(false);
    // Unambiguous dates have one reading only.
    expect(sameValue('13/03/2018', '2018-03-13')).toBe(true);
    expect(sameValue('13/03/2018', '2018-13-03')).toBe(false);
  });
});
