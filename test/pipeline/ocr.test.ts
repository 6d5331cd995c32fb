// OCR engines, preprocessing and selection on real scans from ../shared/data (ocr-text, sroie,
// funsd, docling/ocr), plus the pure parts (DB post-processing, CTC decoding, TSV, selection
// rules) on synthetic input. Error-rate bounds are set so that a broken engine fails them: no
// output is CER 1.0, and dropping the spaces alone costs phototest about 0.17.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { comparable, DATA_DIR, dataAvailable, funsdSamples, ocrTextSamples, type OcrSample, sroieSamples } from '../../bench/ocr-data.js';
import { runCanonical, settleAbandonedOcr } from '../../src/pipeline/index.js';
import { renderPdfPagePng } from '../../src/pipeline/ingest/pdf/pdf-render.js';
import { asOcrEngine, type PixelEngine } from '../../src/pipeline/ocr/engine.js';
import { closeOcrEngines, getOcrEngine, ocrPage, OcrError, readOcrPolicy } from '../../src/pipeline/ocr/index.js';
import { calibrated } from '../../src/pipeline/ocr/confidence.js';
import { turnRect } from '../../src/pipeline/ocr/content-box.js';
import { decodeImage } from '../../src/pipeline/ocr/image.js';
import { cer, editDistance, readingOrderText, wordRecall } from '../../src/pipeline/ocr/metrics.js';
import { dbPostprocess } from '../../src/pipeline/ocr/paddle/db-postprocess.js';
import { ctcGreedy, restoreSpaces, splitWords } from '../../src/pipeline/ocr/paddle/decode.js';
import { PADDLE_RISK_DEFAULTS } from '../../src/pipeline/ocr/policy.js';
import { MAX_ENGINE_PIXELS, preprocess, type Prepared } from '../../src/pipeline/ocr/preprocess.js';
import { mergeByRegion, selectOcr } from '../../src/pipeline/ocr/select.js';
import { createTesseract, findNativeTesseract } from '../../src/pipeline/ocr/tesseract/index.js';
import { resolveLanguages } from '../../src/pipeline/ocr/tesseract/languages.js';
import { bandsOf } from '../../src/pipeline/ocr/tesseract/bands.js';
import { TesseractNative } from '../../src/pipeline/ocr/tesseract/tesseract-native.js';
import { BAND_PIXELS, TesseractWasm } from '../../src/pipeline/ocr/tesseract/tesseract-wasm.js';
import { parseTsv } from '../../src/pipeline/ocr/tesseract/tsv.js';
import { buildPdf } from '../helpers/mixed-pdf.js';
import type { OcrLine, OcrPage, PixelPage, RasterImage } from '../../src/pipeline/ocr/types.js';

const SLOW = 180_000;
const text = (p: OcrPage) => readingOrderText(p.lines);
const byId = (list: OcrSample[], id: string) => list.find((s) => s.id === id)!;

function expectWellFormed(page: OcrPage) {
  expect(page.words.length).toBeGreaterThan(0);
  expect(page.mean_confidence).toBeGreaterThan(0);
  expect(page.mean_confidence).toBeLessThanOrEqual(1);
  for (const w of page.words) {
    expect(w.confidence).toBeGreaterThanOrEqual(0);
    expect(w.confidence).toBeLessThanOrEqual(1);
    const [x0, y0, x1, y1] = w.bbox;
    expect(x0).toBeGreaterThanOrEqual(0);
    expect(y0).toBeGreaterThanOrEqual(0);
    expect(x1).toBeLessThanOrEqual(page.width);
    expect(y1).toBeLessThanOrEqual(page.height);
    expect(x1).toBeGreaterThan(x0);
    expect(y1).toBeGreaterThan(y0);
  }
  for (const l of page.lines) expect(l.text).toBe(l.words.map((w) => w.text).join(' '));
}

