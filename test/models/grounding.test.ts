// Grounding, answer reading, budgets and chunk merging on real invoices (../shared/data): the
// canonical document comes from the real pipeline; OCR noise is simulated by changing a word.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CanonicalJson, runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { textLines } from '../../src/pipeline/entities/text.js';
import { schemaFields } from '../../src/pipeline/extract/index.js';
import { FUZZY_FLOOR, Grounder } from '../../src/models/extraction/grounding.js';
import { similarity, similarityAtLeast } from '../../src/lib/edit-distance.js';
import { buildData, coerceValue, readAnswer } from '../../src/models/extraction/answer.js';
import { budgetOf, chunkByBudget, cutToTokens, splitToTokens } from '../../src/models/extraction/budget.js';
import { promptPages, userPrompt } from '../../src/models/extraction/prompt.js';
import { mergeReadings } from '../../src/models/extraction/extract.js';
import { data } from '../helpers/documents.js';

const TRUTH = JSON.parse(fs.readFileSync(data('invoice2data/compare/AzureInterior.json'), 'utf8'))[0];
let azure: CanonicalJson;

beforeAll(async () => {
  azure = toCanonicalJson(await runCanonical(new Uint8Array(fs.readFileSync(data('invoice2data/compare/AzureInterior.pdf')))));
});

/** The document with every word `from` read as `to` (what a noisy OCR would have printed). */
function misread(doc: CanonicalJson, from: string, to: string): CanonicalJson {
  const copy = structuredClone(doc);
  let changed = 0;
  for (const page of copy.pages) for (const block of page.blocks) for (const line of block.lines) for (const word of line.words) {
    if (word.text.includes(from)) {
      word.text = word.text.replace(from, to);
      changed++;
    }
  }
  expect(changed).toBeGreaterThan(0);
  return copy;
}

describe('grounding', () => {
  it('finds the ground truth values on the page: text, amounts, dates (printed MM/DD/YYYY), e-mail', () => {
    const g = new Grounder(textLines(azure));
    const invoice = g.ground(TRUTH.invoice_number, 'string')!;
    expect(invoice.score).toBe(1);
    expect(invoice.evidence.page).toBe(1);
    expect(invoice.evidence.text).toContain(TRUTH.invoice_number);
    expect(g.ground(TRUTH.amount, 'number')!.evidence.text).toMatch(/279\.84/);
    expect(g.ground(TRUTH.amount_tax, 'number')).not.toBeNull();
    expect(g.ground(TRUTH.date, 'date')!.evidence.text).toMatch(/03\/20\/2023/);
    expect(g.ground(TRUTH.partner_email, 'string')!.score).toBe(1);
    expect(g.ground(TRUTH.partner_street, 'string')).not.toBeNull();
  });

  it('does not find what is not printed', () => {
    const g = new Grounder(textLines(azure));
    expect(g.ground('PO-58213-XQ', 'string')).toBeNull();
    expect(g.ground(297.84, 'number')).toBeNull();
    expect(g.ground('2023-03-21', 'date')).toBeNull();
    expect(g.ground('Globex Corporation', 'string')).toBeNull();
  });

  it('tolerates OCR noise: a misread character in an identifier, O for 0 inside an amount', () => {
    const noisy = new Grounder(textLines(misread(azure, '0008', '0O08')));
    const hit = noisy.ground(TRUTH.invoice_number, 'string')!;
    expect(hit.score).toBeGreaterThanOrEqual(0.85);
    expect(hit.score).toBeLessThan(1);
    expect(hit.evidence.text).toContain('0O08');
    const amounts = new Grounder(textLines(misread(azure, '279.84', '2O9.84')));
    expect(amounts.ground(209.84, 'number')!.evidence.text).toBe('2O9.84');
  });

  it('does not take another number for the value: one digit more, less or different is not OCR noise', () => {
    const g = new Grounder(textLines(azure));
    expect(TRUTH.invoice_number).toBe('INV/2023/03/0008');
    for (const invented of ['INV/2023/03/0009', 'INV/2023/03/00081', 'INV/2023/03/008', 'INV/2024/03/0008']) expect(g.ground(invented, 'string'), invented).toBeNull();
    // A letter misread among the digits still matches.
    expect(new Grounder(textLines(misread(azure, '2023/03/0008', '2O23/03/0008'))).ground(TRUTH.invoice_number, 'string')).not.toBeNull();
  });

  it('prefers the page the model named among equal matches', () => {
    const g = new Grounder(textLines(azure));
    expect(g.ground(TRUTH.invoice_number, 'string', 1)!.evidence.page).toBe(1);
  });
});

