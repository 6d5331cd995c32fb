// The total of a receipt is what was paid: the amount tendered less the change given back. When a
// document prints both ("CASH 50.00", "CHANGE 11.20"), that difference confirms one reading of the
// total and weakens the others (a subtotal before tax, a total before rounding, the totals of the
// tax summary printed after the payment). Sums printed after a tax summary heading or after the
// payment lines are summary figures, never the amount payable.
import { isCurrencyWord } from '../entities/money.js';
import type { TextLine } from '../entities/text.js';
import { ownLabelReader } from './own-labels.js';
import type { Candidate, ScalarContext } from './scalars.js';

/** Labels of the amount tendered ("CASH", "VISA") and of the change given back. */
export const TENDERED_LABELS = ['cash', 'tendered', 'tendered cash', 'cash tendered', 'amount tendered', 'payment', 'paid', 'pay', 'credit', 'credit card', 'card', 'visa', 'mastercard', 'master', 'debit', 'tunai', 'bar', 'gegeben', 'especes', 'efectivo', 'contant'];
export const CHANGE_LABELS = ['change', 'change due', 'cash change', 'change amt', 'change amount', 'baki', 'rueckgeld', 'ruckgeld', 'rendu', 'monnaie rendue', 'cambio', 'wisselgeld'];

const TENDER_SCHEMA = {
  type: 'object',
  properties: {
    tendered: { type: 'number', 'x-aliases': TENDERED_LABELS },
    change: { type: 'number', 'x-aliases': CHANGE_LABELS },
  },
};

const PAYMENT_LABELS = new Set([...TENDERED_LABELS, ...CHANGE_LABELS]);
// Printed beside a payment line's label, not part of it: a currency, a masked card number.
const PAYMENT_NOISE = /^(?:x+\d*|\**\d+)$/u;
const isPaymentNoise = (word: string) => PAYMENT_NOISE.test(word) || isCurrencyWord(word);

/**
 * A payment line's label: the amount tendered or the change ("CASH", "CHANGE", "VISA
 * XXXXXXXXXXXX1234", "Cash tendered RM"). Such a line may print the total's amount (paid exactly)
 * but it is never the document's total.
 */
export function isPaymentLabel(label: string): boolean {
  const words = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{Sc}\d*]+/u)
    .filter((w) => w && !isPaymentNoise(w));
  return words.length > 0 && PAYMENT_LABELS.has(words.join(' '));
}

// The parts of a total: the subtotal and the tax printed after it, read with the template machinery.
const PARTS_SCHEMA = { type: 'object', properties: { subtotal: { type: 'number' }, tax_amount: { type: 'number' } } };
const SUBTOTAL_WORD = /\b(?:sub[\s-]?total|zwischensumme|sous[\s-]total|subtotaal|netto|nett?\s+amount|total\s+(?:excl|exkl|zzgl|ohne|ht|hors|net))/i;

// Headings of the tax breakdown that receipts print after the total.
const SUMMARY_HEADING = /^\W*(?:gst|tax|vat|sst|mwst|tva)\s*(?:summary|analysis|breakdown|details?)\b/i;

const r3 = (v: number) => Math.round(Math.max(0, Math.min(1, v)) * 1000) / 1000;

interface Paid {
  /** Tendered less change (or the tendered amount alone when no change is printed). */
  amount: number;
  /** Reading order of the first payment line: totals come before it. */
  order: number;
  withChange: boolean;
  /** The change printed is 0: the amount tendered is the total itself. */
  exact: boolean;
}

/** The amount tendered and the change, read with the same label machinery as template fields. */
function paid(ctx: ScalarContext): Paid | null {
  // Cheap test first: most documents have no payment lines at all.
  if (!ctx.lines.some((l) => /\b(?:cash|change|tender|paid|payment|credit|visa|tunai|baki)\b/i.test(l.text))) return null;
  const read = ownLabelReader(TENDER_SCHEMA, ctx, true);
  // A payment is often printed as a deduction ("Cash -50.00"): its size is what was tendered.
  const amount = (c: Candidate) => typeof c.value === 'number';
  const tendered = read(0, amount);
  if (!tendered) return null;
  const change = read(1, amount);
  const t = Math.abs(tendered.value as number);
  const back = change ? Math.abs(change.value as number) : null;
  if (back !== null && back < t) return { amount: Math.round((t - back) * 100) / 100, order: tendered.order, withChange: true, exact: back === 0 };
  return { amount: t, order: tendered.order, withChange: false, exact: false };
}

