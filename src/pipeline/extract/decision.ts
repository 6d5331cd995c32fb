// The review decision (architecture.md "review decision"): field confidences, agreement between
// two extractions (judge mode) and validation results, against the template's review_thresholds
// or else the tenant policy, give the job's status and the reasons a person should look at it.
import { similarity as editSimilarity } from '../../lib/edit-distance.js';
import { genericPath } from './paths.js';
import type { ValidationEntry } from './rules.js';

export type DecisionStatus = 'completed' | 'needs_review' | 'rejected';

export interface ReviewThresholds {
  confidence_floor?: number;
  agreement_floor?: number;
  warn_count_threshold?: number;
}

export interface DecisionPolicy {
  review_confidence_floor: number;
  review_agreement_floor: number;
  review_warn_count_threshold: number;
}

export interface DecisionInput {
  /** Confidence of every field that has a value, by concrete path; required fields that are missing count as 0. */
  confidences: Record<string, number>;
  /** Agreement per field in [0, 1] when a second extraction voted (judge mode); absent otherwise. */
  agreement?: Record<string, number> | null;
  validation: ValidationEntry[];
  /** Rules broken with on_fail "reject". */
  rejected?: string[];
  thresholds?: ReviewThresholds | null;
  policy: DecisionPolicy;
}

export interface Decision {
  status: DecisionStatus;
  review_reasons: string[];
  /** The floors that applied, and where each came from. */
  thresholds: { confidence_floor: number; agreement_floor: number; warn_count_threshold: number; source: 'template' | 'policy' | 'mixed' };
}

/** Reasons name fields as templates do: item fields as `lines[].qty`, once each. */
export function decide(input: DecisionInput): Decision {
  const t = input.thresholds ?? {};
  const confidenceFloor = t.confidence_floor ?? input.policy.review_confidence_floor;
  const agreementFloor = t.agreement_floor ?? input.policy.review_agreement_floor;
  const warnThreshold = t.warn_count_threshold ?? input.policy.review_warn_count_threshold;
  const fromTemplate = [t.confidence_floor, t.agreement_floor, t.warn_count_threshold].filter((v) => v !== undefined).length;
  const reasons: string[] = [];
  const add = (r: string) => {
    if (!reasons.includes(r)) reasons.push(r);
  };
  for (const [path, confidence] of Object.entries(input.confidences)) {
    if (confidence < confidenceFloor) add(`low_confidence:${genericPath(path)}`);
  }
  for (const [path, agreement] of Object.entries(input.agreement ?? {})) {
    if (agreement < agreementFloor) add(`low_agreement:${genericPath(path)}`);
  }
  for (const v of input.validation) if (v.severity === 'error') add(`validation:${v.rule}`);
  const warns = input.validation.filter((v) => v.severity === 'warn').length;
  if (warns > 0 && warns >= warnThreshold) add('warn_count');
  for (const r of input.rejected ?? []) add(`validation:${r}`);
  const status: DecisionStatus = input.rejected?.length ? 'rejected' : reasons.length ? 'needs_review' : 'completed';
  return {
    status,
    review_reasons: reasons,
    thresholds: {
      confidence_floor: confidenceFloor,
      agreement_floor: agreementFloor,
      warn_count_threshold: warnThreshold,
      source: fromTemplate === 0 ? 'policy' : fromTemplate === 3 ? 'template' : 'mixed',
    },
  };
}

/**
 * Agreement between two extractions of the same document, field by field (judge mode): 1 where
 * both found the same value, a string similarity where texts differ, 0 where one found nothing.
 */
export function agreementOf(a: Record<string, { value: unknown }>, b: Record<string, { value: unknown }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const path of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[path]?.value;
    const y = b[path]?.value;
    if ((x === undefined || x === null) && (y === undefined || y === null)) continue;
    if (x === undefined || x === null || y === undefined || y === null) out[path] = 0;
    else if (typeof x === 'number' && typeof y === 'number') out[path] = Math.abs(x - y) <= 0.005 * Math.max(1, Math.abs(x)) ? 1 : 0;
    else out[path] = similarity(String(x), String(y));
  }
  return out;
}

function similarity(a: string, b: string): number {
  const x = a.trim().toLowerCase().replace(/\s+/g, ' ');
  const y = b.trim().toLowerCase().replace(/\s+/g, ' ');
  return Math.round(editSimilarity(x, y) * 1000) / 1000;
}