describe('similarity with a floor', () => {
  // Strings a few edits apart (and some far apart) from one alphabet small enough to collide.
  function variants(count: number): [string, string][] {
    let seed = 42;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const letters = 'abcde01Ωé';
    const word = (length: number) => Array.from({ length }, () => letters[next(letters.length)]).join('');
    return Array.from({ length: count }, () => {
      const a = word(1 + next(24));
      let b = a;
      for (let edits = next(6); edits > 0; edits--) {
        const at = next(b.length + 1);
        const kind = next(3);
        b = kind === 0 ? b.slice(0, at) + word(1) + b.slice(at) : kind === 1 ? b.slice(0, at) + b.slice(at + 1) : b.slice(0, at) + word(1) + b.slice(at + 1);
      }
      return next(5) === 0 ? [a, word(1 + next(24))] : [a, b];
    });
  }

  it('answers the full edit distance\'s similarity whenever it reaches the floor, and 0 below it', () => {
    let reached = 0;
    for (const floor of [FUZZY_FLOOR, 0.5, 0.9]) {
      for (const [a, b] of variants(3000)) {
        const full = similarity(a, b);
        expect(similarityAtLeast(a, b, floor), `${a} / ${b} at ${floor}`).toBe(full >= floor ? full : 0);
        if (full >= floor && full < 1) reached++;
      }
    }
    // Enough near matches that the band's arithmetic is exercised, not only the early refusals.
    expect(reached).toBeGreaterThan(500);
  });

  it('grounds the same values in a long document as a window-by-window scan with the full distance', async () => {
    const doc = toCanonicalJson(await runCanonical(new Uint8Array(fs.readFileSync(data('pdf-realworld/pdfs/chelsea_pdta.pdf')))));
    const lines = textLines(doc);
    const g = new Grounder(lines);
    // The reference: every window of each page's folded words that starts like the value, compared in full.
    const pages = new Map<number, string[]>();
    for (const line of lines) {
      const own = pages.get(line.page) ?? [];
      pages.set(line.page, own);
      for (const m of line.folded.text.matchAll(/[\p{L}\p{N}]+/gu)) own.push(m[0]);
    }
    const reference = (target: string) => {
      const scores: [number, number][] = [];
      for (const [page, words] of pages) {
        for (let i = 0; i < words.length; i++) {
          if (words[i]![0] !== target[0] && words[i]![1] !== target[1]) continue;
          let joined = '';
          let j = i;
          while (j < words.length && joined.length < target.length) joined += words[j++];
          const score = joined === target ? 1 : similarity(joined, target);
          if (score < FUZZY_FLOOR) continue;
          scores.push([page, Math.round(score * 1000) / 1000]);
          if (score === 1) i = j - 1;
        }
      }
      return scores;
    };
    // Words of the document (long enough to be matched fuzzily, without digits), as printed and with a letter changed.
    const probes = lines.filter((_, i) => i % 29 === 0).flatMap((l) => {
      const words = l.folded.text.split(/[^\p{L}]+/u).filter((w) => w.length >= 6);
      return words.slice(0, 2).flatMap((w) => [w, `${w.slice(0, 3)}q${w.slice(4)}`]);
    });
    expect(probes.length).toBeGreaterThan(40);
    let fuzzy = 0;
    for (const probe of probes) {
      const expected = reference(probe);
      const found = g.matches(probe, 'string').map((m): [number, number] => [m.evidence.page, m.score]);
      expect(found, probe).toEqual(expected);
      fuzzy += expected.filter(([, score]) => score < 1).length;
    }
    // Near matches were among them, not only exact ones.
    expect(fuzzy).toBeGreaterThan(20);
  });
});

describe('reading an answer against the template', () => {
  const fields = schemaFields({
    type: 'object',
    properties: {
      total: { type: 'number' },
      issued: { type: 'string', format: 'date' },
      currency: { type: 'string', enum: ['USD', 'EUR'] },
      lines: { type: 'array', items: { type: 'object', properties: { description: { type: 'string' }, qty: { type: 'integer' } } } },
    },
  });

  it('coerces printed forms to the field types', () => {
    expect(coerceValue({ type: 'number' }, '1.234,50 €')).toEqual({ value: 1234.5 });
    expect(coerceValue({ type: 'number' }, '$ 279.84')).toEqual({ value: 279.84 });
    expect(coerceValue({ type: 'date' }, '20 March 2023')).toEqual({ value: '2023-03-20' });
    expect(coerceValue({ type: 'integer' }, '2.5')).toHaveProperty('error');
    expect(coerceValue({ type: 'string', enum: ['USD', 'EUR'] }, 'usd')).toEqual({ value: 'USD' });
  });

  it('reports what does not fit and rebuilds the data from what does', () => {
    const read = readAnswer(fields, { total: 'n/a', issued: '2023-03-20', currency: 'GBP', lines: [{ description: 'Desk', qty: '2' }, { description: 'Chair', qty: 1 }] });
    expect(read.problems).toEqual(['total: expected a number, got "n/a"', 'currency: expected one of "USD", "EUR", got "GBP"']);
    expect(buildData(fields, read)).toEqual({ issued: '2023-03-20', lines: [{ description: 'Desk', qty: 2 }, { description: 'Chair', qty: 1 }] });
  });
});

