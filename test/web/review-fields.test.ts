// The review screen's pure parts: paths, schema types, reasons by field and the merge patch.
import { describe, expect, it } from 'vitest';
import { buildPatch, coerce, concerns, describeReason, errorsByField, rankFields, reasonLabel, ruleIdOf, schemaType } from '../../web/src/screens/review-fields.js';

const schema = {
  type: 'object',
  properties: {
    total: { type: ['number', 'null'] },
    vendor: { type: 'object', properties: { name: { type: 'string' } } },
    line_items: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, amount: { type: 'number' } } } },
  },
};
const data = { total: 10, vendor: { name: 'A', vat: 'x' }, line_items: [{ description: 'a', amount: 1 }, { description: 'b', amount: 2 }, { description: 'c', amount: 3 }] };

describe('review fields', () => {
  it('types a field inside an array by the items schema', () => {
    expect(schemaType(schema, 'line_items[0].amount')).toBe('number');
    expect(schemaType(schema, 'line_items[12].description')).toBe('string');
    expect(schemaType(schema, 'total')).toBe('number');
    expect(coerce('1278,61', schemaType(schema, 'line_items[0].amount'), 'line_items[0].amount')).toBe(1278.61);
  });

  it('sends the whole array with the item changed, and only the edited keys outside arrays', () => {
    expect(buildPatch(data, [['line_items[1].amount', 20]])).toEqual({ line_items: [{ description: 'a', amount: 1 }, { description: 'b', amount: 20 }, { description: 'c', amount: 3 }] });
    expect(buildPatch(data, [['vendor.name', 'B'], ['total', null]])).toEqual({ vendor: { name: 'B' }, total: null });
    expect(data.line_items[1]!.amount).toBe(2);
  });

  it('removes rows, an edit to a kept row after a removed one landing on that row', () => {
    expect(buildPatch(data, [['line_items[2].amount', 30]], ['line_items[0]'])).toEqual({ line_items: [{ description: 'b', amount: 2 }, { description: 'c', amount: 30 }] });
    expect(buildPatch(data, [], ['line_items[0]', 'line_items[2]'])).toEqual({ line_items: [{ description: 'b', amount: 2 }] });
  });

  it('matches generic reason paths to indexed fields', () => {
    expect(concerns('line_items[].amount', 'line_items[3].amount')).toBe(true);
    expect(concerns('line_items[1].amount', 'line_items[1].amount')).toBe(true);
    expect(concerns('line_items[1].amount', 'line_items[2].amount')).toBe(false);
    expect(concerns('line_items', 'line_items[0].amount')).toBe(true);
    expect(concerns('total', 'total_tax')).toBe(false);
  });

  it('puts item reasons under each item field and review-wide reasons apart', () => {
    const field = (value: unknown) => ({ value, confidence: 0.5, evidence: [{ page: 1, bbox: [0, 0, 1, 1] as [number, number, number, number], text: 'x' }] });
    const { fields, general } = rankFields(
      {
        fields: { total: field(10), 'line_items[0].amount': field(1), 'line_items[1].amount': field(2) },
        validation: [
          { rule: 'range:line_items[].amount', field: 'line_items[1].amount', severity: 'error', message: 'too big' },
          { rule: 'required:po', field: 'po', severity: 'error', message: 'po missing' },
        ],
      },
      ['low_confidence:line_items[].amount', 'validation:range:line_items[].amount', 'validation:required:po', 'warn_count'],
    );
    expect(fields[0]).toMatchObject({ path: 'line_items[1].amount', reasons: ['rule failed: too big', 'low confidence'] });
    expect(fields.find((f) => f.path === 'line_items[0].amount')!.reasons).toEqual(['low confidence']);
    expect(fields.find((f) => f.path === 'total')!.reasons).toEqual([]);
    expect(general).toEqual([
      { text: 'rule failed: po missing', code: 'validation:required:po' },
      { text: 'several rule warnings (warn_count)', code: 'warn_count' },
    ]);
  });
});

