// Field-level scoring of extracted data against expected data: per field, true positives (found
// and equal), false positives (found but wrong, or found where nothing was expected) and false
// negatives (expected but missing or wrong). Lists (line items) are compared as multisets per column.

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
  /** Expected values (the denominator of exact-match accuracy). */
  n: number;
}

export type Scores = Record<string, Counts>;

const blank = (): Counts => ({ tp: 0, fp: 0, fn: 0, n: 0 });

export function normalise(v: unknown): string {
  if (typeof v === 'number') return String(Math.round(v * 100) / 100);
  return String(v).normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

export function equal(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = Number(a);
    const y = Number(b);
    return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) < 0.005;
  }
  return normalise(a) === normalise(b);
}

// Legal forms at the end of a company name, long and short ("spółka akcyjna" is "S.A.").
const LEGAL_FORM = /[\s,]+(?:s\.?\s?a\.?\s?s\.?|s\.?\s?a\.?\s?r\.?\s?l\.?|s\.?\s?a\.?|b\.?\s?v\.?|n\.?\s?v\.?|gmbh|ag|kg|ltd\.?|limited|inc\.?|llc|plc|pvt\.?\s+ltd\.?|private\s+limited|sdn\.?\s+bhd\.?|s\.?p\.?a\.?|spółka\s+akcyjna|sp\.?\s*z\s*o\.?\s*o\.?|société\s+anonyme|sociedad\s+anónima)\s*$/iu;

/**
 * Company names: equal when they are equal once a trailing legal form is set aside ("Free SAS" is
 * "Free", "ORLEN S.A." is "ORLEN spółka akcyjna"). A brand for a legal name ("OYO" for "Oravel
 * Stays Pvt. Ltd.") stays a miss.
 */
export function sameCompany(a: unknown, b: unknown): boolean {
  const core = (v: unknown) => normalise(v).replace(LEGAL_FORM, '').replace(/[.,]+$/, '').trim();
  return equal(a, b) || (typeof a === 'string' && typeof b === 'string' && core(a) !== '' && core(a) === core(b));
}

const present = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

function add(scores: Scores, field: string, c: Partial<Counts>): void {
  const s = (scores[field] ??= blank());
  s.tp += c.tp ?? 0;
  s.fp += c.fp ?? 0;
  s.fn += c.fn ?? 0;
  s.n += c.n ?? 0;
}

function multiset(scores: Scores, field: string, expected: unknown[], predicted: unknown[]): void {
  const left = [...predicted];
  let tp = 0;
  for (const e of expected) {
    const i = left.findIndex((p) => equal(p, e));
    if (i >= 0) {
      tp++;
      left.splice(i, 1);
    }
  }
  add(scores, field, { tp, fp: left.length, fn: expected.length - tp, n: expected.length });
}

/** Scores one document's fields into `scores` (`equalFor` may override equality per field). */
export function scoreDocument(scores: Scores, expected: Record<string, unknown>, predicted: Record<string, unknown>, equalFor: (field: string, a: unknown, b: unknown) => boolean = (_f, a, b) => equal(a, b)): void {
  for (const [field, exp] of Object.entries(expected)) {
    const got = predicted[field];
    if (Array.isArray(exp)) {
      const items = Array.isArray(got) ? got : [];
      if (exp.every((e) => e && typeof e === 'object')) {
        const columns = new Set(exp.flatMap((e) => Object.keys(e as object)));
        for (const col of columns) {
          const ev = exp.map((e) => (e as Record<string, unknown>)[col]).filter(present);
          const pv = items.map((p) => (p as Record<string, unknown>)?.[col]).filter(present);
          multiset(scores, `${field}[].${col}`, ev, pv);
        }
      } else multiset(scores, field, exp.filter(present), items.filter(present));
      continue;
    }
    if (!present(exp)) continue;
    if (!present(got)) add(scores, field, { fn: 1, n: 1 });
    else if (equalFor(field, exp, got)) add(scores, field, { tp: 1, n: 1 });
    else add(scores, field, { fp: 1, fn: 1, n: 1 });
  }
}

export function summarise(c: Counts) {
  const precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : null;
  const recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : null;
  return {
    ...c,
    precision: precision === null ? null : Math.round(precision * 1000) / 1000,
    recall: recall === null ? null : Math.round(recall * 1000) / 1000,
    exact_match: c.n ? Math.round((c.tp / c.n) * 1000) / 1000 : null,
  };
}

/**
 * Wilson score interval (95 %) of a share of k in n: how far a figure measured on few fields can
 * be from the rate the same code would reach on many. 11 of 14 is 0.786, but anywhere in 0.52–0.92.
 */
export function wilson95(k: number, n: number): [number, number] | null {
  if (n === 0) return null;
  const z = 1.96;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return [r(Math.max(0, centre - half)), r(Math.min(1, centre + half))];
}

export function total(scores: Scores, only?: (field: string) => boolean): Counts {
  const t = blank();
  for (const [field, c] of Object.entries(scores)) {
    if (only && !only(field)) continue;
    t.tp += c.tp;
    t.fp += c.fp;
    t.fn += c.fn;
    t.n += c.n;
  }
  return t;
}
