import { describe, expect, it } from 'vitest';
import { agreementOf, decide } from './decision.js';

const policy = { review_confidence_floor: 0.7, review_agreement_floor: 0.8, review_warn_count_threshold: 2 };
const warn = (rule: string) => ({ rule, field: 'x', severity: 'warn' as const, message: 'm' });

describe('review decision', () => {
  it('completes when everything is confident, agreed and valid', () => {
    expect(decide({ confidences: { total: 0.9 }, agreement: { total: 1 }, validation: [], policy })).toMatchObject({ status: 'completed', review_reasons: [] });
  });

  it('names every reason once, with item fields collapsed', () => {
    const d = decide({
      confidences: { total: 0.5, 'lines[0].qty': 0.6, 'lines[1].qty': 0.2, date: 0.95 },
      agreement: { total: 0.5, date: 0.9 },
      validation: [{ rule: 'required:po', field: 'po', severity: 'error', message: 'm' }, warn('a'), warn('b')],
      policy,
    });
    expect(d.status).toBe('needs_review');
    expect(d.review_reasons).toEqual(['low_confidence:total', 'low_confidence:lines[].qty', 'low_agreement:total', 'validation:required:po', 'warn_count']);
  });

  it('counts warnings against the threshold', () => {
    expect(decide({ confidences: {}, validation: [warn('a')], policy }).status).toBe('completed');
    expect(decide({ confidences: {}, validation: [warn('a'), warn('b')], policy }).review_reasons).toEqual(['warn_count']);
  });

  it('lets template review_thresholds override the policy', () => {
    const d = decide({ confidences: { total: 0.5 }, validation: [warn('a')], thresholds: { confidence_floor: 0.4, warn_count_threshold: 1 }, policy });
    expect(d.review_reasons).toEqual(['warn_count']);
    expect(d.thresholds).toEqual({ confidence_floor: 0.4, agreement_floor: 0.8, warn_count_threshold: 1, source: 'mixed' });
  });

  it('rejects when a rejecting rule broke', () => {
    const d = decide({ confidences: {}, validation: [{ rule: 'r', field: 'x', severity: 'error', message: 'm' }], rejected: ['r'], policy });
    expect(d).toMatchObject({ status: 'rejected', review_reasons: ['validation:r'] });
  });

  it('measures agreement between two extractions', () => {
    expect(agreementOf({ a: { value: 1 }, b: { value: 'ACME GmbH' }, c: { value: 'x' } }, { a: { value: 1 }, b: { value: 'ACME GmbX' }, d: { value: 2 } })).toEqual({ a: 1, b: 0.889, c: 0, d: 0 });
  });
});
