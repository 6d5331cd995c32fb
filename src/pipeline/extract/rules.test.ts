import { describe, expect, it } from 'vitest';
import { expressionError } from './expression.js';
import type { Rule } from './rule-kinds.js';
import { checkRule } from './rule-kinds.js';
import { ruleId, runRules } from './rules.js';

const data = {
  invoice_number: 'INV-001',
  date: '2024-03-05',
  due_date: '2024-03-01',
  subtotal: 100,
  tax: 19,
  total: 119,
  currency: 'EUR',
  iban: 'DE30507500940000048567',
  card: '4111111111111111',
  vat_id: 'DE232446240',
  lines: [{ amount: 60, qty: 1 }, { amount: 40, qty: null }],
};

const run = (rule: Rule, d: Record<string, unknown> = data) => runRules([rule], d, new Date('2024-06-01T00:00:00Z')).entries;

describe('validation rules', () => {
  it('required: missing values and items', () => {
    expect(run({ kind: 'required', field: 'total' })).toEqual([]);
    expect(run({ kind: 'required', field: 'po_number' })).toEqual([{ rule: 'required:po_number', field: 'po_number', severity: 'error', message: expect.any(String) }]);
    expect(run({ kind: 'required', field: 'lines[].qty', severity: 'warn' })).toEqual([expect.objectContaining({ field: 'lines[1].qty', severity: 'warn' })]);
    expect(run({ kind: 'required', fields: ['total', 'po_number'] }).map((e) => e.field)).toEqual(['po_number']);
  });

  it('pattern, enum, range, length', () => {
    expect(run({ kind: 'pattern', field: 'invoice_number', params: { pattern: '^INV-\\d+$' } })).toEqual([]);
    expect(run({ kind: 'pattern', field: 'invoice_number', params: { pattern: '^\\d+$' } })).toHaveLength(1);
    expect(run({ kind: 'enum', field: 'currency', params: { values: ['eur'], case_insensitive: true } })).toEqual([]);
    expect(run({ kind: 'enum', field: 'currency', params: { values: ['USD'] } })[0]!.message).toMatch(/not one of 'USD'/);
    expect(run({ kind: 'range', field: 'total', params: { min: 0, max: 100 } })[0]!.message).toMatch(/above 100/);
    expect(run({ kind: 'range', field: 'total', params: { min: 0 } })).toEqual([]);
    expect(run({ kind: 'length', field: 'lines', params: { min: 3 } })).toHaveLength(1);
    expect(run({ kind: 'length', field: 'invoice_number', params: { max: 7 } })).toEqual([]);
  });

  it('date and date_order', () => {
    expect(run({ kind: 'date', field: 'date', params: { not_in_future: true } })).toEqual([]);
    expect(run({ kind: 'date', field: 'date', params: { min: '2024-04-01' } })).toHaveLength(1);
    expect(run({ kind: 'date', field: 'date' }, { date: '2024-02-30' })).toHaveLength(1);
    expect(run({ kind: 'date', field: 'date', params: { not_in_future: true } }, { date: '2030-01-01' })[0]!.message).toMatch(/future/);
    expect(run({ kind: 'date_order', fields: ['date', 'due_date'] })).toEqual([expect.objectContaining({ rule: 'date_order:date,due_date', field: 'due_date' })]);
    expect(run({ kind: 'date_order', fields: ['due_date', 'date'] })).toEqual([]);
    // Dates reformatted by post-processing are still read.
    expect(run({ kind: 'date_order', fields: ['a', 'b'] }, { a: '05.03.2024', b: '01.03.2024' })).toHaveLength(1);
  });

  it('sum with tolerance and arithmetic', () => {
    expect(run({ kind: 'sum', field: 'subtotal', params: { items: 'lines[].amount' } })).toEqual([]);
    expect(run({ kind: 'sum', field: 'subtotal', params: { items: 'lines[].amount', tolerance: 0.5 } }, { ...data, subtotal: 100.4 })).toEqual([]);
    expect(run({ kind: 'sum', field: 'subtotal', params: { items: 'lines[].amount' } }, { ...data, subtotal: 101 })[0]!.message).toMatch(/add up to 100/);
    expect(run({ kind: 'arithmetic', params: { expression: 'subtotal + tax = total' } })).toEqual([]);
    expect(run({ kind: 'arithmetic', params: { expression: 'subtotal * 1.19 = total', tolerance: 0.01 } })).toEqual([]);
    expect(run({ kind: 'arithmetic', params: { expression: 'subtotal + tax = total' } }, { ...data, tax: 20 })).toEqual([expect.objectContaining({ rule: 'arithmetic:subtotal+tax=total', field: 'total' })]);
    expect(run({ kind: 'arithmetic', params: { expression: 'tax <= subtotal' } })).toEqual([]);
    expect(run({ kind: 'arithmetic', params: { expression: 'lines[].amount = subtotal' } })).toEqual([]);
    // A missing operand is not a broken rule (required says whether it must be there).
    expect(run({ kind: 'arithmetic', params: { expression: 'subtotal + shipping = total' } })).toEqual([]);
  });

  it('checksum, equals, required_if', () => {
    expect(run({ kind: 'checksum', field: 'iban', params: { algorithm: 'iban' } })).toEqual([]);
    expect(run({ kind: 'checksum', field: 'iban', params: { algorithm: 'iban' } }, { iban: 'DE31507500940000048567' })).toHaveLength(1);
    expect(run({ kind: 'checksum', field: 'card', params: { algorithm: 'luhn' } })).toEqual([]);
    expect(run({ kind: 'checksum', field: 'vat_id', params: { algorithm: 'vat' } })).toEqual([]);
    expect(run({ kind: 'checksum', field: 'vat_id', params: { algorithm: 'vat' } }, { vat_id: 'DE232446241' })).toHaveLength(1);
    expect(run({ kind: 'equals', fields: ['total', 'total'] })).toEqual([]);
    expect(run({ kind: 'equals', fields: ['subtotal', 'total'] })).toHaveLength(1);
    expect(run({ kind: 'equals', field: 'currency', params: { value: 'EUR' } })).toEqual([]);
    expect(run({ kind: 'required_if', field: 'vat_id', params: { when: 'tax' } }, { tax: 19 })).toHaveLength(1);
    expect(run({ kind: 'required_if', field: 'vat_id', params: { when: 'currency', equals: 'USD' } }, { currency: 'EUR' })).toEqual([]);
    expect(run({ kind: 'required_if', field: 'vat_id', params: { when: 'currency', in: ['EUR', 'GBP'] } }, { currency: 'EUR' })).toHaveLength(1);
  });

  it('uses the rule message and name, and marks rejecting rules', () => {
    const out = runRules([{ kind: 'range', field: 'total', params: { max: 10 }, name: 'too_big', message: 'Too big', on_fail: 'reject' }], data);
    expect(out.entries).toEqual([{ rule: 'too_big', field: 'total', severity: 'error', message: 'Too big' }]);
    expect(out.rejected).toEqual(['too_big']);
    expect(ruleId({ kind: 'date_order', fields: ['a', 'b'] })).toBe('date_order:a,b');
  });
});

