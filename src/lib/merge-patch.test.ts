import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch.js';

// The examples of RFC 7386 Appendix A.
describe('mergePatch (RFC 7386)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j', (target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });
});

describe('mergePatch with member names that are also prototype keys', () => {
  it('keeps them as own data and never touches a prototype', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "a": 1}');
    const out = mergePatch({ a: 0, constructor: 'kept?' }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"a": 1, "constructor": {"prototype": {"polluted": true}}, "__proto__": {"polluted": true}}'));
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
  });
});
