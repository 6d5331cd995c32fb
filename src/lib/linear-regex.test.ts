import { describe, expect, it } from 'vitest';
import { ajvLinearRegExp, compileLinear, linearRegexProblem } from './linear-regex.js';

describe('linear-time regular expressions', () => {
  it('matches like JavaScript for the patterns templates use, flags included', () => {
    expect(compileLinear('^[A-Z0-9/-]{4,20}$').test('INV-2024/001')).toBe(true);
    expect(compileLinear('^[A-Z0-9/-]{4,20}$').test('inv-1')).toBe(false);
    expect(compileLinear('^inv', 'i').test('INV-1')).toBe(true);
    expect(compileLinear('^b$', 'm').test('a\nb\nc')).toBe(true);
    expect(compileLinear('a.b', 's').test('a\nb')).toBe(true);
    expect(compileLinear('\\d+').test('total 42')).toBe(true);
  });

  it('runs a catastrophic-backtracking pattern on a long input without stalling', () => {
    // In a backtracking engine (a+)+$ against "aaa…b" takes 2^n steps; RE2 answers in one pass.
    const input = `${'a'.repeat(50_000)}b`;
    expect(compileLinear('^(a+)+$').test(input)).toBe(false);
    expect(compileLinear('(x+x+)+y').test('x'.repeat(50_000))).toBe(false);
  });

  it('refuses what RE2 cannot run, saying why', () => {
    expect(linearRegexProblem('(a)\\1')).toMatch(/./);
    expect(linearRegexProblem('^(?=a)')).toMatch(/./);
    expect(linearRegexProblem('([a-z')).toMatch(/./);
    expect(linearRegexProblem('abc', 'g')).toMatch(/flag/);
    expect(linearRegexProblem('^[a-z]+$', 'iu')).toBeNull();
  });

  it('finds the first match with JavaScript offsets, and nothing on a backtracking pattern that cannot match', () => {
    expect(compileLinear('[A-Z]{2}\\d+', 'u').find('😀 no: AB12 CD3')).toEqual({ index: 7, end: 11, text: 'AB12' });
    expect(compileLinear('(x+x+)+y').find('x'.repeat(50_000))).toBeNull();
  });

  it('gives the first match\'s groups as RegExp exec does, greedy splits included', () => {
    for (const [pattern, text] of [['^(\\d{1,2})(\\d{1,2})(\\d{4})$', '1532024'], ['(a)|(b)', 'xb'], ['^(\\d+)-(\\d+)?', '12-']] as const) {
      expect(compileLinear(pattern).exec(text)).toEqual([...new RegExp(pattern).exec(text)!].map((g) => g ?? null));
    }
    expect(compileLinear('^(a+)+$').exec(`${'a'.repeat(50_000)}b`)).toBeNull();
  });

  it('reads JavaScript \\u escapes, and leaves an escaped backslash before a u alone', () => {
    expect(compileLinear('^caf\\u00e9$').test('café')).toBe(true);
    expect(compileLinear('\\u{1F600}', 'u').test('😀')).toBe(true);
    expect(compileLinear('^\\\\u00e9$').test('\\u00e9')).toBe(true);
  });

  it('gives Ajv one compiled pattern per pattern text', () => {
    expect(String(ajvLinearRegExp('a+', 'u'))).not.toBe(String(ajvLinearRegExp('b+', 'u')));
    expect(ajvLinearRegExp('^b+$', 'u').test('bbb')).toBe(true);
    expect(() => ajvLinearRegExp('(a)\\1', 'u')).toThrow();
  });
});
