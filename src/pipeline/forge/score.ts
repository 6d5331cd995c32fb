// Scoring a forge candidate on the samples: extraction with the candidate on each sample, then
// field coverage (fields that got a value), validation pass rate (rules that held) and agreement
// with the expected outputs (scalar fields, compared as numbers, dates or folded text).
import type { CanonicalJson } from '../canonical/serialize.js';
import { findDates } from '../entities/dates.js';
import { parseAmount } from '../entities/money.js';
import { type ExtractionTemplate, type Rule, ruleId, runExtraction } from '../extract/index.js';

export interface ForgeSample {
  job_id: string;
  canonical: CanonicalJson;
  /** The data wanted from this document (forge job `expected_outputs`), when given. */
  expected?: Record<string, unknown> | null;
}

export interface ForgeCandidate {
  json_schema: Record<string, unknown>;
  validation_rules: Record<string, unknown>[];
  prompt_overlay: string;
}

export interface ForgeScores {
  overall: number;
  field_coverage: number;
  validation_pass_rate: number;
  expected_agreement: number;
}

export interface Disagreement {
  job_id: string;
  field: string;
  expected: unknown;
  got: unknown;
}

export interface Evaluation {
  scores: ForgeScores;
  disagreements: Disagreement[];
  /** Per field: the share of samples where it got a value. */
  coverage: Record<string, number>;
  /** Rules (by index) that failed on at least one sample. */
  failedRules: number[];
  data: Record<string, unknown>[];
}

const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
const round = (x: number) => Math.round(x * 1000) / 1000;

// An amount as a text prints it: digits with separators, a currency code or symbol either side.
// Each run of spaces has one place in the match (a currency takes the spaces after it), so a long
// run is not split between neighbouring \s* in polynomially many ways.
const AMOUNT_TEXT = /^\s*(?:(?:[a-z]{1,3}|[$€£¥])\s*)?-?\d[\d\s.,']*(?:(?:[a-z]{1,3}|[$€£¥])\s*)?$/iu;

/** The amount a text is, when it is an amount and nothing more. */
export function amountOf(v: unknown): number | null {
  const text = String(v);
  return AMOUNT_TEXT.test(text) ? (parseAmount(text)?.amount ?? null) : null;
}

/**
 * The dates (YYYY-MM-DD) a text can be, when it is one date and nothing more: both readings of an
 * ambiguous one ("12/03/2018"), the day first before the month first.
 */
export function datesOf(v: unknown): string[] {
  const text = String(v);
  const hits = findDates(text);
  if (hits.length !== 1) return [];
  const hit = hits[0]!;
  const rest = text.slice(0, hit.start) + text.slice(hit.end);
  if (!/^[\s.,:;()-]*$/.test(rest)) return [];
  return hit.ambiguous && hit.otherOrder ? [hit.value, hit.otherOrder] : [hit.value];
}

/**
 * Expected and extracted values agree: as folded text, as amounts (0.01) when either side is a
 * number, or as dates (an ambiguous expected date in either reading). Expected outputs are often written as the document prints them ("100.90",
 * "13/03/2018") while the extractor gives a number or an ISO date (100.9, "2018-03-13").
 */
export function sameValue(expected: unknown, got: unknown): boolean {
  if (isEmpty(expected)) return isEmpty(got);
  if (isEmpty(got)) return false;
  if (typeof expected === 'number') {
    const n = typeof got === 'number' ? got : parseAmount(String(got))?.amount;
    return n !== undefined && Math.abs(n - expected) < 0.011;
  }
  if (typeof got === 'number') {
    const e = amountOf(expected);
    return e !== null && Math.abs(e - got) < 0.011;
  }
  const e = String(expected);
  const g = String(got);
  const fold = (s: string) => s.toLowerCase().replace(/[\s.,:;'"-]+/g, '');
  if (fold(e) === fold(g)) return true;
  // An expected date written as the document prints it may be read either way round ("12/03/2018");
  // the extractor read it in the document's own order.
  const de = datesOf(e);
  return de.length > 0 && datesOf(g).some((d) => de.includes(d));
}

function scalarNames(schema: Record<string, unknown>): string[] {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>;
  return Object.keys(props).filter((k) => props[k]?.type !== 'array' && props[k]?.type !== 'object');
}

export function evaluate(candidate: ForgeCandidate, samples: ForgeSample[]): Evaluation {
  const template: ExtractionTemplate = { id: null, version: null, ...candidate };
  const names = Object.keys((candidate.json_schema.properties ?? {}) as object);
  const scalars = new Set(scalarNames(candidate.json_schema));
  const filled: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  const failed = new Set<number>();
  const disagreements: Disagreement[] = [];
  const data: Record<string, unknown>[] = [];
  let ruleChecks = 0;
  let ruleFailures = 0;
  let expectedTotal = 0;
  let expectedRight = 0;
  for (const sample of samples) {
    const out = runExtraction(sample.canonical, template, { generic_entities_enabled: false, review_warn_count_threshold: 1000 });
    data.push(out.extraction.data);
    for (const n of names) if (!isEmpty(out.extraction.data[n])) filled[n]!++;
    candidate.validation_rules.forEach((rule, i) => {
      ruleChecks++;
      const id = ruleId(rule as unknown as Rule);
      const hit = out.extraction.validation.some((v) => v.rule === id);
      if (hit) {
        ruleFailures++;
        failed.add(i);
      }
    });
    for (const [field, want] of Object.entries(sample.expected ?? {})) {
      if (Array.isArray(want) || (want && typeof want === 'object')) continue;
      expectedTotal++;
      const got = scalars.has(field) ? out.extraction.data[field] : undefined;
      if (sameValue(want, got)) expectedRight++;
      else disagreements.push({ job_id: sample.job_id, field, expected: want, got: got ?? null });
    }
  }
  const n = Math.max(1, samples.length);
  const coverage = Object.fromEntries(Object.entries(filled).map(([k, v]) => [k, v / n]));
  const field_coverage = names.length ? Object.values(coverage).reduce((s, v) => s + v, 0) / names.length : 0;
  const validation_pass_rate = ruleChecks ? 1 - ruleFailures / ruleChecks : 1;
  const expected_agreement = expectedTotal ? expectedRight / expectedTotal : 0;
  const overall = expectedTotal ? 0.6 * expected_agreement + 0.2 * field_coverage + 0.2 * validation_pass_rate : 0.5 * field_coverage + 0.5 * validation_pass_rate;
  return {
    scores: { overall: round(overall), field_coverage: round(field_coverage), validation_pass_rate: round(validation_pass_rate), expected_agreement: round(expected_agreement) },
    disagreements,
    coverage,
    failedRules: [...failed],
    data,
  };
}
