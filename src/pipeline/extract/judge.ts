// Judge mode (`judge_mode_enabled`): a second, independent extraction votes on every field, and a
// field whose two values disagree below the agreement floor opens a review (`low_agreement:<field>`).
//
// Until a judge model endpoint exists, the second extraction is the embedded extractor run on the
// document's second reading (pipeline/ingest/ocr-pages.ts): the other OCR engine's text for a
// scanned page, an OCR of the rendered page for a text-layer page. Disagreement there means the
// reading itself is in doubt (an engine misread a digit, a text layer that does not say what the
// page shows), which is exactly what a person should look at.
import type { DocInput } from '../entities/text.js';
import { type ExtractionOptions, type ExtractionOutput, type ExtractionPolicy, type ExtractionTemplate, agreementOf, runExtraction } from './index.js';

export interface JudgeSummary {
  /** Where the second extraction came from. */
  method: 'second_reading';
  /** Agreement per field path in [0, 1] (fields neither extraction found are left out). */
  agreement: Record<string, number>;
  /** The judge's value for every field where it disagreed (agreement below 1). */
  disagreements: Record<string, { value: unknown; judge_value: unknown; agreement: number }>;
}

/** The primary extraction, decided with the judge's agreement; and what the judge said. */
export function runJudgedExtraction(
  primary: DocInput,
  second: DocInput,
  template: ExtractionTemplate,
  policy: ExtractionPolicy,
  options: ExtractionOptions = {},
): ExtractionOutput & { judge: JudgeSummary } {
  const judge = runExtraction(second, template, policy, options);
  const first = runExtraction(primary, template, policy, options);
  const agreement = agreementOf(first.extraction.fields, judge.extraction.fields);
  // Decided again with the agreement (extraction is a small fraction of a run; see bench/).
  const out = runExtraction(primary, template, policy, { ...options, agreement });
  const disagreements: JudgeSummary['disagreements'] = {};
  for (const [path, score] of Object.entries(agreement)) {
    if (score < 1) disagreements[path] = { value: out.extraction.fields[path]?.value ?? null, judge_value: judge.extraction.fields[path]?.value ?? null, agreement: score };
  }
  return { ...out, judge: { method: 'second_reading', agreement, disagreements } };
}
