// Text in the images of a text-layer page: saeco's invoice carries its issuer's address, VAT
// number, IBAN and BIC in a picture at the foot of the page (its own words: "the invoice needs to
// be OCR'd"). With `textInImages` the OCR stage reads that picture and its words join the page.
import { afterAll, describe, expect, it } from 'vitest';
import { imageRegions } from '../../src/pipeline/ingest/pdf/image-regions.js';
import { MAX_IMAGES_READ_PER_DOCUMENT, pagesWithImagesToRead } from '../../src/pipeline/ingest/ocr-pages.js';
import type { SourcePage } from '../../src/pipeline/ingest/source-page.js';
import type { BBox } from '../../src/pipeline/canonical/model.js';
import { runCanonical } from '../../src/pipeline/index.js';
import { closeOcrEngines, readsTextInImages } from '../../src/pipeline/ocr/index.js';
import { runEntities } from '../../src/pipeline/extract/index.js';
import { toCanonicalJson } from '../../src/pipeline/canonical/serialize.js';
import { readData, squash } from './data.js';

afterAll(() => closeOcrEngines());

const SLOW = 180_000;
const saeco = () => readData('invoice2data/compare/saeco.pdf');
const pageText = (doc: Awaited<ReturnType<typeof runCanonical>>) => squash(doc.pages.flatMap((p) => p.blocks.map((b) => ('text' in b ? b.text : ''))).join(' '));

describe('text in images of text-layer pages', () => {
  it('is read and joins the page when asked for, with a record per image', async () => {
    const doc = await runCanonical(saeco(), { ocr: { textInImages: true } });
    expect(doc.pages[0]!.source).toBe('text_layer');
    const text = pageText(doc);
    expect(text).toContain('badweg48');
    expect(text).toContain('rabonl2u');
    // The text layer's own words are all still there.
    expect(text).toContain('uwbtwnummernl00333599698');
    const regions = doc.ocr!.image_regions!;
    expect(regions.length).toBeGreaterThanOrEqual(1);
    const footer = regions.find((r) => r.bbox[1] > 700)!;
    expect(footer.words).toBeGreaterThan(15);
    expect(footer.mean_confidence).toBeGreaterThan(0.6);
    // The IBAN in the picture, read with a zero for the O of RABO, is put right by its check digits.
    const ibans = runEntities(toCanonicalJson(doc)).filter((e) => e.type === 'iban').map((e) => e.value);
    expect(ibans).toContain('NL58RABO0198723202');
  }, SLOW);

  it('is left alone otherwise: no OCR runs on a digital page', async () => {
    const doc = await runCanonical(saeco(), { ocr: {} });
    expect(doc.ocr).toBeNull();
    expect(pageText(doc)).not.toContain('badweg48');
  }, SLOW);

  it('is on for entities and extraction runs unless layout_policy says otherwise', () => {
    expect(readsTextInImages({}, 'extraction')).toBe(true);
    expect(readsTextInImages({}, 'entities')).toBe(true);
    expect(readsTextInImages({}, 'canonical')).toBe(false);
    expect(readsTextInImages({ read_text_in_images: false }, 'extraction')).toBe(false);
    expect(readsTextInImages({ read_text_in_images: true }, 'canonical')).toBe(true);
    expect(readsTextInImages({ read_text_in_images: 'yes' }, 'canonical')).toBe(false);
  });
});

describe('image regions', () => {
  const char = (x: number, y: number) => ({ text: 'a', x0: x, y0: y, x1: x + 5, y1: y + 8, fontSize: 8, bold: false, font: '', unmapped: false, quarter: 0 });
  it('keep pictures big enough to hold text and without text-layer characters over them', () => {
    const images = [
      { x0: 40, y0: 720, x1: 480, y1: 800 }, // a footer
      { x0: 10, y0: 10, x1: 20, y1: 20 }, // an icon
      { x0: 50, y0: 100, x1: 550, y1: 101 }, // a hairline
      { x0: 50, y0: 300, x1: 300, y1: 400 }, // a form background with text printed over it
      { x0: 460, y0: 760, x1: 560, y1: 830 }, // overlapping the footer: one region
    ];
    const chars = [char(60, 320), char(70, 320), char(80, 340), char(90, 360)];
    expect(imageRegions(images, chars, 595, 842)).toEqual([[40, 720, 560, 830]]);
  });
});

describe('images read per document', () => {
  const page = (n: number, regions: number, source: SourcePage['source'] = 'text_layer'): SourcePage => ({
    page_number: n,
    width: 612,
    height: 792,
    rotation: 0,
    source,
    imageRegions: Array.from({ length: regions }, (_, i): BBox => [10, 100 * i, 200, 100 * i + 50]),
  });
  it('are read page by page while the allowance lasts; a page that would overrun it is passed over', () => {
    const pages = [page(1, 2), page(2, 0), page(3, 5), page(4, 4), page(5, 1, 'needs_ocr'), page(6, 1), page(7, 1)];
    const read = [...pagesWithImagesToRead(pages)].map((p) => p.page_number);
    expect(MAX_IMAGES_READ_PER_DOCUMENT).toBe(8);
    // 2 + 5 = 7 read; page 4's four would make 11; page 6's one makes 8; page 7 finds none left.
    expect(read).toEqual([1, 3, 6]);
  });
});
