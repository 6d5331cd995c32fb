// Hostile documents cost bounded memory and end in a coded, non-retried failure: XML bombs are
// refused before they inflate, a thread that runs out of heap fails its document with
// `resource_limit`, and a thread that grew past the high-water mark is replaced after its task.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { QuireError } from '../../src/lib/errors.js';
import { renderPagePng } from '../../src/pipeline/render-page.js';
import { PipelineFailure, PipelinePool } from '../../src/queue/pipeline-pool.js';
import { pdfWithNestedForms, pdfWithTextOperators, pptxWithBigSlide, zipBomb } from '../../bench/lib/hostile-files.js';
import { FILES } from '../helpers/documents.js';

let pool: PipelinePool | null = null;
afterEach(async () => {
  await pool?.stop();
  pool = null;
});

/** A PNG that claims a size in its header (IHDR) and holds almost no pixel data: nothing to decode. */
function pngHeaderOnly(width: number, height: number): Uint8Array {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type, 'latin1'), body])));
    return Buffer.concat([head, Buffer.from(type, 'latin1'), body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return new Uint8Array(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))), chunk('IEND', Buffer.alloc(0))]));
}

function run(p: PipelinePool, bytes: Uint8Array) {
  return p.run({ bytes, ocr: null, renderDpi: null }, { signal: new AbortController().signal, abortKind: () => 'cancelled' });
}

async function failure(promise: Promise<unknown>): Promise<PipelineFailure> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(PipelineFailure);
  expect(err).toBeInstanceOf(QuireError);
  return err as PipelineFailure;
}

