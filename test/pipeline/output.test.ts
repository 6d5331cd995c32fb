// The serialised shapes (result.canonical in spec/decisions.md), plain text, page rendering and
// the `quire extract` helper.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import { renderPagePng, runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { extractCommand } from '../../src/pipeline/extract-command.js';
import { dataPath, readData } from './data.js';

describe('canonical JSON', () => {
  it('has exactly the decisions.md shape, with rounded boxes and no internal fields', async () => {
    const json = toCanonicalJson(await runCanonical(readData('invoice2data/compare/oyo.pdf')));
    expect(Object.keys(json).sort()).toEqual(['markdown', 'pages', 'text']);
    const page = json.pages[0];
    expect(Object.keys(page).sort()).toEqual(['blocks', 'height', 'key_values', 'page_number', 'source', 'tables', 'width']);
    const word = page.blocks[0].lines[0].words[0];
    expect(Object.keys(word).sort()).toEqual(['bbox', 'confidence', 'text']);
    for (const v of word.bbox) expect(Math.round(v * 100) / 100).toBe(v);
    expect(Object.keys(page.key_values[0]).sort()).toEqual(['confidence', 'key', 'key_bbox', 'value', 'value_bbox']);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('turns a text file into pages at form feeds, with paragraphs and key-value pairs', async () => {
    const text = new TextEncoder().encode('Invoice No: 42\nDate: 2024-01-02\n\nThank you for your order.\fPage two');
    const doc = await runCanonical(text);
    expect(doc.pages.map((p) => p.source)).toEqual(['plain_text', 'plain_text']);
    expect(doc.pages[0].key_values.map((kv) => [kv.key, kv.value])).toEqual([
      ['Invoice No', '42'],
      ['Date', '2024-01-02'],
    ]);
    expect(doc.text).toBe('Invoice No: 42\n\nDate: 2024-01-02\n\nThank you for your order.\n\fPage two');
  });
});

describe('renderPagePng', () => {
  it('renders a page at the asked resolution', async () => {
    const png = await renderPagePng(readData('invoice2data/compare/oyo.pdf'), 1, { dpi: 72 });
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([595, 842]);
    const stats = await sharp(png).stats();
    expect(stats.channels[0].min).toBeLessThan(100); // there is dark ink on the page
  });
});

describe('quire extract', () => {
  afterEach(() => vi.restoreAllMocks());

  function capture() {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    return { out, err };
  }

  it('prints the result JSON for a page range', async () => {
    const { out } = capture();
    const code = await extractCommand([dataPath('pdf-realworld/pdfs/federal-register-2020-17221.pdf'), '--pages', '2-3']);
    expect(code).toBe(0);
    const result = JSON.parse(out.join(''));
    expect(result.canonical.pages.map((p: { page_number: number }) => p.page_number)).toEqual([2, 3]);
    expect(result.engine).toMatchObject({ name: 'quire', format: 'pdf', page_count: 15, pages_processed: 2 });
  });

  it('prints entities with --mode entities, and a template extraction with --mode extraction', async () => {
    const { out } = capture();
    expect(await extractCommand(['--mode', 'entities', dataPath('invoice2data/compare/Orlen.txt')])).toBe(0);
    const entities = JSON.parse(out.join('')).entities as { type: string }[];
    expect(entities.map((e) => e.type)).toContain('date');

    out.length = 0;
    const dir = mkdtempSync(path.join(tmpdir(), 'quire-extract-'));
    const template = path.join(dir, 'invoice.json');
    writeFileSync(template, JSON.stringify({ name: 'invoice', json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } } }));
    expect(await extractCommand(['--mode', 'extraction', '--template', template, dataPath('invoice2data/files/camelot-example.pdf')])).toBe(0);
    const result = JSON.parse(out.join(''));
    expect(result.extraction.data).toHaveProperty('total');
    expect(['completed', 'needs_review', 'rejected']).toContain(result.decision);

    // A template alone means extraction; naming another mode beside it is bad usage.
    out.length = 0;
    expect(await extractCommand(['--template', template, dataPath('invoice2data/files/camelot-example.pdf')])).toBe(0);
    expect(JSON.parse(out.join('')).extraction.data).toEqual(result.extraction.data);
    out.length = 0;
    expect(await extractCommand(['--mode', 'entities', '--template', template, dataPath('invoice2data/files/camelot-example.pdf')])).toBe(2);
    expect(out.join('')).toBe('');
  });

  it('exits 1 with the failure code for a failed document and 2 for bad usage', async () => {
    const { out, err } = capture();
    expect(await extractCommand([dataPath('pdf-realworld/pdfs/password-example.pdf')])).toBe(1);
    expect(err.join('')).toMatch(/encrypted_document/);
    expect(await extractCommand(['--mode', 'nonsense', 'x.pdf'])).toBe(2);
    expect(await extractCommand(['--mode', 'extraction', 'x.pdf'])).toBe(2);
    expect(await extractCommand(['--ocr', 'sometimes', 'x.pdf'])).toBe(2);
    expect(await extractCommand([])).toBe(2);
    // A page range or a template file that could never work is bad usage, not a failed document.
    for (const pages of ['abc', '0', '3-1']) expect(await extractCommand([dataPath('invoice2data/files/camelot-example.pdf'), '--pages', pages]), pages).toBe(2);
    const dir = mkdtempSync(path.join(tmpdir(), 'quire-extract-'));
    for (const [name, body] of [['null-schema', { json_schema: null }], ['list-schema', { json_schema: [] }], ['no-fields', { json_schema: { type: 'object', properties: 'zz' } }], ['rules', { json_schema: { type: 'object', properties: { a: { type: 'string' } } }, validation_rules: 'x' }]] as const) {
      const file = path.join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(body));
      expect(await extractCommand(['--mode', 'extraction', '--template', file, dataPath('invoice2data/files/camelot-example.pdf')]), name).toBe(2);
    }
    expect(out.join('')).toBe('');
  });
});
