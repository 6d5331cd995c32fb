import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../models/extraction/answer.js';
import { schemaValidator, valueBreaches } from './schema-check.js';

describe('the template schema as a check of values', () => {
  it('compiles a schema once per JSON text: the same schema read again (a new object) reuses its validator', () => {
    const schema = () => ({ type: 'object', properties: { total: { type: 'number', maximum: 100 } } });
    expect(schemaValidator(schema())).toBe(schemaValidator(schema()));
  });

  it('checks two templates that share an $id each by its own schema', () => {
    const a = { $id: 'https://example.com/schemacheck/invoice', type: 'object', properties: { total: { type: 'number', maximum: 100 } } };
    const b = { $id: 'https://example.com/schemacheck/invoice', type: 'object', properties: { total: { type: 'number', maximum: 10 } } };
    expect(schemaProblems(a, { total: 50 })).toEqual([]);
    expect(schemaProblems(b, { total: 50 })).toEqual(['total: must be <= 10']);
  });

  it('names each breached value by its place and keyword; null values, types and required are not value breaches', () => {
    const schema = {
      type: 'object',
      required: ['po'],
      properties: {
        po: { type: 'string' },
        status: { enum: ['open', 'paid'] },
        issued: { type: 'string', format: 'date-time' },
        lines: { type: 'array', items: { type: 'object', properties: { qty: { type: 'number', multipleOf: 5 }, code: { type: 'string', pattern: '^[A-Z]{3}$' } } } },
      },
    };
    const breaches = valueBreaches(schema, { status: null, issued: '2024-03-05', lines: [{ qty: 10, code: 'ABC' }, { qty: 7, code: 'abc' }, { qty: 'x' }] });
    expect(breaches.map((b) => [b.path, b.segments, b.keyword])).toEqual([
      ['lines[1].qty', ['lines', 1, 'qty'], 'multipleOf'],
      ['lines[1].code', ['lines', 1, 'code'], 'pattern'],
    ]);
  });
});