describe('prompt budget and chunks', () => {
  it('reads prompt_budget_policy keys with defaults', () => {
    expect(budgetOf({})).toMatchObject({ pagesPerChunk: 4, tokensPerPage: 3000, tokensPerCall: 24000, imageTokensPerPage: 1600, sendPageImages: true });
    expect(budgetOf({ pages_per_chunk: 2, tokens_per_call: 5000, send_page_images: false, tokens_per_page: -1 })).toMatchObject({ pagesPerChunk: 2, tokensPerCall: 5000, sendPageImages: false, tokensPerPage: 3000 });
  });

  it('splits pages by pages and by tokens per call; cuts a long page', () => {
    const pages = [1, 2, 3, 4, 5, 6, 7];
    expect(chunkByBudget(pages, () => 1000, budgetOf({ pages_per_chunk: 3 }))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(chunkByBudget(pages, () => 1000, budgetOf({ tokens_per_call: 2500 }))).toEqual([[1, 2], [3, 4], [5, 6], [7]]);
    const cut = cutToTokens('line\n'.repeat(1000), 100);
    expect(cut.cut).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(400);
  });

  it('sends a long page without its image in parts that leave nothing out; one with its image is cut', () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i} of a dense page`).join('\n');
    const parts = splitToTokens(text, 50);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.length <= 200)).toBe(true);
    expect(parts.join('\n')).toBe(text);
    const lines = textLines(azure);
    const whole = lines.filter((l) => l.page === 1).map((l) => l.text).join('\n');
    const tight = { tokens_per_page: 100, pages_per_chunk: 2 };
    // Images on, and the page has one: cut, and the prompt says the image shows the rest.
    const withImage = promptPages(azure.pages, lines, budgetOf(tight), new Set([1]));
    expect(withImage).toHaveLength(1);
    expect(withImage[0]).toMatchObject({ cut: true });
    expect(userPrompt(withImage, 1)).toContain('(text cut here; the page image shows the rest)');
    // No image to send (send_page_images off, or a page without one): every word, in parts, two to a call.
    for (const pages of [promptPages(azure.pages, lines, budgetOf({ ...tight, send_page_images: false })), promptPages(azure.pages, lines, budgetOf(tight), new Set())]) {
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.map((p) => p.text).join('\n')).toBe(whole);
      expect(pages.map((p) => p.part)).toEqual(pages.map((_, i) => ({ index: i + 1, of: pages.length })));
      const chunks = chunkByBudget(pages, (p) => p.tokens, budgetOf(tight));
      expect(userPrompt(chunks[0]!, 1, [], false)).toMatch(/^Page 1 \(parts 1 to 2 of \d+\) of a 1-page document[^]*--- page 1 \(part 1 of \d+\) ---[^]*--- page 1 \(part 2 of \d+\) ---/);
      expect(userPrompt(chunks[0]!, 1, [], false)).not.toContain('cut here');
    }
  });

  it('merges chunk answers: the grounded value wins (field_aware) or the last one (legacy); lists are concatenated', () => {
    const fields = schemaFields({ type: 'object', properties: { invoice_number: { type: 'string' }, lines: { type: 'array', items: { type: 'object', properties: { d: { type: 'string' } } } } } });
    const g = new Grounder(textLines(azure));
    const first = { read: readAnswer(fields, { invoice_number: TRUTH.invoice_number, lines: [{ d: 'a' }] }), pages: new Map() };
    const second = { read: readAnswer(fields, { invoice_number: 'INV-INVENTED', lines: [{ d: 'b' }, { d: 'c' }] }), pages: new Map() };
    const aware = mergeReadings(fields, [first, second], 'field_aware', g);
    expect(buildData(fields, aware.read)).toEqual({ invoice_number: TRUTH.invoice_number, lines: [{ d: 'a' }, { d: 'b' }, { d: 'c' }] });
    expect(buildData(fields, mergeReadings(fields, [first, second], 'legacy', g).read).invoice_number).toBe('INV-INVENTED');
  });
});
