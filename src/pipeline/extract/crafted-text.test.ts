// Text that makes a backtracking regex slow: each case took over a minute before its regex was
// rewritten to match each character in one way, and must now be read at once with the same result.
import { describe, expect, it } from 'vitest';
import { namesPlaceAfterCode } from './address-block.js';
import { coerce } from './coerce.js';
import { sectionItem, splitArticleCodes } from './line-items.js';
import { saysRounded } from './receipt-total.js';
import { headingName } from './scalars.js';
import type { FieldSpec } from './schema-fields.js';

const cell = (value: string) => ({ value, confidence: 1, evidence: [] });
const column = (key: string) => ({ path: `lines.${key}`, key, kind: 'scalar', type: 'string' }) as FieldSpec;

describe('extraction on crafted text', () => {
  it('reads a postal code line with a long run of digits before its comma', () => {
    // /\d{4,}[^,]*,\s*\S/ split the run cubically: 6,000 digits took over a minute.
    expect(namesPlaceAfterCode('0'.repeat(6000) + ',')).toBe(false);
    expect(namesPlaceAfterCode('0'.repeat(6000) + ', MALAYSIA')).toBe(true);
    expect(namesPlaceAfterCode('56000 KUALA LUMPUR, MALAYSIA')).toBe(true);
    expect(namesPlaceAfterCode('KUALA LUMPUR, 56000 ')).toBe(false);
  });

  it('tells a section heading from a long run of stars that is none', () => {
    // The marks were split between the two runs and .* cubically: 4,500 stars took over a minute.
    const columns = [column('description'), column('section')];
    expect(sectionItem(cell('*'.repeat(4500) + 'x'), columns)).toBeNull();
    expect(sectionItem(cell('--- Food Products ---'), columns)).toEqual({ section: cell('--- Food Products ---') });
  });

  it('drops an e-mail address from a heading name after a long run of "@"', () => {
    // /\S+@\S+\.\S+/ split the run cubically: 5,000 "@" took over a minute.
    expect(headingName('Sammy ' + '@'.repeat(5000) + ' Maystone')).toBe('Sammy ' + '@'.repeat(5000) + ' Maystone');
    expect(headingName('Sammy smaystone4@fake.com Maystone INVOICE')).toBe('Sammy Maystone');
  });

  it('reads a line of many total words without a rounding word', () => {
    // The rest of the line was scanned from every total word: 100,000 of them took over a minute.
    expect(saysRounded('TOTAL '.repeat(100_000) + 'RM 12.30')).toBe(false);
    expect(saysRounded('TOTAL '.repeat(100_000) + 'AFTER ROUNDING 12.30')).toBe(true);
    expect(saysRounded('ROUNDED TOTAL 48.95')).toBe(true);
    expect(saysRounded('ROUNDING\nTOTAL 48.95')).toBe(false);
  });

  it('keeps a heading name with a long run of spaces before its last word', () => {
    // The trailing title was looked for from each space of the run: 250,000 took over a minute.
    expect(headingName('Shop' + ' '.repeat(250_000) + 'Tools')).toBe('Shop Tools');
    expect(headingName('Shop Tools' + ' '.repeat(250_000) + 'TAX INVOICE')).toBe('Shop Tools');
  });

  it('leaves descriptions alone when one of them is a long run of digits with no space', () => {
    // The run was split between \d{3,} and the code's class in every way: 250,000 digits took over a minute.
    const description = { ...column('description'), concept: { id: 'description' } } as FieldSpec;
    const code = { ...column('code'), concept: { id: 'item_code' } } as FieldSpec;
    const long = [{ description: cell('E103184 Onderhoudsset') }, { description: cell('0'.repeat(250_000) + 'x') }];
    expect(splitArticleCodes(long, [description, code])).toEqual(long);
    const coded = [{ description: cell('E103184 Onderhoudsset') }, { description: cell('E103185 Filter') }];
    expect(splitArticleCodes(coded, [description, code])).toEqual([
      { description: cell('Onderhoudsset'), code: cell('E103184') },
      { description: cell('Filter'), code: cell('E103185') },
    ]);
  });

  it('reads a web address followed by a long run of brackets as a field value', () => {
    // Its trailing punctuation was stripped from each bracket of the run: 250,000 took over a minute.
    const website = { ...column('website'), format: 'uri' } as FieldSpec;
    const ctx = { dateOrder: null, dateOrderGuess: null, currency: null, country: null, taxIdPrefixMode: 'infer' } as const;
    const long = 'www.example.com' + ')'.repeat(250_000) + 'a';
    expect(coerce(website, long, ctx)).toEqual({ value: long, start: 0, end: long.length, fit: 1 });
    expect(coerce(website, 'see www.example.com).', ctx)).toEqual({ value: 'www.example.com', start: 4, end: 19, fit: 1 });
  });

  it('reads an e-mail field after a long run of dots without an address', () => {
    // The run was scanned again from each of its dots: 350,000 took over a minute.
    const email = { ...column('email'), format: 'email' } as FieldSpec;
    const ctx = { dateOrder: null, dateOrderGuess: null, currency: null, country: null, taxIdPrefixMode: 'infer' } as const;
    expect(coerce(email, 'x' + '.'.repeat(350_000) + ' a@b.cd', ctx)).toBeNull();
    expect(coerce(email, 'mail: Info.Desk@Example.com.', ctx)).toEqual({ value: 'info.desk@example.com', start: 6, end: 27, fit: 1 });
  });
});