describe('OCR building blocks', () => {
  it('measures character error rate and word recall', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(cer('The quick  brown\nfox', 'The quick brown fox')).toBe(0);
    expect(cer('', 'abc')).toBe(1);
    expect(wordRecall('the fox the', 'the the the fox')).toBe(0.75);
  });

  it('finds a text region in a DB probability map and unclips it', () => {
    const w = 100;
    const h = 40;
    const prob = new Float32Array(w * h);
    for (let y = 15; y < 25; y++) for (let x = 20; x < 80; x++) prob[y * w + x] = 0.9;
    const boxes = dbPostprocess(prob, w, h);
    expect(boxes).toHaveLength(1);
    const xs = boxes[0].quad.map((p) => p[0]);
    const ys = boxes[0].quad.map((p) => p[1]);
    // The 60 × 10 kernel grows by D = area × 1.6 / perimeter ≈ 6.9 on every side.
    expect(Math.min(...xs)).toBeCloseTo(20 - 6.86, 0);
    expect(Math.max(...xs)).toBeCloseTo(80 + 6.86, 0);
    expect(Math.min(...ys)).toBeCloseTo(15 - 6.86, 0);
    expect(boxes[0].score).toBeCloseTo(0.9, 5);
    // Low-probability blobs are not text.
    expect(dbPostprocess(new Float32Array(w * h).fill(0.35), w, h)).toHaveLength(0);
  });

  it('decodes CTC output with the space class and splits words with their extents', () => {
    const charset = ['', 'a', 'b', ' '];
    const seq = [1, 1, 0, 3, 2, 2, 0, 2];
    const probs = new Float32Array(seq.length * 4);
    seq.forEach((c, t) => (probs[t * 4 + c] = 0.9));
    const chars = ctcGreedy(probs, seq.length, 4, charset);
    expect(chars.map((c) => c.char).join('')).toBe('a bb');
    const words = splitWords(chars, seq.length);
    expect(words.map((w) => w.text)).toEqual(['a', 'bb']);
    expect(words[0].from).toBe(0);
    expect(words[1].to).toBe(1);
    expect(words[0].to).toBeCloseTo(words[1].from, 5);
  });

  it('restores a space where a wide blank gap separates two characters', () => {
    const columns = new Uint16Array(100).fill(5);
    for (let x = 40; x < 60; x++) columns[x] = 0;
    const chars = [
      { char: 'a', step: 2, prob: 0.9 },
      { char: 'b', step: 3, prob: 0.9 },
      { char: 'c', step: 7, prob: 0.9 },
    ];
    const out = restoreSpaces(chars, { columns, textHeight: 30 }, 10, 100);
    expect(out.map((c) => c.char).join('')).toBe('ab c');
  });

  it('parses tesseract TSV into lines of words with confidences in [0, 1]', () => {
    const tsv = [
      'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
      '4\t1\t1\t1\t1\t0\t10\t10\t100\t20\t-1\t',
      '5\t1\t1\t1\t1\t1\t10\t10\t40\t20\t96.5\tHello',
      '5\t1\t1\t1\t1\t2\t60\t12\t50\t18\t80\tworld',
      '5\t1\t1\t1\t2\t1\t10\t40\t30\t20\t50\t ',
    ].join('\n');
    const page = parseTsv(tsv, 200, 100);
    expect(page.lines).toHaveLength(1);
    expect(page.lines[0].text).toBe('Hello world');
    expect(page.lines[0].bbox).toEqual([10, 10, 110, 30]);
    expect(page.lines[0].words[0].confidence).toBe(calibrated('tesseract', 0.965));
    expect(calibrated('tesseract', 0.965)).toBeGreaterThan(calibrated('tesseract', 0.8));
    expect(calibrated('paddle', 0.9)).toBeLessThan(calibrated('tesseract', 0.9));
  });

  it('reads policy objects with defaults and ignores wrong types', () => {
    const p = readOcrPolicy({ ocr_selection_mode: 'paddle_priority', ocr_priority_margin: 'x', language_policy: { ocr_languages: ['en', 'de'] }, preprocessing_policy: { deskew: false, max_upscale: 99 } });
    expect(p.ocr_selection_mode).toBe('paddle_priority');
    expect(p.ocr_priority_margin).toBe(0.1);
    expect(p.languages).toEqual(['eng', 'deu']);
    expect(p.preprocessing.deskew).toBe(false);
    expect(p.preprocessing.max_upscale).toBe(4);
    expect(readOcrPolicy({}).ocr_selection_mode).toBe('confidence_based');
  });

  it.each([1, 2, 3] as const)('places a box where sharp puts it after %i clockwise quarter turns', async (quarters) => {
    // A 60 × 40 image with a black 10 × 6 block at (5, 30).
    const [width, height] = [60, 40];
    const data = Buffer.alloc(width * height, 255);
    for (let y = 30; y < 36; y++) for (let x = 5; x < 15; x++) data[y * width + x] = 0;
    const { data: out, info } = await sharp(data, { raw: { width, height, channels: 1 } }).rotate(quarters * 90).raw().toBuffer({ resolveWithObject: true });
    let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        if (out[(y * info.width + x) * info.channels] >= 128) continue;
        [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
      }
    }
    expect(turnRect([5, 30, 10, 6], width, height, quarters)).toEqual([x0, y0, x1 - x0 + 1, y1 - y0 + 1]);
  });

  it('rejects a language without installed data with a clear error', async () => {
    expect(() => resolveLanguages(['xyz'])).toThrowError(OcrError);
    expect(() => resolveLanguages(['xyz'])).toThrowError(expect.objectContaining({ code: 'ocr_language_unavailable', kind: 'job_failure' }));
    expect(() => resolveLanguages(['../etc'])).toThrowError(/not available/);
    const png = readFileSync(path.join(DATA_DIR, 'ocr-text', 'phototest-rotated-180.png'));
    await expect(ocrPage(png, { languages: ['ita'] })).rejects.toMatchObject({ code: 'ocr_language_unavailable' });
    await expect(getOcrEngine('tesseract').recognize(png, { languages: ['klingon'] })).rejects.toMatchObject({ code: 'ocr_language_unavailable' });
  });
});

