// Tables against camelot's expected tables (tables-camelot/expected_tables.json): lattice (ruled)
// and stream (unruled) cases. The floors sit below today's scores (see bench/results) but high
// enough that losing spans, columns or a whole table fails the test.
import { describe, expect, it } from 'vitest';
import { runCanonical } from '../../src/pipeline/index.js';
import { CAMELOT, TABLE_CASES, scoreCase, toGrid } from '../../bench/lib/table-score.js';
import { readFileSync } from 'node:fs';

async function tablesOf(file: string, page: number) {
  const doc = await runCanonical(readFileSync(new URL(`files/${file}`, CAMELOT)), { pageRange: String(page) });
  return doc.pages[0];
}

const byName = (name: string) => TABLE_CASES.find((c) => c.name === name)!;

describe('ruled (lattice) tables', () => {
  it.each([
    ['lattice', 0.95],
    ['lattice_two_tables', 0.95],
    ['lattice_column_span', 0.95],
    ['lattice_split_text', 0.85],
    ['lattice_rotated_cw', 0.9],
  ])('%s: cell text in place for at least %s of expected cells', async (name, floor) => {
    const c = byName(name);
    const page = await tablesOf(c.file, c.page);
    const s = scoreCase(c.expected, page.tables);
    expect(s.position / s.total).toBeGreaterThanOrEqual(floor);
    expect(page.tables.every((t) => t.kind === 'ruled')).toBe(true);
  });

  it('keeps spanning header cells as spans', async () => {
    const page = await tablesOf('twotables_2.pdf', 1);
    expect(page.tables).toHaveLength(2);
    const header = page.tables[0].cells.find((cell) => cell.text === 'Literacy Status');
    expect(header).toMatchObject({ row: 0, col: 2, row_span: 1, col_span: 6 });
    expect(page.tables[0].cells.find((cell) => cell.text === 'State')).toMatchObject({ row_span: 2, col_span: 1 });
    expect(toGrid(page.tables[0])[2]).toEqual(['Kerala', '2400', '7.2', '0.5', '25.3', '20.1', '41.5', '5.5']);
  });
});

describe('unruled (stream) tables', () => {
  it.each([
    ['stream', 0.8],
    ['stream_two_tables', 0.75],
    ['stream_rotated_cw', 0.9],
    ['stream_inner_outer_columns', 0.95],
  ])('%s: cell text in place for at least %s of expected cells', async (name, floor) => {
    const c = byName(name);
    const page = await tablesOf(c.file, c.page);
    const s = scoreCase(c.expected, page.tables);
    expect(s.position / s.total).toBeGreaterThanOrEqual(floor);
  });

  it('does not take two-column prose for a table', async () => {
    const doc = await runCanonical(readFileSync(new URL('../../../shared/data/docling/pdf/sources/amt_handbook_sample.pdf', import.meta.url)));
    expect(doc.pages[0].tables).toHaveLength(0);
  });

  it('renders tables as Markdown pipe tables', async () => {
    const doc = await runCanonical(readFileSync(new URL('files/tabula/icdar2013-dataset/competition-dataset-us/us-030.pdf', CAMELOT)), { pageRange: '2' });
    expect(doc.markdown).toContain('| 2012_2 | 3.30 | 1.3 | 5.9% | 9.5% | 29.2% | 17.4% |');
    expect(doc.markdown).toMatch(/^\| --- \| --- \|/m);
  });
});
