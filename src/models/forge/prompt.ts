// What a forge endpoint is asked: how a Quire template works and how it is scored (system), the
// samples (their text, printed key-values and expected outputs) and, from the second iteration,
// the last candidate with its scores and disagreements (user). The answer is a tool call whose
// input is the whole candidate template.
import { RULE_KINDS, RULE_KIND_NAMES } from '../../pipeline/extract/rule-kinds.js';
import type { Evaluation, ForgeCandidate, ForgeSample } from '../../pipeline/forge/score.js';
import { cutToTokens } from '../extraction/budget.js';
import type { AnswerTool } from '../backends/types.js';

/** Text of one sample in the prompt: 20 samples stay near 50k tokens. */
export const SAMPLE_TEXT_TOKENS = 2_500;
/** Printed key-value pairs listed per sample (the labels the extractor anchors on). */
const KEY_VALUES_PER_SAMPLE = 40;
/** Disagreements reported back per iteration. */
const DISAGREEMENTS_SHOWN = 30;

export const PROPOSE_TOOL: AnswerTool = {
  name: 'propose_template',
  description: 'Propose the whole extraction template (JSON schema, validation rules, prompt overlay) for these documents.',
};

/** The tool's input schema: a ForgeCandidate and a note on what changed. */
export const CANDIDATE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    json_schema: {
      type: 'object',
      description: 'JSON Schema of the extracted data: {"type": "object", "properties": {<field>: {...}}}',
      properties: { type: { type: 'string', enum: ['object'] }, properties: { type: 'object' } },
      required: ['type', 'properties'],
    },
    validation_rules: { type: 'array', items: { type: 'object' }, description: 'Rules every good document of this kind passes' },
    prompt_overlay: { type: 'string', description: 'Instructions for a vision-language model extracting with this template' },
    notes: { type: 'string', description: 'What you changed from the last candidate and why, in one or two sentences' },
  },
  required: ['json_schema', 'validation_rules', 'prompt_overlay', 'notes'],
};

const SYSTEM = [
  'You write document extraction templates for Quire. A template has three parts:',
  '1. json_schema: a JSON Schema of type object. Each property is a field to extract, named in snake_case. Give each field a `type` (string, number, integer, boolean), `format: "date"` for dates (values become YYYY-MM-DD), and `x-aliases`: the label(s) the documents print next to the value, copied exactly as printed. A string field may have a `pattern` (a regular expression of the value\'s shape, no anchors); the extractor then takes the first text of that shape after the label. A table is an array of objects whose item properties carry their column headers in `x-aliases`.',
  '2. validation_rules: rules that hold on every good document of this kind. Each is {kind, field | fields, params, severity: "error" | "warn", message}. Kinds:',
  ...RULE_KIND_NAMES.map((k) => `   - ${k}: ${RULE_KINDS[k].description} Example: ${JSON.stringify(RULE_KINDS[k].example)}`),
  '3. prompt_overlay: short instructions for a vision-language model extracting these documents.',
  '',
  "Quire extracts every sample with your template (it finds each field's value by its labels and shape) and scores the result: expected_agreement (values equal to the expected outputs), field_coverage (fields that got a value), validation_pass_rate (rules that held); overall = 0.6 × agreement + 0.2 × coverage + 0.2 × validation (without expected outputs: half coverage, half validation).",
  'When expected outputs are given, use exactly their field names and types. Keep only rules that hold on every sample. Answer by calling the tool with the whole template, not a change list.',
].join('\n');

export const systemPrompt = (): string => SYSTEM;

function sampleBlock(sample: ForgeSample, index: number): string {
  const keyValues = sample.canonical.pages.flatMap((p) => p.key_values).slice(0, KEY_VALUES_PER_SAMPLE);
  const text = cutToTokens(sample.canonical.text, SAMPLE_TEXT_TOKENS);
  return [
    `### Sample ${index + 1} (${sample.job_id})`,
    keyValues.length ? `Printed key-value pairs:\n${keyValues.map((kv) => `- ${JSON.stringify(kv.key)}: ${JSON.stringify(kv.value)}`).join('\n')}` : 'Printed key-value pairs: none found.',
    `Text${text.cut ? ' (cut)' : ''}:\n${text.text}`,
    sample.expected ? `Expected output: ${JSON.stringify(sample.expected)}` : 'Expected output: not given.',
  ].join('\n');
}

function feedbackBlock(previous: { candidate: ForgeCandidate; evaluation: Evaluation }, iteration: number): string {
  const { candidate, evaluation } = previous;
  const empty = Object.entries(evaluation.coverage).filter(([, share]) => share < 0.5).map(([field]) => field);
  const failed = evaluation.failedRules.map((i) => JSON.stringify(candidate.validation_rules[i]));
  const disagreements = evaluation.disagreements.slice(0, DISAGREEMENTS_SHOWN).map((d) => `- ${d.field} on ${d.job_id}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.got)}`);
  return [
    `## Your candidate of iteration ${iteration - 1}`,
    JSON.stringify(candidate),
    `Scores: ${JSON.stringify(evaluation.scores)}`,
    disagreements.length ? `Disagreements with the expected outputs (${evaluation.disagreements.length}):\n${disagreements.join('\n')}` : 'No disagreement with the expected outputs.',
    empty.length ? `Fields empty on most samples: ${empty.join(', ')}` : 'Every field got a value on most samples.',
    failed.length ? `Rules that failed on a sample:\n${failed.join('\n')}` : 'Every rule held on every sample.',
    'Improve the template: fix the labels or patterns of the disagreeing fields, drop what does not work, and propose the whole template again.',
  ].join('\n\n');
}

export function userPrompt(samples: ForgeSample[], hint: string | null, iteration: number, previous: { candidate: ForgeCandidate; evaluation: Evaluation } | null, corrections: string[] = []): string {
  const parts = [
    hint?.trim() ? `What the documents are: ${hint.trim()}` : '',
    `## ${samples.length} sample document(s) of one kind`,
    ...samples.map(sampleBlock),
    previous ? feedbackBlock(previous, iteration) : 'Propose the first template for these documents.',
    corrections.length ? `Your last answer could not be used:\n${corrections.map((c) => `- ${c}`).join('\n')}\nAnswer again with a corrected template.` : '',
  ];
  return parts.filter(Boolean).join('\n\n');
}