describe('selection rules', () => {
  const line = (text: string, bbox: [number, number, number, number], confidence: number): OcrLine => ({ text, bbox, confidence, words: [{ text, bbox, confidence }] });
  const fake = (name: 'tesseract' | 'paddle', page: PixelPage, calls: string[]): PixelEngine => ({
    name,
    backend: 'fake',
    read: async () => {
      calls.push(name);
      return page;
    },
    close: async () => undefined,
  });
  const raster: RasterImage = { data: Buffer.alloc(1), width: 1, height: 1, channels: 1 };
  const prepared = (overrides: Partial<Prepared> = {}): Prepared => ({
    tesseract: raster,
    paddle: raster,
    quarters: 0,
    skew: 0,
    upscale: 1,
    toOriented: (x, y) => [x, y],
    orientedWidth: 100,
    orientedHeight: 100,
    signals: { contrast: 0.8, lineHeightPx: 30, uprightEvidence: 1 },
    ...overrides,
  });
  const page = (lines: OcrLine[]): PixelPage => ({ width: 100, height: 100, lines });
  const t = page([line('tess', [0, 0, 50, 10], 0.7)]);
  const p = page([line('padd', [0, 0, 50, 10], 0.9)]);

  it('priority mode keeps a confident page without consulting the other engine', async () => {
    const calls: string[] = [];
    const r = await selectOcr({ prepared: prepared(), engines: { tesseract: fake('tesseract', page([line('x', [0, 0, 5, 5], 0.95)]), calls), paddle: fake('paddle', p, calls) }, mode: 'tesseract_priority', margin: 0.1, risk: PADDLE_RISK_DEFAULTS, languages: ['eng'] });
    expect(calls).toEqual(['tesseract']);
    expect(r.decision).toMatchObject({ engine_used: 'tesseract', confidences: { tesseract: 0.95, paddle: null } });
  });

  it('priority mode consults the other engine on a doubtful page; it wins only beyond the margin', async () => {
    const calls: string[] = [];
    const engines = { tesseract: fake('tesseract', t, calls), paddle: fake('paddle', p, calls) };
    const wins = await selectOcr({ prepared: prepared(), engines, mode: 'tesseract_priority', margin: 0.1, risk: PADDLE_RISK_DEFAULTS, languages: ['eng'] });
    expect(calls).toEqual(['tesseract', 'paddle']);
    expect(wins.decision).toMatchObject({ engine_used: 'paddle', confidences: { tesseract: 0.7, paddle: 0.9 } });
    const keeps = await selectOcr({ prepared: prepared(), engines, mode: 'tesseract_priority', margin: 0.3, risk: PADDLE_RISK_DEFAULTS, languages: ['eng'] });
    expect(keeps.decision.engine_used).toBe('tesseract');
    expect(keeps.decision.reason).toMatch(/not more confident/);
  });

  it('a risk signal named by paddle_risk_policy makes a confident page doubtful', async () => {
    const calls: string[] = [];
    const engines = { tesseract: fake('tesseract', t, calls), paddle: fake('paddle', page([line('p', [0, 0, 5, 5], 0.99)]), calls) };
    const r = await selectOcr({ prepared: prepared({ quarters: 2 }), engines, mode: 'paddle_priority', margin: 0.1, risk: PADDLE_RISK_DEFAULTS, languages: ['eng'] });
    expect(calls).toEqual(['paddle', 'tesseract']);
    expect(r.decision.risks).toEqual(['rotated_text']);
    expect(r.decision.engine_used).toBe('paddle');
    const off = await selectOcr({ prepared: prepared({ quarters: 2 }), engines, mode: 'paddle_priority', margin: 0.1, risk: { ...PADDLE_RISK_DEFAULTS, rotated_text: false }, languages: ['eng'] });
    expect(off.decision.risks).toEqual([]);
  });

  it('confidence_based keeps the more confident reading per line region', () => {
    const tp = page([line('top by tesseract', [0, 0, 90, 10], 0.95), line('bottom by tesseract', [0, 50, 90, 60], 0.6), line('noise', [0, 80, 10, 90], 0.2)]);
    const pp = page([line('top', [0, 1, 40, 11], 0.8), line('by paddle', [45, 1, 90, 11], 0.8), line('bottom by paddle', [0, 51, 90, 61], 0.9)]);
    const r = mergeByRegion(tp, pp);
    expect(r.page.lines.map((l) => l.text).sort()).toEqual(['bottom by paddle', 'top by tesseract']);
    expect(r.won).toEqual({ tesseract: 1, paddle: 1 });
    // The page's more confident reader (paddle here) keeps a region unless beaten by the margin.
    const strict = mergeByRegion(tp, pp, 0.2);
    expect(strict.page.lines.map((l) => l.text).sort()).toEqual(['bottom by paddle', 'by paddle', 'top']);
    expect(strict.won).toEqual({ tesseract: 0, paddle: 2 });
  });
});

