import { describe, expect, it } from 'vitest';
import { toMarkdown } from './markdown.js';
import type { Page } from './model.js';

const page = (heading: string): Page => ({
  page_number: 1,
  width: 600,
  height: 800,
  source: 'text_layer',
  rotation: 0,
  blocks: [{ type: 'heading', text: heading, bbox: [0, 0, 600, 20], lines: [], confidence: 1, level: 1 }],
  tables: [],
  key_values: [],
});

describe('Markdown of a page', () => {
  it('writes a heading on one line', () => {
    expect(toMarkdown([page('Annual \n  report')])).toBe('# Annual report\n');
  });

  it('writes a heading with a 200 kB run of spaces and no line break in time linear in its length', () => {
    // The line-break regex was tried from every space of the run: 200 kB took over a minute.
    expect(toMarkdown([page('A' + ' \t'.repeat(100_000) + 'B')])).toBe('# A' + ' \t'.repeat(100_000) + 'B\n');
  });
});
