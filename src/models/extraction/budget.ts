// prompt_budget_policy: how much of a document goes into one model call. Keys (all optional):
//   pages_per_chunk        pages per call at most (shared with the embedded extractor's chunks); default 4
//   tokens_per_page        text tokens sent per page; a longer page's text is cut there, or, without
//                          page images, sent whole in parts of this size; default 3000
//   tokens_per_call        text and image tokens per call; pages beyond it go to the next call; default 24000
//   image_tokens_per_page  what one page image is counted as; default 1600 (a 100 dpi letter page)
//   send_page_images       false sends the text alone (text-only models); default true
import { DEFAULT_PAGES_PER_CHUNK } from '../../pipeline/extract/index.js';

export interface PromptBudget {
  pagesPerChunk: number;
  tokensPerPage: number;
  tokensPerCall: number;
  imageTokensPerPage: number;
  sendPageImages: boolean;
}

export const DEFAULT_BUDGET: PromptBudget = {
  pagesPerChunk: DEFAULT_PAGES_PER_CHUNK,
  tokensPerPage: 3000,
  tokensPerCall: 24_000,
  imageTokensPerPage: 1600,
  sendPageImages: true,
};

const positiveInt = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : fallback);
const nonNegativeInt = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fallback);

export function budgetOf(policy: Record<string, unknown> | undefined): PromptBudget {
  const p = policy ?? {};
  return {
    pagesPerChunk: positiveInt(p.pages_per_chunk, DEFAULT_BUDGET.pagesPerChunk),
    tokensPerPage: positiveInt(p.tokens_per_page, DEFAULT_BUDGET.tokensPerPage),
    tokensPerCall: positiveInt(p.tokens_per_call, DEFAULT_BUDGET.tokensPerCall),
    imageTokensPerPage: nonNegativeInt(p.image_tokens_per_page, DEFAULT_BUDGET.imageTokensPerPage),
    sendPageImages: p.send_page_images !== false,
  };
}

/** Tokens of a text, estimated as most tokenizers average on documents: about 4 characters each. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/** `text` cut to about `tokens` tokens, at a line end when there is one near. */
export function cutToTokens(text: string, tokens: number): { text: string; cut: boolean } {
  const max = tokens * 4;
  if (text.length <= max) return { text, cut: false };
  const lineEnd = text.lastIndexOf('\n', max);
  return { text: text.slice(0, lineEnd > max * 0.8 ? lineEnd : max), cut: true };
}

/** `text` in consecutive parts of about `tokens` tokens each, cut at line ends when there is one near; nothing is left out. */
export function splitToTokens(text: string, tokens: number): string[] {
  const parts: string[] = [];
  let rest = text;
  for (;;) {
    const { text: part, cut } = cutToTokens(rest, tokens);
    parts.push(part);
    if (!cut) return parts;
    // The line end a part stops at separates it from the next.
    rest = rest.slice(part.length).replace(/^\n/, '');
  }
}

/** Consecutive pages grouped into calls: at most pagesPerChunk pages and tokensPerCall tokens each (a page alone may exceed it). */
export function chunkByBudget<T>(pages: T[], cost: (page: T) => number, budget: PromptBudget): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const page of pages) {
    const c = cost(page);
    if (current.length && (current.length >= budget.pagesPerChunk || used + c > budget.tokensPerCall)) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(page);
    used += c;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
