// Reading order and headings on docling's test PDFs, checked loosely against docling's reviewed
// Markdown (a reference, not ground truth): its headings must come out as headings, in order,
// and its paragraphs must appear in the canonical text in its order.
import { afterAll, describe, expect, it } from 'vitest';
import { runCanonical } from '../../src/pipeline/index.js';
import { closeOcrEngines } from '../../src/pipeline/ocr/index.js';
import { readData, readDataText, squash } from './data.js';

/** Length of the longest common subsequence: how many of `expected` appear in order in `got`. */
function inOrder(expected: string[], got: string[]): number {
  const l = Array.from({ length: expected.length + 1 }, () => new Array<number>(got.length + 1).fill(0));
  for (let i = 1; i <= expected.length; i++)
    for (let j = 1; j <= got.length; j++)
      l[i][j] = expected[i - 1] === got[j - 1] ? l[i - 1][j - 1] + 1 : Math.max(l[i - 1][j], l[i][j - 1]);
  return l[expected.length][got.length];
}

async function docling(name: string) {
  const md = readDataText(`docling/pdf/groundtruth/${name}.md`);
  const doc = await runCanonical(readData(`docling/pdf/sources/${name}.pdf`));
  const expectedHeadings = md
    .split('\n')
    .filter((l) => /^#+ /.test(l))
    .map((l) => squash(l.replace(/^#+ /, '')));
  const headings = doc.pages.flatMap((p) => p.blocks.filter((b) => b.type === 'heading').map((b) => squash(b.text)));
  return { md, doc, expectedHeadings, headings };
}

describe('headings against docling', () => {
  it.each([
    ['multi_page', 11],
    ['amt_handbook_sample', 3],
    ['2305.03393v1-pg9', 2],
    ['code_and_formula', 2],
  ])('%s: all %i reference headings, in order', async (name, count) => {
    const { expectedHeadings, headings } = await docling(name);
    expect(expectedHeadings).toHaveLength(count);
    expect(inOrder(expectedHeadings, headings)).toBe(count);
  });

  it('redp5110_sampled (a 10-page IBM Redbook): most reference headings, in order, few extras', async () => {
    const { expectedHeadings, headings } = await docling('redp5110_sampled');
    expect(inOrder(expectedHeadings, headings)).toBeGreaterThanOrEqual(Math.ceil(expectedHeadings.length * 0.75));
    expect(headings.length).toBeLessThan(expectedHeadings.length * 2.5);
  });

  it('renders headings as Markdown headings', async () => {
    const { doc } = await docling('multi_page');
    expect(doc.markdown).toMatch(/^#+ Pre-Digital Era \(19th - Early 20th Century\)$/m);
  });
});

describe('reading order', () => {
  it('multi_page: every reference paragraph appears, in the reference order', async () => {
    const { md, doc } = await docling('multi_page');
    const paragraphs = md
      .split('\n\n')
      .map((p) => p.trim())
      .filter((p) => p !== '' && !/^(#|\||<!--|- )/.test(p))
      .map((p) => squash(p).slice(0, 40));
    const text = squash(doc.text);
    const positions = paragraphs.map((p) => text.indexOf(p));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('a two-column page is read column by column', async () => {
    const { doc } = await docling('amt_handbook_sample');
    const text = squash(doc.text);
    // Left column, top to bottom, then the right column: each passage after the previous one.
    let from = 0;
    const after = (s: string) => {
      const at = text.indexOf(squash(s), from);
      if (at >= 0) from = at;
      return at;
    };
    const found = [
      'pulleys, provided the inner race of the bearing is clamped',
      'Boots Self-Locking Nut',
      'reused without impairing its efficiency',
      'the most common ranges in size for No. 6',
      'Stainless Steel Self-Locking Nut',
      'The stainless steel self-locking nut may be spun on and off',
      'Elastic Stop Nut',
    ].map(after);
    expect(found.every((p) => p >= 0)).toBe(true);
    // The gutter is never crossed inside a line: no left-column line runs on into the right one.
    const lines = doc.pages[0].blocks.flatMap((b) => b.lines);
    expect(lines.filter((l) => l.bbox[0] < 300 && l.bbox[2] > 330)).toHaveLength(0);
  });

  it('reports word boxes in page points from the top-left, inside the page', async () => {
    const { doc } = await docling('amt_handbook_sample');
    const page = doc.pages[0];
    const first = page.blocks[0].lines[0].words[0];
    expect(first.text).toBe('pulleys,');
    expect(first.bbox[1]).toBeLessThan(100); // first line of the page: near the top
    for (const b of page.blocks)
      for (const l of b.lines)
        for (const w of l.words) {
          expect(w.bbox[0]).toBeGreaterThanOrEqual(0);
          expect(w.bbox[2]).toBeLessThanOrEqual(page.width);
          expect(w.bbox[3]).toBeLessThanOrEqual(page.height);
          expect(w.bbox[0]).toBeLessThan(w.bbox[2]);
        }
  });

  it('a page with /Rotate reads like its unrotated twin, in its displayed (turned) size', async () => {
    const upright = await runCanonical(readData('pdf-realworld/pdfs/nics-background-checks-2015-11.pdf'));
    const rotated = await runCanonical(readData('pdf-realworld/pdfs/nics-background-checks-2015-11-rotated.pdf'));
    expect(rotated.pages[0].width).toBeCloseTo(upright.pages[0].height, 0);
    expect(rotated.pages[0].height).toBeCloseTo(upright.pages[0].width, 0);
    expect(squash(rotated.text).slice(0, 200)).toBe(squash(upright.text).slice(0, 200));
  });
});

describe('reading order of a two-column scan', () => {
  afterAll(() => closeOcrEngines());

  it(
    '8087_054.3B.tif (a magazine page, a caption over the gutter): through OCR, the left column before the right',
    async () => {
      const doc = await runCanonical(readData('ocr-text/8087_054.3B.tif'), { ocr: { pageTimeoutMs: 600_000 } });
      const text = squash(doc.text);
      const at = (s: string) => text.indexOf(squash(s));
      // Passages of each column (from the page's ground-truth text), top and bottom.
      const left = ['As I drove along the Dalmatian coast', 'fortress walls squatting at the foot', 'This doesn', 'augur well for peace'];
      const right = ['receives flour, sugar, margarine', 'Are there still risks? One official said'];
      for (const s of [...left, ...right]) expect(at(s), s).toBeGreaterThanOrEqual(0);
      expect(Math.max(...left.map(at))).toBeLessThan(Math.min(...right.map(at)));
    },
    900_000,
  );
});