/**
 * Subtotal + tax, both read from their labels before any summary: an amount printed after them
 * that equals their sum is the total, confirmed by arithmetic ("SUB TOTAL 68.87", "GST 6% 4.13",
 * "TOT*1 73.00" where OCR mangled the total's own label).
 */
function sumOfParts(ctx: ScalarContext, cut: number): { amount: number; order: number } | null {
  if (!ctx.lines.some((l) => SUBTOTAL_WORD.test(l.text))) return null;
  const read = ownLabelReader(PARTS_SCHEMA, ctx, true);
  const best = (i: number, after: number) => read(i, (c) => typeof c.value === 'number' && c.value > 0 && c.order > after && c.order < cut);
  const subtotal = best(0, -1);
  if (!subtotal) return null;
  const tax = best(1, subtotal.order);
  if (!tax) return null;
  return { amount: Math.round(((subtotal.value as number) + (tax.value as number)) * 100) / 100, order: tax.order };
}

/** The line order where summary figures begin (a tax summary heading), or Infinity. */
function summaryStart(lines: TextLine[]): number {
  return lines.find((l) => SUMMARY_HEADING.test(l.text))?.order ?? Number.POSITIVE_INFINITY;
}

const same = (a: unknown, b: number) => typeof a === 'number' && Math.abs(a - b) < 0.005;

/**
 * The total's candidates weighed against what was paid and where they are printed. A candidate
 * equal to the amount paid gains; one in the tax summary or after the payment loses; when no
 * candidate equals an amount paid with change given, the printed amount that does is added.
 */
export function weighTotalCandidates(candidates: Candidate[], ctx: ScalarContext): Candidate[] {
  const cut = summaryStart(ctx.lines);
  let payment = paid(ctx);
  // A total labelled as rounded ("Total After Rounding") within a rounding step of the amount paid
  // is the total: the difference is a misread tendered amount or change.
  const rounded = (c: Candidate) => c.source !== 'entity' && typeof c.value === 'number' && Math.abs(c.value - payment!.amount) < 0.05 && /round/i.test(ctx.lines.find((l) => l.order === c.order)?.text ?? '');
  if (payment?.withChange && !candidates.some((c) => same(c.value, payment!.amount)) && candidates.some(rounded)) payment = null;
  // With no change given, the amount tendered must be printed before the payment as well; when it
  // is not, the change (or the tendered amount) was misread and confirms nothing.
  if (payment?.exact && !ctx.entities.some((e) => e.type === 'money' && e.line.order < payment!.order && same((e.value as { amount: number }).amount, payment!.amount))) payment = null;
  const afterRounding = roundedTotal(candidates, ctx, cut);
  const out = candidates.map((c) => {
    let confidence = c.confidence;
    if (afterRounding && c !== afterRounding && printedAboveRounded(c, afterRounding)) confidence = Math.min(confidence, afterRounding.confidence) * 0.85;
    if (c.order >= cut) confidence *= 0.6;
    else if (payment && c.order > payment.order && !same(c.value, payment.amount)) confidence *= 0.75;
    if (payment && same(c.value, payment.amount)) confidence = payment.withChange ? Math.max(confidence, 0.8) + 0.1 : confidence + 0.05;
    else if (payment?.withChange) confidence *= 0.85;
    return { ...c, confidence: r3(confidence) };
  });
  // Nothing paid or rounded confirms a reading: the sum of subtotal and tax printed after them may.
  const parts = afterRounding || (payment?.withChange && out.some((c) => same(c.value, payment!.amount))) ? null : sumOfParts(ctx, cut);
  if (parts) {
    const printed = ctx.entities.find((e) => e.type === 'money' && e.line.order > parts.order && e.line.order < cut && same((e.value as { amount: number }).amount, parts.amount));
    if (printed) {
      const confirmed = (c: Candidate) => same(c.value, parts.amount) && c.order > parts.order;
      for (const [i, c] of out.entries()) out[i] = { ...c, confidence: r3(confirmed(c) ? Math.max(c.confidence, 0.75) + 0.05 : c.confidence * 0.85) };
      if (!out.some(confirmed)) out.push({ value: parts.amount, confidence: 0.75, evidence: [{ page: printed.page, bbox: printed.bbox, text: printed.text }], source: 'entity', order: printed.line.order });
    }
  }
  if (payment?.withChange && !out.some((c) => same(c.value, payment.amount))) {
    // Printed before the payment lines, not only as the amount tendered.
    const printed = ctx.entities.find((e) => e.type === 'money' && e.line.order < payment.order && same((e.value as { amount: number }).amount, payment.amount));
    if (printed) out.push({ value: payment.amount, confidence: 0.75, evidence: [{ page: printed.page, bbox: printed.bbox, text: printed.text }], source: 'entity', order: printed.line.order });
  }
  return out;
}

