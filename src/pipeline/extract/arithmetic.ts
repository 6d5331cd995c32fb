// The headline amounts check each other: subtotal + tax = total. When they agree, each is
// confirmed by the other two and its confidence rises; when they do not, the one the others
// contradict is replaced by the printed amount that makes the sum hold, or, with none printed,
// all three drop below the review floor so that the contradiction never passes silently.
import type { LocatedEntity } from '../entities/recognize.js';
import type { FieldSpec } from './schema-fields.js';

interface Result {
  value: unknown;
  confidence: number;
  evidence: { page: number; bbox: [number, number, number, number]; text: string }[];
}

/** Below the default review_confidence_floor (0.7): a contradicted amount goes to review. */
const CONTRADICTED = 0.6;
const close = (a: number, b: number) => Math.abs(a - b) < 0.011;
const round2 = (v: number) => Math.round(v * 100) / 100;

function pathOf(fields: FieldSpec[], concept: string): string | null {
  const f = fields.find((x) => x.kind === 'scalar' && x.concept?.id === concept && (x.type === 'number' || x.type === 'integer'));
  return f?.path ?? null;
}

/** Cross-checks total, subtotal and tax in place (fieldResults, confidences and data by path). */
export function crossCheckAmounts(fields: FieldSpec[], results: Record<string, Result>, confidences: Record<string, number>, setValue: (path: string, value: unknown) => void, entities: LocatedEntity[]): void {
  const paths = { total: pathOf(fields, 'total'), subtotal: pathOf(fields, 'subtotal'), tax: pathOf(fields, 'tax_amount') };
  if (!paths.total || !paths.subtotal || !paths.tax) return;
  const num = (p: string) => (typeof results[p]?.value === 'number' ? (results[p]!.value as number) : null);
  const total = num(paths.total);
  const subtotal = num(paths.subtotal);
  const tax = num(paths.tax);
  if (total === null || subtotal === null || tax === null) return;
  const set = (p: string, confidence: number) => {
    results[p] = { ...results[p]!, confidence: Math.round(confidence * 1000) / 1000 };
    confidences[p] = results[p]!.confidence;
  };
  if (close(subtotal + tax, total)) {
    for (const p of [paths.total, paths.subtotal, paths.tax]) set(p, Math.max(results[p]!.confidence, Math.min(0.97, results[p]!.confidence + 0.1)));
    return;
  }
  // Which one do the other two contradict? The amount that would make the sum hold must be printed.
  const printed = (amount: number) => entities.find((e) => e.type === 'money' && close((e.value as { amount: number }).amount, amount));
  const repairs: [string, number][] = [
    [paths.tax, round2(total - subtotal)],
    [paths.subtotal, round2(total - tax)],
    [paths.total, round2(subtotal + tax)],
  ];
  // A repair keeps the document's sign: positive on an invoice, negative on a credit note.
  const sign = Math.sign(subtotal) || Math.sign(total);
  for (const [path, amount] of repairs) {
    if (amount === 0 || Math.sign(amount) !== sign) continue;
    const entity = printed(amount);
    if (!entity) continue;
    results[path] = { value: amount, confidence: 0.75, evidence: [{ page: entity.page, bbox: entity.bbox, text: entity.text }] };
    confidences[path] = 0.75;
    setValue(path, amount);
    return;
  }
  for (const p of [paths.total, paths.subtotal, paths.tax]) set(p, Math.min(results[p]!.confidence, CONTRADICTED));
}
