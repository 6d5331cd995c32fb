import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { compileBodyValidator, toValidationItems } from './validation.js';
import { Nullable, StringEnum } from './schemas/common.js';

function validate(schema: object, data: unknown) {
  const check = compileBodyValidator(schema);
  return check(data) ? [] : toValidationItems(check.errors ?? [], data, 'body');
}

describe('pydantic-shaped validation items', () => {
  const schema = Type.Object({
    name: Type.String({ minLength: 1, maxLength: 5, pattern: '^[a-z]+$' }),
    ratio: Type.Optional(Nullable(Type.Number({ maximum: 1 }))),
    mode: Type.Optional(StringEnum(['a', 'b', 'c'] as const)),
    count: Type.Optional(Type.Integer({ minimum: 1 })),
    price: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    nested: Type.Optional(Type.Object({ items: Type.Array(Type.Object({ qty: Type.Integer() })) })),
  });

  it('reports a missing field with loc, msg, type and the parent as input', () => {
    expect(validate(schema, {})).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {} }]);
  });

  it('reports a missing body as the body itself', () => {
    expect(validate(schema, undefined)).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
  });

  it('reports one item per bad field', () => {
    const items = validate(schema, { name: 'ABCDEFG', ratio: 2, mode: 'z', count: 0, price: 0 });
    expect(items).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'name'], msg: 'String should have at most 5 characters', type: 'string_too_long', input: 'ABCDEFG', ctx: { max_length: 5 } },
        { loc: ['body', 'ratio'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal', input: 2, ctx: { le: 1 } },
        { loc: ['body', 'mode'], msg: "Input should be 'a', 'b' or 'c'", type: 'enum', input: 'z', ctx: { expected: "'a', 'b' or 'c'" } },
        { loc: ['body', 'count'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
        { loc: ['body', 'price'], msg: 'Input should be greater than 0', type: 'greater_than', input: 0, ctx: { gt: 0 } },
      ]),
    );
    // Like pydantic, the first failed constraint of a field is its one item.
    expect(items.filter((i) => i.loc[1] === 'name')).toHaveLength(1);
    expect(items).toHaveLength(5);
  });

  it('accepts null where the schema is nullable and rejects it elsewhere with a type error', () => {
    expect(validate(schema, { name: 'ok', ratio: null })).toEqual([]);
    expect(validate(schema, { name: null })).toEqual([{ loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: null }]);
  });

  it('does not coerce JSON types in bodies', () => {
    expect(validate(schema, { name: 'ok', count: '3' })).toEqual([
      { loc: ['body', 'count'], msg: 'Input should be a valid integer', type: 'int_type', input: '3' },
    ]);
  });

  it('locates errors inside arrays with numeric indexes', () => {
    expect(validate(schema, { name: 'ok', nested: { items: [{ qty: 1 }, { qty: 'x' }] } })).toEqual([
      { loc: ['body', 'nested', 'items', 1, 'qty'], msg: 'Input should be a valid integer', type: 'int_type', input: 'x' },
    ]);
  });

  it('names every literal of a union of literals in one item, as pydantic does', () => {
    const cased = Type.Object({ case: Type.Union([Type.Literal('upper'), Type.Literal('lower'), Type.Literal('title'), Type.Literal('keep')]) });
    expect(validate(cased, { case: 'weird' })).toEqual([
      { loc: ['body', 'case'], msg: "Input should be 'upper', 'lower', 'title' or 'keep'", type: 'literal_error', input: 'weird', ctx: { expected: "'upper', 'lower', 'title' or 'keep'" } },
    ]);
    expect(validate(Type.Object({ one: Type.Literal('only') }), { one: 'x' })).toEqual([
      { loc: ['body', 'one'], msg: "Input should be 'only'", type: 'literal_error', input: 'x', ctx: { expected: "'only'" } },
    ]);
  });

  it('names query, path and header locations like FastAPI', () => {
    const items = toValidationItems([{ keyword: 'maximum', instancePath: '/limit', schemaPath: '', params: { limit: 200 } }], { limit: 500 }, 'querystring');
    expect(items[0]?.loc).toEqual(['query', 'limit']);
    expect(toValidationItems([{ keyword: 'required', instancePath: '', schemaPath: '', params: { missingProperty: 'x' } }], {}, 'params')[0]?.loc).toEqual(['path', 'x']);
    expect(toValidationItems([{ keyword: 'required', instancePath: '', schemaPath: '', params: { missingProperty: 'x-a' } }], {}, 'headers')[0]?.loc).toEqual(['header', 'x-a']);
  });
});
