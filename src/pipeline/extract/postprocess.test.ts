import { describe, expect, it } from 'vitest';
import { formatDate, postProcess, readFormattedDate } from './postprocess.js';

const isDate = (p: string) => p === 'date' || p === 'lines[].shipped';

describe('post-processing', () => {
  it('collapses whitespace by default and leaves other values alone', () => {
    expect(postProcess({ name: '  ACME   Supplies \n GmbH ', total: 10 }, null, isDate)).toEqual({ name: 'ACME Supplies\nGmbH', total: 10 });
  });

  it('changes case, template-wide and per field', () => {
    expect(postProcess({ a: 'mixed Case', b: 'other one' }, { case: 'upper', fields: { b: { case: 'title' } } }, isDate)).toEqual({ a: 'MIXED CASE', b: 'Other One' });
  });

  it('formats dates and rounds numbers', () => {
    expect(formatDate('2024-03-05', 'DD.MM.YYYY')).toBe('05.03.2024');
    expect(formatDate('2024-03-05', 'M/D/YY')).toBe('3/5/24');
    expect(postProcess({ date: '2024-03-05', total: 10.256, lines: [{ shipped: '2024-01-02' }] }, { date_format: 'DD.MM.YYYY', number_decimals: 2 }, isDate)).toEqual({
      date: '05.03.2024',
      total: 10.26,
      lines: [{ shipped: '02.01.2024' }],
    });
  });

  it('reads a date back in its format, in one pass whatever the format', () => {
    expect(readFormattedDate('03/05/2024', 'MM/DD/YYYY')).toBe('2024-03-05');
    expect(readFormattedDate(' 5.3.24 ', 'D.M.YY')).toBe('2024-03-05');
    expect(readFormattedDate('1532024', 'DMYYYY')).toBe('2024-03-15');
    expect(readFormattedDate('03/05/2024 x', 'MM/DD/YYYY')).toBeNull();
    expect(readFormattedDate('13/05/2024', 'MM/DD/YYYY')).toBeNull();
    expect(readFormattedDate(`2024${'1'.repeat(56)}`, `YYYY${'DM'.repeat(14)}`)).toBe('2024-11-11');
    // 32 adjacent one-or-two-digit tokens (the longest format): a backtracking engine tries all 2^32 splits of these digits.
    expect(readFormattedDate(`${'1'.repeat(64)}x`, 'DM'.repeat(16))).toBeNull();
  });

  it('applies value maps, defaults and drop_empty', () => {
    const out = postProcess(
      { currency: '€', status: '', lines: [{ unit: 'Stk' }, { unit: 'pcs', note: '' }], tags: [] },
      { value_maps: { currency: { '€': 'EUR' }, 'lines[].unit': { stk: 'PCS' } }, defaults: { country: 'DE', 'lines[].qty': 1 }, drop_empty: true },
      isDate,
    );
    expect(out).toEqual({ currency: 'EUR', country: 'DE', lines: [{ unit: 'PCS', qty: 1 }, { unit: 'pcs', qty: 1 }] });
  });

  it('reports what changed and what was defaulted', () => {
    const seen: [string, unknown, boolean][] = [];
    postProcess({ a: ' x ', b: null }, { fields: { b: { default: 5 } } }, isDate, (p, v, d) => seen.push([p, v, d]));
    expect(seen).toEqual([['a', 'x', false], ['b', 5, true]]);
  });
});

describe('post-processing crafted values', () => {
  it('collapses a 200 kB run of spaces without a line break in time linear in its length', () => {
    // The line-break regex was tried from every space of the run: 200 kB took 76 s.
    const value = 'A' + '\t\r'.repeat(100_000) + 'B';
    expect(postProcess({ name: value }, null, isDate)).toEqual({ name: 'A' + ' \r'.repeat(100_000) + 'B' });
  });
});