const ROUNDED_THEN_TOTAL = /\bround(?:ed)?\s+(?:total|amount)\b/i;
const TOTAL_WORD = /\b(?:total|amount|jumlah)\b/i;
const ROUNDING_WORD = /\bround(?:ed|ing)?\b/gi;

/**
 * Whether a total's label says the amount is rounded: "Rounded Total", or a total word with a
 * rounding word after it on its line ("Total After Rounding"). The rounding word is looked for
 * once, after the line's first total word: /\b(?:total|…)\b.*\bround…/ scanned the rest of the
 * line from every total word, quadratic in a line of them.
 */
export function saysRounded(label: string): boolean {
  if (ROUNDED_THEN_TOTAL.test(label)) return true;
  return label.split(/[\n\r\u2028\u2029]/).some((line) => {
    const total = TOTAL_WORD.exec(line);
    if (!total) return false;
    ROUNDING_WORD.lastIndex = total.index + total[0].length;
    return ROUNDING_WORD.test(line);
  });
}

/** The words a value was read under: its own line, else the row to its left (a label and its amount set apart) or the line above. */
function labelLineOf(c: Candidate, ctx: ScalarContext): string {
  const line = ctx.lines.find((l) => l.order === c.order);
  if (!line || /\p{L}{3}/u.test(line.text)) return line?.text ?? '';
  const [, top, , bottom] = line.bbox;
  const left = ctx.lines.filter((l) => l.page === line.page && l !== line && l.bbox[2] <= line.bbox[0] && Math.min(bottom, l.bbox[3]) - Math.max(top, l.bbox[1]) > 0.5 * (bottom - top));
  if (left.length) return left.map((l) => l.text).join(' ');
  return ctx.lines.find((l) => l.order === c.order - 1)?.text ?? '';
}

/**
 * The total after rounding, read from its label before any summary: the amount payable, over
 * every other reading printed above it ("TOTAL SALES INCL. GST 48.93", "ROUNDING ADJUSTMENT
 * 0.02", "TOTAL AFTER ROUNDING 48.95").
 */
function roundedTotal(candidates: Candidate[], ctx: ScalarContext, cut: number): Candidate | null {
  return candidates.find((c) => c.source !== 'entity' && typeof c.value === 'number' && c.value > 0 && c.order < cut && saysRounded(labelLineOf(c, ctx))) ?? null;
}

/**
 * Another reading printed above the rounded total, which the rounded total outweighs: the total
 * before rounding, or a number OCR ran into a total's label ("Total 2" for an item count).
 */
const printedAboveRounded = (c: Candidate, rounded: Candidate) => typeof c.value === 'number' && c.order < rounded.order && !same(c.value, rounded.value as number);
