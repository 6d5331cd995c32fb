// The forge's agreement between expected values written as the document prints them and the
// typed values the extractor gives (a number, an ISO date).
import { describe, expect, it } from 'vitest';
import { sameValue } from '../../src/pipeline/forge/score.js';

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
