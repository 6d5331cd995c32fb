// PPTX against the mechanical ground truth of pptx-python-pptx (and docling's PPTX sample set):
// slide text, tables cell by cell, and speaker notes in each pptx_notes_mode.
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { type CanonicalDocument, runCanonical } from '../../src/pipeline/index.js';
import { toGrid } from '../../bench/lib/table-score.js';
import { readData, readDataJson, squash } from './data.js';
import { deck, slide, sp } from './decks.js';
import { buildResult } from '../../src/queue/result.js';

interface TruthSlide {
  text_paragraphs: string[];
  notes: string | null;
  tables: string[][][];
}
type Truth = Record<string, { slide_count: number; slides: TruthSlide[] }>;

const sets = [
  { dir: 'pptx-python-pptx/files', truth: readDataJson<Truth>('pptx-python-pptx/extracted_ground_truth.json') },
  { dir: 'docling/pptx/sources', truth: readDataJson<Truth>('docling/pptx/extracted_ground_truth.json') },
];
const decks = sets.flatMap(({ dir, truth }) =>
  Object.entries(truth)
    .filter(([, t]) => t.slide_count > 0)
    .map(([file, t]) => ({ file, path: `${dir}/${file}`, truth: t })),
);

const pageText = (p: CanonicalDocument['pages'][number]) =>
  squash([...p.blocks.map((b) => b.text), ...p.tables.flatMap((t) => t.cells.map((c) => c.text))].join(' '));