describe('resource limits of the pipeline', () => {
  it('refuses an image whose header asks for more pixels than a page may have as too big, not as broken', async () => {
    pool = new PipelinePool(1);
    const err = await failure(run(pool, pngHeaderOnly(20_000, 20_000)));
    expect(err.code).toBe('resource_limit');
    expect(err.message).toMatch(/20000×20000 pixels/);
  }, 60_000);

  it('refuses a PPTX whose slide inflates to 120 MB of XML, from the ZIP headers', async () => {
    pool = new PipelinePool(1);
    const bomb = pptxWithBigSlide(400_000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const err = await failure(run(pool, bomb));
    expect(err.code).toBe('resource_limit');
    expect(err.internal).toBe(false);
    expect(err.message).toMatch(/MB of XML/);
  }, 60_000);

  it('refuses a plain ZIP bomb member the same way', async () => {
    pool = new PipelinePool(1);
    const err = await failure(run(pool, zipBomb(64)));
    expect(err).toMatchObject({ code: 'resource_limit', internal: false });
  }, 60_000);

  it('ends a thread that runs out of heap with resource_limit, and the next document still runs', async () => {
    pool = new PipelinePool(1, { heapMb: 160 });
    const err = await failure(run(pool, pptxWithBigSlide(26_000)));
    expect(err).toMatchObject({ code: 'resource_limit', internal: false });
    const next = await run(pool, new Uint8Array(fs.readFileSync(FILES.notes)));
    expect(next.format).toBe('pptx');
  }, 120_000);

  it('fails a PDF that would grow the PDF parser to 2 GB at its memory bound, and the next PDF reads', async () => {
    // 4 KB of form XObjects nested 6 deep, 10 to a level: a million drawn squares.
    pool = new PipelinePool(1);
    const err = await failure(run(pool, pdfWithNestedForms(6, 10)));
    expect(err).toMatchObject({ code: 'resource_limit', internal: false });
    expect(err.message).toMatch(/PDF parser needed more than its 384 MB of memory/);
    expect((await run(pool, new Uint8Array(fs.readFileSync(FILES.invoice)))).format).toBe('pdf');
  }, 120_000);

  it('bounds the PDF parser by the configured memory (QUIRE_PDFIUM_MEMORY_MB)', async () => {
    // 100,000 drawn squares: about 570 MB of parser memory, read in full without a bound.
    pool = new PipelinePool(1, { pdfiumMemoryMb: 64 });
    const err = await failure(run(pool, pdfWithNestedForms(5, 10)));
    expect(err).toMatchObject({ code: 'resource_limit', internal: false });
    expect(err.message).toMatch(/more than its 64 MB of memory/);
    // So does the process's own PDFium, which draws page images on demand.
    const drawn = await renderPagePng(pdfWithNestedForms(5, 10), 1, { dpi: 72 }).then(() => null, (e: unknown) => e);
    expect(drawn).toMatchObject({ code: 'resource_limit', message: expect.stringMatching(/more than its 64 MB of memory/) });
  }, 120_000);

  it('fails a document whose canonical result is over the bound (QUIRE_MAX_RESULT_MB) with resource_limit', async () => {
    // 40,000 one-letter words: 80 KB of text, about 2.7 MB of canonical JSON (each word has its box).
    pool = new PipelinePool(1, { maxResultMb: 1 });
    const words = Buffer.from(Array.from({ length: 4_000 }, () => 'a b c d e f g h i j').join('\n'));
    const err = await failure(run(pool, words));
    expect(err).toMatchObject({ code: 'resource_limit', internal: false, pageCount: 1 });
    expect(err.message).toMatch(/its result would be 3 MB of JSON, more than the 1 MB one job's result may be/);
  }, 120_000);

  it('keeps the parser runtime\'s own "Aborted()" line off stderr, the stream of the JSON log', () => {
    // In a process of its own, as a worker draws page images: the runtime writes to the real stderr.
    const script = [
      `const { setPdfiumMemoryLimit } = await import(${JSON.stringify(new URL('../../src/pipeline/ingest/pdf/pdfium.ts', import.meta.url).href)});`,
      `const { renderPagePng } = await import(${JSON.stringify(new URL('../../src/pipeline/render-page.ts', import.meta.url).href)});`,
      `const { pdfWithNestedForms } = await import(${JSON.stringify(new URL('../../bench/lib/hostile-files.ts', import.meta.url).href)});`,
      'setPdfiumMemoryLimit(64);',
      'const err = await renderPagePng(pdfWithNestedForms(5, 10), 1, { dpi: 72 }).then(() => null, (e) => e);',
      'process.stdout.write(err?.code ?? "none");',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stdout).toBe('resource_limit');
    expect(child.stderr).not.toMatch(/Aborted\(/);
  }, 90_000);

  it('reads a PDF of 20,000 scattered text operators', async () => {
    // Reading order once tried each of thousands of column gutters with a full split: quadratic.
    pool = new PipelinePool(1);
    const out = await run(pool, pdfWithTextOperators(20_000));
    expect(out.pageCount).toBe(1);
    // Every glyph is read, each drawn on a spot of its own.
    expect((JSON.parse(out.canonicalText) as { text: string }).text.match(/x/g)?.length).toBe(20_000);
  }, 120_000);

  it('keeps the thread for ordinary documents', async () => {
    pool = new PipelinePool(1);
    for (const file of [FILES.invoice, FILES.long, FILES.notes]) await run(pool, new Uint8Array(fs.readFileSync(file)));
    expect(pool.recycledThreads).toBe(0);
  }, 120_000);

  it('replaces a thread that passed the memory high-water mark after its task', async () => {
    pool = new PipelinePool(1, { recycleBytes: 1 });
    const bytes = new Uint8Array(fs.readFileSync(FILES.invoice));
    expect((await run(pool, bytes)).pageCount).toBeGreaterThan(0);
    expect((await run(pool, bytes)).pageCount).toBeGreaterThan(0);
    expect(pool.recycledThreads).toBe(2);
  }, 120_000);

  it('replaces a thread after its task when the whole process is past its high-water mark', async () => {
    pool = new PipelinePool(1, { processRecycleBytes: 1, processRegrowthBytes: 0 });
    const bytes = new Uint8Array(fs.readFileSync(FILES.notes));
    expect((await run(pool, bytes)).format).toBe('pptx');
    expect(pool.recycledThreads).toBe(1);
    expect((await run(pool, bytes)).format).toBe('pptx');
    expect(pool.recycledThreads).toBe(2);
  }, 120_000);

  it('does not end a thread after every task when ending one left the process above the mark', async () => {
    // What stays after a thread ends is not the thread's: until the process grows well past it,
    // restarting the thread (and its parsers) after each task would only cost time.
    pool = new PipelinePool(1, { processRecycleBytes: 1 });
    const bytes = new Uint8Array(fs.readFileSync(FILES.notes));
    for (let i = 0; i < 4; i++) expect((await run(pool, bytes)).format).toBe('pptx');
    expect(pool.recycledThreads).toBe(1);
  }, 120_000);
});