describe.runIf(dataAvailable())('OCR on real scans', () => {
  afterAll(() => closeOcrEngines());
  const ocrText = ocrTextSamples();
  const phototest = byId(ocrText, 'phototest');

  it.each(['tesseract', 'paddle'] as const)(
    '%s reads phototest with boxes in page points',
    async (name) => {
      const page = await getOcrEngine(name).recognize(readFileSync(phototest.file), { languages: ['eng'] });
      expectWellFormed(page);
      // 640 × 480 pixels at 200 dpi.
      expect(page.width).toBeCloseTo(230.4, 1);
      expect(page.height).toBeCloseTo(172.8, 1);
      expect(cer(text(page), phototest.truth)).toBeLessThan(0.06);
      expect(wordRecall(text(page), phototest.truth)).toBeGreaterThan(0.85);
      expect(text(page)).toContain('The quick brown dog jumped over the');
      // With pageWidthPt the mapping follows the page, not the dpi.
      const scaled = await getOcrEngine(name).recognize(readFileSync(phototest.file), { pageWidthPt: 640, pageHeightPt: 480 });
      expect(scaled.width).toBe(640);
      expect(scaled.words[0].bbox[0]).toBeCloseTo((page.words[0].bbox[0] * 200) / 72, 0);
    },
    SLOW,
  );

  it(
    'tesseract.js (WASM) reads offline with the npm language data, like the native binary',
    async () => {
      const wasm = asOcrEngine(createTesseract('wasm'), () => ['eng']);
      try {
        const page = await wasm.recognize(readFileSync(phototest.file), { languages: ['eng'] });
        expect(page.backend).toBe('tesseract.js');
        expectWellFormed(page);
        expect(cer(text(page), phototest.truth)).toBeLessThan(0.06);
        if (findNativeTesseract()) {
          const native = await getOcrEngine('tesseract').recognize(readFileSync(phototest.file), { languages: ['eng'] });
          expect(native.backend).toMatch(/^native/);
          expect(text(page)).toBe(text(native));
        }
      } finally {
        await wasm.close();
      }
    },
    SLOW,
  );

  it(
    'tesseract.js reads each page with a worker of its own, ended once the page is read',
    async () => {
      const wasm = new TesseractWasm();
      try {
        const small = (await decodeImage(readFileSync(phototest.file))).raster;
        const reading = wasm.read(small, { languages: ['eng'], dpi: 200 });
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(wasm.started).toBe(true);
        const first = await reading;
        expect(first.lines.length).toBeGreaterThan(3);
        expect(wasm.started).toBe(false);
        // A new worker for the next page reads it the same, and its thread has exited by the
        // time the page is returned (its memory handed back before the next engine reads): no
        // thread is left to end afterwards.
        const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
        const again = await wasm.read(small, { languages: ['eng'], dpi: 200 });
        const returned = threads();
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(threads()).toBe(returned);
        expect(readingOrderText(again.lines)).toBe(readingOrderText(first.lines));
        expect(wasm.started).toBe(false);
      } finally {
        await wasm.close();
      }
    },
    SLOW,
  );

  it(
    'tesseract.js ended mid-page (a cancel, a time limit, shutdown) fails that reading at once and reads the next page',
    async () => {
      // tesseract.js's terminate forgets its pending jobs: a reading it ended never settled, and
      // whatever waited for abandoned pages (the next page, a closing thread) waited its bound out.
      const wasm = new TesseractWasm();
      try {
        const small = (await decodeImage(readFileSync(phototest.file))).raster;
        const reading = wasm.read(small, { languages: ['eng'], dpi: 200 });
        const outcome = reading.then(
          () => 'read',
          (err: unknown) => (err instanceof OcrError ? err.message : String(err)),
        );
        while (!wasm.started) await new Promise((resolve) => setTimeout(resolve, 5));
        await new Promise((resolve) => setTimeout(resolve, 100));
        await wasm.close();
        const settled = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('still pending'), 3_000))]);
        expect(settled).toMatch(/ended while it read the page/);
        const next = await wasm.read(small, { languages: ['eng'], dpi: 200 });
        expect(cer(readingOrderText(next.lines), phototest.truth)).toBeLessThan(0.06);
      } finally {
        await wasm.close();
      }
    },
    SLOW,
  );

  it(
    'leaves a page without any text line upright: a page of drawings is not turned a quarter',
    async () => {
      const pdf = await buildPdf([{ drawing: '0 0 0 rg 100 100 200 200 re f' }]);
      const doc = await runCanonical(pdf, { ocr: { pageTimeoutMs: 170_000 } });
      expect(doc.ocr?.pages[0]?.preprocessing.rotation_degrees).toBe(0);
      expect([doc.pages[0]!.width, doc.pages[0]!.height]).toEqual([612, 792]);
    },
    SLOW,
  );

  it(
    'a scan cancelled while tesseract reads it leaves no abandoned reading behind',
    async () => {
      // The run drops its engines on a cancel; the page's reading must then settle, or the next
      // page and a closing pipeline thread wait out their bound (30 s, 2 minutes) for it.
      const proto = findNativeTesseract() ? TesseractNative.prototype : TesseractWasm.prototype;
      const original = proto.read;
      let reading: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (reading = resolve));
      const spy = vi.spyOn(proto, 'read').mockImplementation(function (this: TesseractWasm, ...args: Parameters<TesseractWasm['read']>) {
        reading();
        return original.apply(this, args);
      });
      try {
        const controller = new AbortController();
        const run = runCanonical(readFileSync(path.join(DATA_DIR, 'sroie/img/006.jpg')), { ocr: { pageTimeoutMs: 170_000, policy: { ocr_selection_mode: 'tesseract_priority' } }, signal: controller.signal });
        run.catch(() => undefined);
        await started;
        await new Promise((resolve) => setTimeout(resolve, 300));
        controller.abort(new Error('cancelled by the test'));
        await expect(run).rejects.toThrow('Processing was cancelled.');
        const settled = settleAbandonedOcr(120_000).then(() => 'settled');
        expect(await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('still abandoned'), 10_000))])).toBe('settled');
      } finally {
        spy.mockRestore();
        await closeOcrEngines();
      }
    },
    SLOW,
  );

  it(
    'tesseract.js reads a page past the band size in bands cut between its lines',
    async () => {
      const wasm = new TesseractWasm();
      try {
        const small = (await decodeImage(readFileSync(phototest.file))).raster;
        const k = Math.ceil(Math.sqrt((2.5 * BAND_PIXELS) / (small.width * small.height)));
        const large = (await decodeImage(await sharp(readFileSync(phototest.file)).resize(small.width * k, small.height * k).png().toBuffer())).raster;
        const bands = bandsOf(large, BAND_PIXELS);
        expect(bands.length).toBeGreaterThanOrEqual(3);
        const read = await wasm.read(large, { languages: ['eng'], dpi: 200 * k });
        expect(cer(readingOrderText(read.lines), phototest.truth)).toBeLessThan(0.06);
        // Boxes in the whole page's pixels, and no line across a cut.
        for (const line of read.lines) {
          expect(line.bbox[3]).toBeLessThanOrEqual(large.height);
          for (const b of bands.slice(1)) expect(line.bbox[1] < b.top && line.bbox[3] > b.top).toBe(false);
        }
        expect(read.lines.at(-1)!.bbox[1]).toBeGreaterThan(bands.at(-1)!.top);
      } finally {
        await wasm.close();
      }
    },
    SLOW,
  );

  it.each([
    ['phototest-rotated-180', 180],
    ['phototest-rotated-L', 90],
    ['phototest-rotated-R', 270],
  ] as const)(
    'corrects the orientation of %s',
    async (id, degrees) => {
      const sample = byId(ocrText, id);
      const r = await ocrPage(readFileSync(sample.file), { policy: { ocr_selection_mode: 'paddle_priority' } });
      expect(r.preprocessing.rotation_degrees).toBe(degrees);
      expect(r.page.rotation).toBe(degrees / 90);
      // Upright page: 640 wide, 480 high, at 200 dpi.
      expect(r.page.width).toBeCloseTo(230.4, 1);
      expect(r.decision.risks).toContain('rotated_text');
      expectWellFormed(r.page);
      expect(cer(text(r.page), sample.truth)).toBeLessThan(0.06);
    },
    SLOW,
  );

  it(
    'reads a rotated scanned PDF page (docling ocr_test_rotated_90) upright',
    async () => {
      const pdf = readFileSync(path.join(DATA_DIR, 'docling', 'ocr', 'sources', 'ocr_test_rotated_90.pdf'));
      const png = await renderPdfPagePng(pdf, 1, 150);
      const r = await ocrPage(png, { dpi: 150, policy: { ocr_selection_mode: 'paddle_priority' } });
      expect([90, 270]).toContain(r.preprocessing.rotation_degrees);
      expectWellFormed(r.page);
      const truth = 'Docling bundles PDF document conversion to JSON and Markdown in an easy self contained package';
      expect(cer(text(r.page), truth)).toBeLessThan(0.1);
    },
    SLOW,
  );

  it(
    'loads several languages at once (eurotext: German first, then English, French, Spanish)',
    async () => {
      const sample = byId(ocrText, 'eurotext');
      const page = await getOcrEngine('tesseract').recognize(readFileSync(sample.file), { languages: sample.languages });
      expectWellFormed(page);
      expect(cer(text(page), sample.truth)).toBeLessThan(0.1);
      expect(text(page)).toMatch(/über den faulen Hund/);
    },
    SLOW,
  );

  const sroie = sroieSamples();
  it.each([
    ['000', 'confidence_based'],
    ['006', 'tesseract_priority'],
    ['012', 'paddle_priority'],
  ] as const)(
    'reads SROIE receipt %s with %s within 15 % CER',
    async (id, mode) => {
      const sample = byId(sroie, id);
      const r = await ocrPage(readFileSync(sample.file), { policy: { ocr_selection_mode: mode } });
      expectWellFormed(r.page);
      expect(r.decision.mode).toBe(mode);
      expect(r.decision.reason.length).toBeGreaterThan(10);
      if (mode === 'confidence_based') {
        expect(r.decision.confidences.tesseract).toBeGreaterThan(0);
        expect(r.decision.confidences.paddle).toBeGreaterThan(0);
        expect(r.decision.regions!.tesseract + r.decision.regions!.paddle).toBeGreaterThan(10);
      } else {
        const first = mode === 'tesseract_priority' ? 'tesseract' : 'paddle';
        expect(r.decision.confidences[first]).toBeGreaterThan(0);
      }
      expect(r.page.source).toBe(r.decision.engine_used);
      const hyp = comparable(sample, text(r.page));
      expect(cer(hyp, sample.truth)).toBeLessThan(0.15);
      expect(wordRecall(hyp, sample.truth)).toBeGreaterThan(0.6);
    },
    SLOW,
  );

  /** Median shift from each word of `a` to the word of `b` with the same text nearest to it. */
  function medianShift(a: OcrPage, b: OcrPage): [number, number] {
    const dx: number[] = [];
    const dy: number[] = [];
    for (const w of a.words.filter((w) => w.text.length >= 3)) {
      const same = b.words.filter((v) => v.text === w.text);
      if (same.length !== 1) continue;
      dx.push(same[0].bbox[0] - w.bbox[0]);
      dy.push(same[0].bbox[1] - w.bbox[1]);
    }
    expect(dx.length).toBeGreaterThan(10);
    const median = (v: number[]) => v.sort((p, q) => p - q)[Math.floor(v.length / 2)];
    return [median(dx), median(dy)];
  }

  it(
    'reads a receipt lying on a wide white sheet from its inked area, with boxes where they lie on the sheet',
    async () => {
      const sample = byId(sroie, '000');
      const bytes = readFileSync(sample.file);
      // The 463 × 1013 receipt at (900, 1300) on a 2400 × 3600 sheet, both read as 150 dpi.
      const sheet = await sharp(bytes).extend({ left: 900, top: 1300, right: 2400 - 900 - 463, bottom: 3600 - 1300 - 1013, background: '#ffffff' }).png().toBuffer();
      const policy = { ocr_selection_mode: 'tesseract_priority' } as const;
      const alone = await ocrPage(bytes, { dpi: 150, policy });
      const onSheet = await ocrPage(sheet, { dpi: 150, policy });
      expectWellFormed(onSheet.page);
      expect(onSheet.page.width).toBeCloseTo((2400 * 72) / 150, 1);
      // The engines read the receipt's area alone: it is enlarged as much as the receipt by itself,
      // where the whole sheet would have had to stay within the pixel budget (a factor of 1.3).
      expect(onSheet.preprocessing.upscale).toBe(alone.preprocessing.upscale);
      expect(alone.preprocessing.upscale).toBeGreaterThan(2);
      // Within 2 points (4 pixels): the two readings' boxes differ by a pixel or two, and the
      // sheet's skew is measured on a smaller copy (0.2° apart here).
      const [dx, dy] = medianShift(alone.page, onSheet.page);
      expect(Math.abs(dx - (900 * 72) / 150)).toBeLessThan(2);
      expect(Math.abs(dy - (1300 * 72) / 150)).toBeLessThan(2);
      // And it reads as well as the receipt alone.
      const error = (p: OcrPage) => cer(comparable(sample, text(p)), sample.truth);
      expect(error(onSheet.page)).toBeLessThan(error(alone.page) + 0.03);
    },
    SLOW,
  );

  it(
    'reduces a page past the engines\' pixel budget and maps its words back to the full page',
    async () => {
      const sample = byId(sroie, '012');
      const bytes = readFileSync(sample.file);
      // 747 × 1412 enlarged four times: 16.9 megapixels of receipt, ink to the edges.
      const big = await sharp(bytes).resize(747 * 4, 1412 * 4, { kernel: 'lanczos3' }).png().toBuffer();
      const { raster } = await decodeImage(big);
      const prepared = await preprocess(raster, readOcrPolicy({}).preprocessing);
      expect(prepared.upscale).toBeLessThan(1);
      expect(prepared.paddle.width * prepared.paddle.height).toBeLessThanOrEqual(MAX_ENGINE_PIXELS);
      expect(prepared.tesseract.width * prepared.tesseract.height).toBeLessThanOrEqual(MAX_ENGINE_PIXELS);
      const policy = { ocr_selection_mode: 'paddle_priority' } as const;
      const alone = await ocrPage(bytes, { dpi: 72, policy });
      const enlarged = await ocrPage(big, { dpi: 288, policy });
      expectWellFormed(enlarged.page);
      expect(enlarged.preprocessing.upscale).toBeLessThan(1);
      // Same page size in points; the words where the original's are.
      expect(enlarged.page.width).toBeCloseTo(alone.page.width, 1);
      const [dx, dy] = medianShift(alone.page, enlarged.page);
      expect(Math.abs(dx)).toBeLessThan(2);
      expect(Math.abs(dy)).toBeLessThan(2);
      expect(cer(comparable(sample, text(enlarged.page)), sample.truth)).toBeLessThan(0.15);
    },
    SLOW,
  );

  it(
    'reads a noisy 100-dpi FUNSD form within 30 % CER',
    async () => {
      const sample = byId(funsdSamples(), '82092117');
      const r = await ocrPage(readFileSync(sample.file), { policy: { ocr_selection_mode: 'confidence_based' } });
      expectWellFormed(r.page);
      // Low-resolution forms are enlarged before OCR.
      expect(r.preprocessing.upscale).toBeGreaterThan(1);
      expect(cer(text(r.page), sample.truth)).toBeLessThan(0.3);
      expect(wordRecall(text(r.page), sample.truth)).toBeGreaterThan(0.5);
    },
    SLOW,
  );
});

describe('preprocessing of extreme aspect ratios', () => {
  it('never scales a side to 0 pixels (a 30000×10 strip analysed at 1400 pixels long)', async () => {
    const [width, height] = [30_000, 10];
    const data = Buffer.alloc(width * height * 3, 255);
    // Dark dashes along the strip, so there is ink to find and measure.
    for (let x = 0; x < width; x++) if (x % 40 < 20) for (let y = 3; y < 7; y++) data.fill(0, (y * width + x) * 3, (y * width + x) * 3 + 3);
    const prepared = await preprocess({ data, width, height, channels: 3 }, readOcrPolicy({}).preprocessing);
    expect(prepared.tesseract.height).toBeGreaterThan(0);
    expect(prepared.paddle.height).toBeGreaterThan(0);
  });
});
