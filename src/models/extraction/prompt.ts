// The prompt of a model extraction: instructions built from the template (its fields, their
// descriptions and types, the template's prompt_overlay) and the pages' canonical text. With
// evidence planning on, the model also says on which page it read each value.
import type { DocPage, TextLine } from '../../pipeline/entities/text.js';
import type { FieldSpec } from '../../pipeline/extract/schema-fields.js';
import { type PromptBudget, cutToTokens, estimateTokens, splitToTokens } from './budget.js';

export interface PromptPage {
  page_number: number;
  text: string;
  /** Estimated tokens of the page in a call: its text and, when sent, its image. */
  tokens: number;
  cut: boolean;
  /**
   * Without page images, a page longer than tokens_per_page is sent whole in consecutive parts
   * (the text is all the model sees): which part this is, of how many.
   */
  part?: { index: number; of: number };
}

const RULES = [
  'You extract data from a business document for the schema you are given.',
  'Use only values printed in the document (its text below, and the page images where they are sent); never invent or infer a value that is not printed.',
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

/**
 * Each page's canonical text in reading order, at most the budget's tokens per page: a longer
 * page's text is cut when its image goes with it (the image shows the rest); when no image does
 * (send_page_images off, or a format without page images: text, slides), the text is all the
 * model sees, so it is sent whole, in parts of that size, each placed in the calls like a page.
 * `imagePages`: the pages that have an image (absent: every page).
 */
export function promptPages(pages: DocPage[], lines: TextLine[], budget: PromptBudget, imagePages?: ReadonlySet<number>): PromptPage[] {
  const byPage = new Map<number, string[]>();
  for (const line of lines) {
    const own = byPage.get(line.page) ?? [];
    own.push(line.text);
    byPage.set(line.page, own);
  }
  return pages.flatMap((page): PromptPage[] => {
    const whole = (byPage.get(page.page_number) ?? []).join('\n');
    if (!budget.sendPageImages || (imagePages && !imagePages.has(page.page_number))) {
      const parts = splitToTokens(whole, budget.tokensPerPage);
      if (parts.length === 1) return [{ page_number: page.page_number, text: whole, cut: false, tokens: estimateTokens(whole) }];
      return parts.map((text, i) => ({ page_number: page.page_number, text, cut: false, tokens: estimateTokens(text), part: { index: i + 1, of: parts.length } }));
    }
    const { text, cut } = cutToTokens(whole, budget.tokensPerPage);
    return [{ page_number: page.page_number, text, cut, tokens: estimateTokens(text) + budget.imageTokensPerPage }];
  });
}

/** Whether a call's pages (consecutive) are the whole document: from page 1's start to the last page's end. */
export function coversDocument(chunk: PromptPage[], pageCount: number): boolean {
  const first = chunk[0];
  const last = chunk[chunk.length - 1];
  if (!first || !last) return pageCount === 0;
  return first.page_number === 1 && (first.part?.index ?? 1) === 1 && last.page_number === pageCount && (last.part ? last.part.index === last.part.of : true);
}

const partOf = (p: PromptPage) => (p.part ? ` (part ${p.part.index} of ${p.part.of})` : '');

/** What a call's pages are of the document, when they are not all of it (parts named only where a page is not whole). */
function rangeOf(chunk: PromptPage[], pageCount: number): string {
  const first = chunk[0]!;
  const last = chunk[chunk.length - 1]!;
  const from = first.part && first.part.index > 1 ? partOf(first) : '';
  const to = last.part && last.part.index < last.part.of ? partOf(last) : '';
  if (first.page_number !== last.page_number) return `Pages ${first.page_number}${from} to ${last.page_number}${to} of a ${pageCount}-page document (extract what these pages show).`;
  const part = first === last ? partOf(first) : from || to ? ` (parts ${first.part!.index} to ${last.part!.index} of ${first.part!.of})` : '';
  return `Page ${first.page_number}${part} of a ${pageCount}-page document (extract what ${part ? 'this text shows' : 'this page shows'}).`;
}

/** `imagesSent`: whether the page images go with the text (prompt_budget_policy.send_page_images). */
export function userPrompt(chunk: PromptPage[], pageCount: number, corrections: string[] = [], imagesSent = true): string {
  const parts = [coversDocument(chunk, pageCount) ? `A ${pageCount}-page document.` : rangeOf(chunk, pageCount), 'The text of each page, as read from it:'];
  // Only a page sent with its image is ever cut (promptPages).
  for (const page of chunk) parts.push(`--- page ${page.page_number}${partOf(page)} ---`, page.text || '(no text)', ...(page.cut && imagesSent ? ['(text cut here; the page image shows the rest)'] : []));
  if (corrections.length) parts.push('', 'Your previous answer did not fit the schema:', ...corrections.map((c) => `- ${c}`), 'Answer again with these corrected.');
  return parts.join('\n');
}