describe('rule checks at template time', () => {
  const known = (p: string) => ['total', 'subtotal', 'tax', 'lines', 'lines[].amount', 'date'].includes(p.replace(/\[\d+\]/g, '[]'));
  const problems = (rule: unknown) => checkRule(rule, known, expressionError);

  it('accepts the example of every kind it lists', async () => {
    const { RULE_KINDS } = await import('./rule-kinds.js');
    for (const [kind, spec] of Object.entries(RULE_KINDS)) {
      const ps = checkRule(spec.example, () => true, expressionError);
      expect(ps, kind).toEqual([]);
    }
  });

  it('locates problems inside the rule', () => {
    expect(problems({ kind: 'sum', field: 'total' })[0]!.loc).toEqual(['params', 'items']);
    expect(problems({ kind: 'sum', field: 'total', params: { items: 'lines[].price' } })[0]!.loc).toEqual(['params', 'items']);
    expect(problems({ kind: 'equals', field: 'total' })[0]!.loc).toEqual(['params', 'value']);
    expect(problems({ kind: 'equals', field: 'total', fields: ['tax', 'total'] })[0]!.loc).toEqual([]);
    expect(problems({ kind: 'range', field: 'total', params: { min: 5, max: 1 } })[0]!.msg).toMatch(/min is greater/);
    expect(problems({ kind: 'required', field: 'total', extra: 1 })[0]!.loc).toEqual(['extra']);
    expect(problems({ kind: 'arithmetic', params: { expression: 'total' } })[0]!.msg).toMatch(/comparison/);
  });

  it('parses arithmetic expressions', () => {
    expect(expressionError('subtotal + tax = total')).toBeNull();
    expect(expressionError('(a + b) * 2 >= c / 4')).toBeNull();
    expect(expressionError('a + = b')).toMatch(/Expected/);
    expect(expressionError('a = b = c')).toMatch(/end of the expression/);
    expect(expressionError('a ^ b = c')).toMatch(/Unexpected character/);
  });
});