describe('fields a reviewer corrected', () => {
  it('say the reviewer entered them, not that they were not found on the page, and do not rank as risky', () => {
    const { fields } = rankFields(
      {
        fields: {
          po_number: { value: 'PO-4711', confidence: 1, evidence: [], edited_by_reviewer: true },
          total: { value: 34.73, confidence: 0.9, evidence: [{ page: 2, bbox: [1, 1, 2, 2], text: '34,73' }] },
          vat_id: { value: 'DE1', confidence: 0.9, evidence: [] },
        },
        validation: [],
      },
      [],
    );
    expect(fields.map((f) => [f.path, f.reasons])).toEqual([
      ['vat_id', ['not found on the page (ungrounded)']],
      ['total', []],
      ['po_number', ['entered by the reviewer']],
    ]);
  });
});

describe('a refused save by field', () => {
  it("puts the screen's and the API's messages under the fields they name", () => {
    const paths = ['total', 'currency', 'line_items[0].description', 'line_items[0].amount', 'line_items[1].amount'];
    const error = ['total: "abc" is not a number that reads one way only.', 'patch.line_items.1.amount: Input should be a valid number', 'patch.currency: Input should be EUR or USD', 'patch.line_items.0: Extra inputs are not permitted', 'request: something else'].join('\n');
    expect(errorsByField(error, paths)).toEqual({
      total: ['"abc" is not a number that reads one way only.'],
      'line_items[1].amount': ['Input should be a valid number'],
      currency: ['Input should be EUR or USD'],
      'line_items[0].description': ['Extra inputs are not permitted'],
    });
    expect(errorsByField(null, paths)).toEqual({});
  });

  it('reads every review reason code the pipeline gives in words, and leaves an unknown one as it is', () => {
    expect(['low_confidence:total', 'low_agreement:date', 'validation:required:po', 'ungrounded:vendor.name', 'warn_count', 'something_new:x'].map(reasonLabel)).toEqual([
      'Low confidence: total',
      'Engines disagree: date',
      'po is required',
      'Not found on the page: vendor.name',
      'Several rule warnings',
      'something_new:x',
    ]);
    expect(describeReason('ungrounded:vendor.name')).toBe('not found on the page (ungrounded): vendor.name');
  });
});

describe('a failed rule in words', () => {
  it("reads a rule id by its kind, and leaves a rule's own name as a name", () => {
    expect(
      ['validation:required:po_number', 'validation:required:vendor,total', 'validation:pattern:invoice_number', 'validation:date_order:issue_date,due_date', 'validation:arithmetic:subtotal+tax=total', 'validation:sum:total', 'validation:format:contact', 'validation:multiple_of:lines[].qty', 'validation:vat-check'].map(reasonLabel),
    ).toEqual([
      'po_number is required',
      'vendor and total are required',
      'invoice_number does not match its pattern',
      'issue_date and due_date are in the wrong order',
      'subtotal+tax=total does not hold',
      'total is not the sum of its items',
      'contact is not in its format',
      'lines[].qty is not a multiple of its step',
      'Rule failed: vat-check',
    ]);
  });

  it("says a failed rule with the template's own message for it, else in words, on the review screen", () => {
    const rules = [
      { kind: 'required', field: 'po_number', message: 'Every order needs its PO number.' },
      { kind: 'arithmetic', params: { expression: 'subtotal + tax = total' }, message: 'The totals do not add up.' },
      { kind: 'required', field: 'vendor' },
    ];
    expect(ruleIdOf(rules[1]!)).toBe('arithmetic:subtotal+tax=total');
    const { general } = rankFields({ fields: {}, validation: [] }, ['validation:required:po_number', 'validation:arithmetic:subtotal+tax=total', 'validation:required:vendor'], rules);
    expect(general).toEqual([
      { text: 'rule failed: Every order needs its PO number.', code: 'validation:required:po_number' },
      { text: 'rule failed: The totals do not add up.', code: 'validation:arithmetic:subtotal+tax=total' },
      { text: 'rule failed: vendor is required', code: 'validation:required:vendor' },
    ]);
    expect(describeReason('validation:required:po_number')).toBe('rule failed: po_number is required');
  });
});
