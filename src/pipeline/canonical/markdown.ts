// Canonical pages → Markdown: headings as #, list items as "-" (or their own number), tables
// as pipe tables (first row as header; a spanning cell's text sits in its top-left position),
// slide notes as a quote. Pages are separated by an HTML comment that renders invisibly.
import { LIST_MARKER } from '../layout/blocks.js';
import type { Block, Page, PageSource, Table } from './model.js';

/** Pages whose Markdown would otherwise be silently empty say why. */
const PAGE_NOTES: Partial<Record<PageSource, string>> = { needs_ocr: 'no text layer, needs OCR', ocr_failed: 'OCR failed, no text' };

export function toMarkdown(pages: readonly Page[]): string {
  let out = '';
  let prevList = false;
  const add = (md: string, list: boolean) => {
    // Consecutive list items form one tight list; everything else is separated by a blank line.
    out += out === '' ? md : `${list && prevList ? '\n' : '\n\n'}${md}`;
    prevList = list;
  };
  for (const page of pages) {
    const note = PAGE_NOTES[page.source];
    if (pages.length > 1 || note) add(`<!-- page ${page.page_number}${note ? `: ${note}` : ''} -->`, false);
    for (const block of page.blocks) {
      const md = blockMarkdown(block, page.tables);
      if (md !== '') add(md, block.type === 'list_item');
    }
  }
  return out === '' ? '' : `${out}\n`;
}

function blockMarkdown(block: Block, tables: readonly Table[]): string {
  switch (block.type) {
    case 'heading':
      return `${'#'.repeat(Math.min(6, Math.max(1, block.level ?? 2)))} ${oneLine(block.text)}`;
    case 'list_item':
      return listItem(block.text);
    case 'table': {
      const table = block.table_index === undefined ? undefined : tables[block.table_index];
      return table ? pipeTable(table) : escapeStart(block.text);
    }
    case 'notes':
      return block.text
        .split('\n')
        .map((l, i) => `> ${i === 0 ? '**Notes:** ' : ''}${l}`)
        .join('\n');
    default:
      return escapeStart(block.text);
  }
}

function listItem(text: string): string {
  const [first, ...rest] = oneLine(text).split(' ');
  const body = rest.join(' ');
  const number = /^\(?(\d{1,3})[.)]$/.exec(first);
  if (number) return `${number[1]}. ${body}`;
  return LIST_MARKER.test(first) ? `- ${body}` : `- ${oneLine(text)}`;
}

export function pipeTable(table: Table): string {
  const grid: string[][] = Array.from({ length: table.rows }, () => new Array<string>(table.cols).fill(''));
  for (const c of table.cells) if (grid[c.row]) grid[c.row][c.col] = cell(c.text);
  const rows = grid.map((r) => `| ${r.join(' | ')} |`);
  const rule = `| ${new Array(table.cols).fill('---').join(' | ')} |`;
  return [rows[0], rule, ...rows.slice(1)].join('\n');
}

// A match starts only where a run of spaces starts: tried from inside one, a long run without a
// line break was scanned once per space (quadratic).
const oneLine = (s: string) => s.replace(/(?<!\s)\s*\n\s*/g, ' ').trim();
const cell = (s: string) => oneLine(s).replace(/\|/g, '\\|');
/** A paragraph that happens to start like Markdown syntax must not turn into it. */
const escapeStart = (s: string) => s.replace(/^([#>]|[-*+] |\d+[.)] )/, '\\$1');