describe('PPTX slide text and tables', () => {
  it.each(decks)('$file: every paragraph and table of every slide', async ({ path, truth }) => {
    const doc = await runCanonical(readData(path), { pptxNotesMode: 'off' });
    expect(doc.format).toBe('pptx');
    expect(doc.pages).toHaveLength(truth.slide_count);
    truth.slides.forEach((slide, i) => {
      const page = doc.pages[i];
      expect(page.source).toBe('pptx');
      const text = pageText(page);
      for (const p of slide.text_paragraphs) expect(text).toContain(squash(p));
      expect(page.tables.map((t) => toGrid(t).map((row) => row.map(squash)))).toEqual(slide.tables.map((t) => t.map((row) => row.map(squash))));
    });
  });

  it('reads a slide in reading order: title first, then its shapes from the top', async () => {
    const doc = await runCanonical(readData('docling/pptx/sources/powerpoint_sample.pptx'));
    const slide2 = doc.pages[1].blocks.map((b) => `${b.type}:${b.text}`);
    expect(slide2.slice(0, 3)).toEqual(['heading:Second slide title', 'paragraph:A rectangle shape with this text inside.', 'paragraph:Let’s introduce a list']);
    expect(slide2).toContain('list_item:With foo');
    expect(doc.markdown).toContain('- With foo\n- Bar\n- And baz things');
    expect(doc.markdown).toContain('1. List item4\n2. List item5\n3. List item6');
  });

  it('sizes slides in points from presentation.xml and keeps shape boxes on the slide', async () => {
    const doc = await runCanonical(readData('docling/pptx/sources/powerpoint_sample.pptx'));
    expect(doc.pages[0]).toMatchObject({ width: 960, height: 540 }); // 12192000 x 6858000 EMU
    const title = doc.pages[1].blocks[0];
    expect(title.bbox[0]).toBeGreaterThanOrEqual(0);
    expect(title.bbox[3]).toBeLessThanOrEqual(540);
  });

  it('gives a table row declared 0 tall the height its frame has beyond the other rows (its cells had boxes of no height)', async () => {
    // tbl-cell.pptx, slide 1: <a:tr h="0"> then three rows of 370840 EMU (29.2 pt) in a frame 2936239 EMU (231.2 pt) tall.
    const doc = await runCanonical(readData('pptx-python-pptx/files/tbl-cell.pptx'));
    const table = doc.pages[0].tables[0];
    const height = (b: number[]) => b[3]! - b[1]!;
    const first = table.cells.filter((c) => c.row === 0);
    expect(first.map((c) => c.text)).toEqual(['having custom margins', 'vert anchor is inherited', 'vert anchor is top', 'vert anchor is bottom']);
    for (const c of first) expect(height(c.bbox)).toBeCloseTo(231.2 - 3 * 29.2, 1);
    for (const c of table.cells.filter((c) => c.row > 0)) expect(height(c.bbox)).toBeCloseTo(29.2, 1);
    // The rows fill the frame, top to bottom, and the words drawn for the row have the row's height.
    expect(Math.max(...table.cells.map((c) => c.bbox[3]))).toBeCloseTo(table.bbox[3], 1);
    const words = doc.pages[0].blocks.flatMap((b) => b.lines.flatMap((l) => l.words));
    expect(words.find((w) => w.text === 'having custom margins')!.bbox).toEqual(first[0]!.bbox);

    // With no room left in the frame, such a row is one line of its text (24 pt) and the default margins (3.6 pt each) tall.
    const tc = (text: string) => `<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US" sz="2400"/><a:t>${text}</a:t></a:r></a:p></a:txBody><a:tcPr/></a:tc>`;
    const frame =
      '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="3" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="914400" y="914400"/><a:ext cx="2540000" cy="381000"/></p:xfrm>' +
      '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid><a:gridCol w="2540000"/></a:tblGrid>' +
      `<a:tr h="0">${tc('head')}</a:tr><a:tr h="381000">${tc('body')}</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
    const built = await runCanonical(deck([slide(frame)]));
    const [head, body] = built.pages[0].tables[0].cells;
    expect(height(head!.bbox)).toBeCloseTo(24 * 1.2 + 7.2, 5);
    expect(body!.bbox[1]).toBeCloseTo(head!.bbox[3], 5);
    expect(height(body!.bbox)).toBeCloseTo(30, 5);
  });
});

describe('PPTX speaker notes by pptx_notes_mode', () => {
  const notesDecks = decks.filter((d) => d.truth.slides.some((s) => s.notes));

  it('the ground truth has notes in three decks', () => {
    expect(notesDecks.map((d) => d.file).sort()).toEqual(['powerpoint_sample.pptx', 'prs-notes.pptx', 'sld-notes.pptx']);
  });

  it.each(notesDecks)('$file: margin puts each slide’s notes beside it, right of the slide', async ({ path, truth }) => {
    const doc = await runCanonical(readData(path), { pptxNotesMode: 'margin' });
    expect(doc.pages).toHaveLength(truth.slide_count);
    truth.slides.forEach((slide, i) => {
      const notes = doc.pages[i].blocks.filter((b) => b.type === 'notes');
      if (!slide.notes) return expect(notes).toHaveLength(0);
      expect(notes).toHaveLength(1);
      expect(squash(notes[0].text)).toBe(squash(slide.notes));
      expect(notes[0].bbox[0]).toBeGreaterThanOrEqual(doc.pages[i].width);
    });
  });

  it.each(notesDecks)('$file: pages gives notes their own page after their slide', async ({ path, truth }) => {
    const doc = await runCanonical(readData(path), { pptxNotesMode: 'pages' });
    const withNotes = truth.slides.filter((s) => s.notes).length;
    expect(doc.pages).toHaveLength(truth.slide_count + withNotes);
    let at = 0;
    for (const slide of truth.slides) {
      expect(doc.pages[at].blocks.some((b) => b.type === 'notes')).toBe(false);
      at++;
      if (!slide.notes) continue;
      const notesPage = doc.pages[at++];
      expect(notesPage.blocks.map((b) => b.type)).toEqual(['notes']);
      expect(squash(notesPage.blocks[0].text)).toBe(squash(slide.notes));
    }
    expect(doc.pages.map((p) => p.page_number)).toEqual(doc.pages.map((_, i) => i + 1));
  });

  it.each(notesDecks)('$file: off leaves notes out', async ({ path, truth }) => {
    const doc = await runCanonical(readData(path), { pptxNotesMode: 'off' });
    expect(doc.pages).toHaveLength(truth.slide_count);
    expect(doc.pages.flatMap((p) => p.blocks).filter((b) => b.type === 'notes')).toHaveLength(0);
    for (const slide of truth.slides) if (slide.notes) expect(squash(doc.text)).not.toContain(squash(slide.notes));
  });

  it('keeps line breaks of multi-line notes and renders them as a quote', async () => {
    const doc = await runCanonical(readData('docling/pptx/sources/powerpoint_sample.pptx'), { pptxNotesMode: 'margin' });
    expect(doc.markdown).toContain('> **Notes:** Final notes on the third slide.\n> Second line of notes.');
  });
});

describe('PPTX page selection', () => {
  const three = deck([slide(sp('Slide one')), slide(sp('Slide two')), slide(sp('Slide three'))]);
  const failureOf = (p: Promise<unknown>) => p.then(() => 'no error', (e: unknown) => e);

  it('applies the page cap to slides: fail, or the first slides with truncate', async () => {
    expect(await failureOf(runCanonical(three, { pdfMaxPages: 2 }))).toMatchObject({ code: 'page_cap_exceeded', pageCount: 3 });
    const doc = await runCanonical(three, { pdfMaxPages: 2, pageCapPolicy: 'truncate' });
    expect(doc.pages.map((p) => p.page_number)).toEqual([1, 2]);
    expect(doc.text).not.toContain('Slide three');
  });

  it('keeps each slide’s number under a page range, as PDF pages do', async () => {
    const doc = await runCanonical(three, { pageRange: '3' });
    expect(doc.page_count).toBe(3);
    expect(doc.pages.map((p) => p.page_number)).toEqual([3]);
    expect(doc.text).toContain('Slide three');
  });

  it('counts notes pages as pages of the document in pages mode (page_count, page numbers, page range)', async () => {
    const noted = deck([slide(sp('Slide one')), slide(sp('Slide two')), slide(sp('Slide three'))], { notes: { 0: 'Notes one', 2: 'Notes three' } });
    const all = await runCanonical(noted, { pptxNotesMode: 'pages' });
    expect(all.page_count).toBe(5);
    expect(all.pages.map((p) => p.page_number)).toEqual([1, 2, 3, 4, 5]);
    const last = await runCanonical(noted, { pptxNotesMode: 'pages', pageRange: '4-5' });
    expect(last.page_count).toBe(5);
    expect(last.pages.map((p) => [p.page_number, p.blocks.map((b) => b.text).join(' ')])).toEqual([
      [4, 'Slide three'],
      [5, 'Notes three'],
    ]);
    const margin = await runCanonical(noted, { pptxNotesMode: 'margin', pageRange: '3' });
    expect(margin.page_count).toBe(3);
    expect(margin.pages.map((p) => p.page_number)).toEqual([3]);
  });

  it('refuses a slide list that names one slide part again and again', async () => {
    const repeated = deck([slide(sp('word '.repeat(1000)))], { order: [0, 0, 0, 0, 0] });
    expect(await failureOf(runCanonical(repeated))).toMatchObject({ code: 'corrupt_document', message: expect.stringMatching(/more than once/) });
  });
});

describe('PPTX text encodings', () => {
  it('decodes numeric character references', async () => {
    const doc = await runCanonical(deck([slide(sp('&#169; 2024 Acme &#x2014; caf&#233; &amp;#169;'))]));
    expect(doc.text).toContain('© 2024 Acme — café &#169;');
  });

  it('decodes a slide in the encoding its XML declaration or byte-order mark names', async () => {
    const latin1 = Buffer.from(slide(sp('Café crème 100 EUR'), '<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?>'), 'latin1');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(slide(sp('Grüße in UTF-16'), '<?xml version="1.0" encoding="UTF-16"?>'), 'utf16le')]);
    const doc = await runCanonical(deck(['', ''], { slideBytes: { 0: latin1, 1: utf16 } }));
    expect(doc.pages.map((p) => p.blocks.map((b) => b.text).join(' '))).toEqual(['Café crème 100 EUR', 'Grüße in UTF-16']);
  });
});

describe('PPTX parts that cannot be read', () => {
  const failureOf = (p: Promise<unknown>) => p.then(() => 'no error', (e: unknown) => e);
  const good = slide(sp('A readable slide'));

  it('lists each slide it could not read (a DOCTYPE, a truncated part, a missing part) and reads the others', async () => {
    const doctype = slide(sp('x'), '<?xml version="1.0"?><!DOCTYPE p:sld [<!ENTITY x SYSTEM "file:///etc/passwd">]>');
    const truncated = good.slice(0, good.length - 40);
    const doc = await runCanonical(deck([good, doctype, truncated, good], { omit: ['ppt/slides/slide4.xml'] }));
    expect(doc.page_count).toBe(4);
    expect(doc.pages[0]!.blocks.map((b) => b.text)).toEqual(['A readable slide']);
    expect(doc.unreadable.map((u) => [u.page_number, u.part])).toEqual([
      [2, 'ppt/slides/slide2.xml'],
      [3, 'ppt/slides/slide3.xml'],
      [4, 'ppt/slides/slide4.xml'],
    ]);
    expect(doc.unreadable[0]!.message).toMatch(/DOCTYPE/);
    expect(doc.unreadable[1]!.message).toMatch(/not well-formed/);
    expect(doc.unreadable[2]!.message).toMatch(/missing/);
  });

  it('fails corrupt_document when no slide can be read, or the presentation part itself', async () => {
    expect(await failureOf(runCanonical(deck([good], { omit: ['ppt/slides/slide1.xml'] })))).toMatchObject({ code: 'corrupt_document', message: expect.stringMatching(/no slide can be read/) });
    const pres = deck([good], { presentationProlog: '<!DOCTYPE p:presentation [<!ENTITY x "y">]>' });
    expect(await failureOf(runCanonical(pres))).toMatchObject({ code: 'corrupt_document', message: expect.stringMatching(/presentation\.xml cannot be read.*DOCTYPE/) });
  });
});

describe('PPTX geometry that lies', () => {
  it('leaves out shapes wholly off the slide and cuts the ones running over its edge', async () => {
    const shapes = [sp('On the slide'), sp('Parked far right', 20_000_000), sp('Parked left', -20_000_000), sp('Half over the edge', 8_000_000, 500_000, 4_000_000)];
    const doc = await runCanonical(deck([slide(shapes.join(''))]), { pptxNotesMode: 'off' });
    const page = doc.pages[0]!;
    expect(page.blocks.map((b) => b.text)).toEqual(expect.arrayContaining(['On the slide']));
    expect(doc.text).not.toMatch(/Parked/);
    expect(doc.text).toContain('Half over the edge');
    for (const b of page.blocks) {
      expect(b.bbox[0]).toBeGreaterThanOrEqual(0);
      expect(b.bbox[0]).toBeLessThan(page.width);
    }
  });

  it('replaces a slide size no slide can have by the default 10 × 7.5 in', async () => {
    const doc = await runCanonical(deck([slide(sp('Text'))], { sldSz: ['-9144000', '1e30'] }));
    expect(doc.pages[0]).toMatchObject({ width: 720, height: 540 });
  });
});

describe('PPTX layouts, masters and notes that cannot be read', () => {
  // A real deck (one slide with speaker notes, its layout and master), its slide given a title
  // placeholder that takes its position from the master (2 inches down), then one part after another broken.
  const title = '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>Quarterly review</a:t></a:r></a:p></p:txBody></p:sp>';
  const masterTitle = '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="1828800"/><a:ext cx="8229600" cy="1143000"/></a:xfrm></p:spPr></p:sp>';
  const realDeck = (parts: Record<string, string | null>) => {
    const files = unzipSync(readData('pptx-python-pptx/files/prs-notes.pptx'));
    const add = (name: string, shape: string) => (files[name] = strToU8(strFromU8(files[name]!).replace('</p:spTree>', `${shape}</p:spTree>`)));
    add('ppt/slides/slide1.xml', title);
    add('ppt/slideMasters/slideMaster1.xml', masterTitle);
    for (const [name, xml] of Object.entries(parts)) {
      if (xml === null) delete files[name];
      else files[name] = strToU8(xml);
    }
    return zipSync(files);
  };
  const doctype = '<?xml version="1.0"?><!DOCTYPE p:sldLayout [<!ENTITY x "y">]><p:sldLayout/>';

  it('reads an intact deck with nothing to list', async () => {
    const doc = await runCanonical(realDeck({}));
    expect(doc.text).toContain('Quarterly review');
    expect(doc.text).toContain('Notes');
    expect(doc.unreadableParts).toEqual([]);
  });

  it('lists a broken layout and notes part with the slides that use them, and still reads the slide', async () => {
    const doc = await runCanonical(realDeck({ 'ppt/slideLayouts/slideLayout1.xml': doctype, 'ppt/notesSlides/notesSlide1.xml': '<p:notes><p:cSld>' }));
    expect(doc.text).toContain('Quarterly review');
    expect(doc.text).not.toContain('Notes');
    expect(doc.unreadable).toEqual([]);
    expect(doc.unreadableParts.map((p) => [p.part, p.page_numbers])).toEqual([
      ['ppt/slideLayouts/slideLayout1.xml', [1]],
      ['ppt/notesSlides/notesSlide1.xml', [1]],
    ]);
    expect(doc.unreadableParts[0]!.message).toMatch(/slide layout .*DOCTYPE.*placed over the whole slide/);
    expect(doc.unreadableParts[1]!.message).toMatch(/speaker notes .*not well-formed.*left out/);
  });

  it('lists a missing master, and notes read as their own pages', async () => {
    const doc = await runCanonical(realDeck({ 'ppt/slideMasters/slideMaster1.xml': null }), { pptxNotesMode: 'pages' });
    expect(doc.page_count).toBe(2);
    expect(doc.unreadableParts).toEqual([{ part: 'ppt/slideMasters/slideMaster1.xml', page_numbers: [1], message: expect.stringMatching(/slide master .*missing/) }]);
    // Without its master the title has no position of its own: it is placed over the whole slide.
    const intact = await runCanonical(realDeck({}), { pptxNotesMode: 'pages' });
    const titleTop = (d: CanonicalDocument) => d.pages[0]!.blocks.find((b) => b.text === 'Quarterly review')!.bbox[1];
    expect(titleTop(intact)).toBeGreaterThanOrEqual(144);
    expect(titleTop(doc)).toBeLessThan(144);
  });

  it('lists a slide relationship part that cannot be parsed: its layout, master and notes were lost without a word', async () => {
    const doc = await runCanonical(realDeck({ 'ppt/slides/_rels/slide1.xml.rels': '<Relationships><Relationship Id="rId1"' }));
    expect(doc.text).toContain('Quarterly review');
    expect(doc.text).not.toContain('Notes');
    expect(doc.unreadable).toEqual([]);
    expect(doc.unreadableParts).toEqual([
      { part: 'ppt/slides/_rels/slide1.xml.rels', page_numbers: [1], message: expect.stringMatching(/relationship part .*not well-formed.*layout, slide master and speaker notes .*not found/) },
    ]);
    // Without its layout (and so its master) the title has no position of its own.
    const titleTop = (d: CanonicalDocument) => d.pages[0]!.blocks.find((b) => b.text === 'Quarterly review')!.bbox[1];
    expect(titleTop(await runCanonical(realDeck({})))).toBeGreaterThanOrEqual(144);
    expect(titleTop(doc)).toBeLessThan(144);
  });

  it('lists the slide relationship part in pages mode too, once, and one that holds no Relationships element', async () => {
    const doc = await runCanonical(realDeck({ 'ppt/slides/_rels/slide1.xml.rels': '<?xml version="1.0"?><Types/>' }), { pptxNotesMode: 'pages' });
    expect(doc.page_count).toBe(1);
    expect(doc.unreadableParts).toEqual([{ part: 'ppt/slides/_rels/slide1.xml.rels', page_numbers: [1], message: expect.stringMatching(/no Relationships element \(its root is <Types>\)/) }]);
  });

  it("lists a slide layout's relationship part that cannot be parsed: the master's positions were lost", async () => {
    const doc = await runCanonical(realDeck({ 'ppt/slideLayouts/_rels/slideLayout1.xml.rels': '<?xml version="1.0"?><!DOCTYPE x><Relationships/>' }));
    expect(doc.text).toContain('Notes');
    expect(doc.unreadableParts).toEqual([{ part: 'ppt/slideLayouts/_rels/slideLayout1.xml.rels', page_numbers: [1], message: expect.stringMatching(/slide layout's relationship part .*DOCTYPE.*slide master it names is not found/) }]);
    expect(doc.pages[0]!.blocks.find((b) => b.text === 'Quarterly review')!.bbox[1]).toBeLessThan(144);
  });

  it('has nothing to list for a slide without a relationship part (a part without relationships has none)', async () => {
    const doc = await runCanonical(realDeck({ 'ppt/slides/_rels/slide1.xml.rels': null }));
    expect(doc.text).toContain('Quarterly review');
    expect(doc.unreadableParts).toEqual([]);
  });

  it('reports them in the job result as engine.unreadable_parts', async () => {
    const doc = await runCanonical(realDeck({ 'ppt/notesSlides/notesSlide1.xml': null }));
    const { result } = buildResult({ processing_mode: 'canonical', template_id: null, page_range: null }, null, { format: 'pptx', pagesProcessed: 1, pageCount: 1, pageImages: 0, reusedCanonical: false, unreadableParts: doc.unreadableParts });
    expect((result.engine as Record<string, unknown>).unreadable_parts).toEqual([{ part: 'ppt/notesSlides/notesSlide1.xml', page_numbers: [1], message: expect.stringMatching(/missing/) }]);
  });
});

describe('PPTX slide list whose relationships cannot be read', () => {
  // A real three-slide deck, each slide with its own text.
  const realDeck = (parts: Record<string, string | ((xml: string) => string)>) => {
    const files = unzipSync(readData('pptx-python-pptx/files/txt-paragraph-spacing.pptx'));
    for (const [name, xml] of Object.entries(parts)) files[name] = strToU8(typeof xml === 'string' ? xml : xml(strFromU8(files[name]!)));
    return zipSync(files);
  };
  const presRels = 'ppt/_rels/presentation.xml.rels';

  it('fails as corrupt_document, naming the part, when the presentation relationships cannot be parsed (it said the deck had no slides)', async () => {
    await expect(runCanonical(realDeck({ [presRels]: '<Relationships><Relationship Id="rId2"' }))).rejects.toMatchObject({
      code: 'corrupt_document',
      message: expect.stringMatching(/slides cannot be found: the presentation's relationship part ppt\/_rels\/presentation.xml.rels cannot be read \(it is not well-formed/),
    });
  });

  it('keeps a slide whose relationship is missing in its place, listed as unreadable (it vanished and the next slide took its number)', async () => {
    const doc = await runCanonical(realDeck({ [presRels]: (xml) => xml.replace(/<Relationship Id="rId3"[^>]*\/>/, '') }));
    expect(doc.page_count).toBe(3);
    expect(doc.pages.map((p) => p.blocks.map((b) => b.text).join(' ').slice(0, 24))).toEqual(['Paragraph having space b', '', 'Paragraph having line sp']);
    expect(doc.unreadable).toEqual([{ page_number: 2, part: presRels, message: 'slide 2 cannot be found: the presentation\'s relationship part ppt/_rels/presentation.xml.rels names no slide with the id "rId3"' }]);
  });

  it('fails as corrupt_document when no listed slide can be found', async () => {
    await expect(runCanonical(realDeck({ [presRels]: '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>' }))).rejects.toMatchObject({
      code: 'corrupt_document',
      message: expect.stringMatching(/no slide can be read: slide 1 cannot be found.*\(and 2 more\)/),
    });
  });

  it('names the unreadable package relationships when the presentation part is not where they usually point', async () => {
    const files = unzipSync(readData('pptx-python-pptx/files/txt-paragraph-spacing.pptx'));
    files['_rels/.rels'] = strToU8('<Relationships');
    // The presentation part under another name (its relationships moved with it).
    files['ppt/deck.xml'] = files['ppt/presentation.xml']!;
    files['ppt/_rels/deck.xml.rels'] = files[presRels]!;
    delete files['ppt/presentation.xml'];
    await expect(runCanonical(zipSync(files))).rejects.toMatchObject({ code: 'corrupt_document', message: expect.stringMatching(/presentation part ppt\/presentation.xml cannot be read: it is missing .*_rels\/.rels, which names it, cannot be read either/) });
  });
});
