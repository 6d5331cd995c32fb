// The prompt of a model extraction: instructions built from the template (its fields, their
// descriptions and types, the template's prompt_overlay) and the pages' canonical text. With
// evidence planning on, the model also says on which page it read each value.
import type { DocPage, TextLine } from '../../pipeline/entities/text.js';
import type { FieldSpec } from '../../pipeline/extract/schema-fields.js';
import { type PromptBudget, cutToTokens, estimateTokens } from './budget.js';

export interface PromptPage {
  page_number: number;
  text: string;
  /** Estimated tokens of the page in a call: its text and, when sent, its image. */
  tokens: number;
  cut: boolean;
}

const RULES = [
  'You extract data from a business document for the schema you are given.',
  'Use only values printed in the document (the page images and their text below); never invent or infer a value that is not printed.',
  'When a field is not in the document, give null (an empty list for lists).',
  'Copy identifiers, names and text exactly as printed. Give numbers and amounts as plain numbers without currency symbols or thousands separators, dates as YYYY-MM-DD.',
];

function describeField(field: FieldSpec, description: string | undefined): string {
  const type = field.kind === 'array_of_objects' ? `list of items with ${(field.columns ?? []).map((c) => `${c.key} (${c.type})`).join(', ')}` : field.kind === 'array_of_scalars' ? `list of ${field.type}` : field.type;
  return `- ${field.path} (${type}${field.required ? ', required' : ''})${description ? `: ${description}` : ''}${field.enum?.length ? ` One of: ${field.enum.map(String).join(', ')}.` : ''}`;
}

/** `description` of each field in the template schema, by path. */
function descriptions(schema: Record<string, unknown>, prefix = '', out = new Map<string, string>()): Map<string, string> {
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [key, sub] of Object.entries(props ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof sub?.description === 'string') out.set(path, sub.description);
    if (sub && typeof sub === 'object' && sub.properties) descriptions(sub, path, out);
  }
  return out;
}

export function systemPrompt(fields: FieldSpec[], schema: Record<string, unknown>, overlay: string | null | undefined, planning: boolean): string {
  const described = descriptions(schema);
  const parts = [
    ...RULES,
    planning
      ? 'Answer with `values` (the data, matching the schema) and `evidence_pages`: for every value you give, its field path (as listed below, with item indexes like lines[0].qty) and the page number it is printed on.'
      : 'Answer with the data, matching the schema.',
    '',
    'Fields:',
    ...fields.map((f) => describeField(f, described.get(f.path))),
  ];
  if (overlay?.trim()) parts.push('', 'Instructions for this kind of document:', overlay.trim());
  return parts.join('\n');
}

/** The schema the model answers: the template's, wrapped with evidence pages when planning. */
export function answerSchema(schema: Record<string, unknown>, planning: boolean): Record<string, unknown> {
  if (!planning) return schema;
  return {
    type: 'object',
    properties: {
      values: schema,
      evidence_pages: {
        type: 'array',
        description: 'The page each value is printed on.',
        items: { type: 'object', properties: { field: { type: 'string' }, page: { type: 'integer' } }, required: ['field', 'page'] },
      },
    },
    required: ['values'],
  };
}

/** Each page's canonical text in reading order, cut to the budget's tokens per page. */
export function promptPages(pages: DocPage[], lines: TextLine[], budget: PromptBudget): PromptPage[] {
  const byPage = new Map<number, string[]>();
  for (const line of lines) {
    const own = byPage.get(line.page) ?? [];
    own.push(line.text);
    byPage.set(line.page, own);
  }
  return pages.map((page) => {
    const { text, cut } = cutToTokens((byPage.get(page.page_number) ?? []).join('\n'), budget.tokensPerPage);
    return { page_number: page.page_number, text, cut, tokens: estimateTokens(text) + (budget.sendPageImages ? budget.imageTokensPerPage : 0) };
  });
}

/** `imagesSent`: whether the page images go with the text (prompt_budget_policy.send_page_images). */
export function userPrompt(chunk: PromptPage[], pageCount: number, corrections: string[] = [], imagesSent = true): string {
  const first = chunk[0]?.page_number ?? 1;
  const last = chunk[chunk.length - 1]?.page_number ?? first;
  const parts = [
    pageCount > chunk.length ? `Pages ${first} to ${last} of a ${pageCount}-page document (extract what these pages show).` : `A ${pageCount}-page document.`,
    'The text of each page, as read from it:',
  ];
  for (const page of chunk) parts.push(`--- page ${page.page_number} ---`, page.text || '(no text)', ...(page.cut ? [imagesSent ? '(text cut here; the page image shows the rest)' : '(text cut here; the rest of this page is not sent)'] : []));
  if (corrections.length) parts.push('', 'Your previous answer did not fit the schema:', ...corrections.map((c) => `- ${c}`), 'Answer again with these corrected.');
  return parts.join('\n');
}
