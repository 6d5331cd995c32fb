// Filled PDF forms: the values in AcroForm fields and the text of FreeText annotations are part
// of the page as a reader sees it, so they are part of the canonical text, placed where the page
// shows them, paired with their labels, and never doubled when the page content already has them.
import { describe, expect, it } from 'vitest';
import type { Word } from '../../src/pipeline/canonical/model.js';
import { renderPdfPagePng } from '../../src/pipeline/ingest/pdf/pdf-render.js';
import { runCanonical } from '../../src/pipeline/index.js';
import { PDFDocument, StandardFonts, degrees } from 'pdf-lib';
import sharp from 'sharp';
import { FIELD_RECTS, FORM_VALUES, addAnnotation, filledForm } from '../helpers/filled-form.js';
import { readData } from './data.js';

const occurrences = (text: string, part: string) => text.split(part).length - 1;
const wordsOf = (doc: Awaited<ReturnType<typeof runCanonical>>): Word[] => doc.pages.flatMap((p) => p.blocks.flatMap((b) => b.lines.flatMap((l) => l.words)));

describe('filled form fields', () => {
  it('reads field values into the text, Markdown and key-value pairs, each with its label', async () => {
    const doc = await runCanonical(await filledForm());
    expect(doc.pages[0]!.source).toBe('text_layer');
    for (const value of [FORM_VALUES.name, FORM_VALUES.invoice, FORM_VALUES.date, FORM_VALUES.total, FORM_VALUES.payment]) {
      expect(doc.text).toContain(value);
      expect(doc.markdown).toContain(value);
    }
    expect(doc.text).toContain(FORM_VALUES.comments.join(' '));
    const pairs = doc.pages[0]!.key_values.map((kv) => [kv.key, kv.value]);
    expect(pairs).toEqual(expect.arrayContaining([
      ['Employee name', FORM_VALUES.name],
      ['Invoice number', FORM_VALUES.invoice],
      ['Invoice date', FORM_VALUES.date],
      ['Total', FORM_VALUES.total],
      ['Payment method', FORM_VALUES.payment],
    ]));
  });

  it('places a value inside its field, in the same top-left space as the printed words', async () => {
    const doc = await runCanonical(await filledForm());
    const alice = wordsOf(doc).find((w) => w.text === 'Alice')!;
    const r = FIELD_RECTS.name;
    const [x0, y0, x1, y1] = alice.bbox;
    expect(x0).toBeGreaterThanOrEqual(r.x);
    expect(x1).toBeLessThanOrEqual(r.x + r.width);
    expect(y0).toBeGreaterThanOrEqual(792 - (r.y + r.height));
    expect(y1).toBeLessThanOrEqual(792 - r.y);
    // The label printed on the same row lies left of it, on the same line.
    const label = wordsOf(doc).find((w) => w.text === 'Employee')!;
    expect(label.bbox[2]).toBeLessThan(x0);
    expect(Math.abs((label.bbox[1] + label.bbox[3]) / 2 - (y0 + y1) / 2)).toBeLessThan(5);
  });

  it('shows a check box or radio button as ☒ when on and ☐ when off, before its printed label', async () => {
    const doc = await runCanonical(await filledForm());
    expect(doc.text).toContain('☒ Express delivery');
    expect(doc.text).toContain('☐ Gift wrap');
    expect(doc.text).toContain('☐ Road');
    expect(doc.text).toContain('☒ Air');
  });

  it('adds no mark a box already prints, but marks a checked field over a printed empty box', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    const font = await pdf.embedFont(StandardFonts.Courier);
    const form = pdf.getForm();
    // Each row: what the page content prints inside the box, whether the field over it is on.
    const rows: [string, string, boolean][] = [['X', 'Paid', true], ['o', 'Shipped', true], ['o', 'Returned', false]];
    rows.forEach(([printed, label, on], i) => {
      const y = 700 - i * 30;
      page.drawText(printed, { x: 74, y: y + 2, size: 10, font });
      page.drawText(label, { x: 92, y: y + 2, size: 11, font });
      const box = form.createCheckBox(`box_${i}`);
      box.addToPage(page, { x: 72, y, width: 12, height: 12 });
      if (on) box.check();
    });
    const doc = await runCanonical(await pdf.save());
    expect(doc.text).toContain('X Paid');
    expect(doc.text).not.toContain('☒ Paid');
    expect(doc.text).toMatch(/☒ o Shipped|o ☒ Shipped/);
    expect(doc.text).toContain('o Returned');
    expect(doc.text).not.toContain('☐');
  });

  it('leaves out password fields, hidden fields and fields off the page', async () => {
    const doc = await runCanonical(await filledForm());
    for (const secret of [FORM_VALUES.password, FORM_VALUES.hidden, FORM_VALUES.offPage]) expect(doc.text).not.toContain(secret);
  });

  it('bounds the text the fields of one page may add, however long their values', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    const form = pdf.getForm();
    for (let i = 0; i < 30; i++) {
      const field = form.createTextField(`long_${i}`);
      field.setText('x'.repeat(10_000));
      field.addToPage(page, { x: 72, y: 760 - i * 24, width: 400, height: 20 });
    }
    const doc = await runCanonical(await pdf.save());
    expect(doc.text.length).toBeGreaterThanOrEqual(150_000);
    expect(doc.text.replace(/\s/g, '').length).toBeLessThanOrEqual(200_000);
  });

  it('does not repeat a value the page content already prints inside its field', async () => {
    const doc = await runCanonical(await filledForm());
    expect(occurrences(doc.text, FORM_VALUES.reference)).toBe(1);
  });

  it('reads a flattened form from its page content alone, each value once', async () => {
    const doc = await runCanonical(await filledForm({ flatten: true }));
    for (const value of [FORM_VALUES.name, FORM_VALUES.invoice, FORM_VALUES.total]) expect(occurrences(doc.text, value)).toBe(1);
    expect(doc.text).not.toMatch(/[☐☒]/);
  });

  it('reads a form on a page turned by /Rotate as it reads the upright page', async () => {
    const upright = await runCanonical(await filledForm());
    const turned = await runCanonical(await filledForm({ rotate: 90 }));
    expect(turned.text).toBe(upright.text);
    expect(turned.pages[0]!.key_values.map((kv) => [kv.key, kv.value])).toEqual(upright.pages[0]!.key_values.map((kv) => [kv.key, kv.value]));
  });

  it('reads fields turned with their page (/MK /R) upright, as the page shows them', async () => {
    // A landscape form: a portrait page turned by /Rotate 90, its text and fields turned back.
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    page.setRotation(degrees(90));
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    // On the turned page, display (X, Y) is user space (Y, X).
    const label = (text: string, x: number, y: number) => page.drawText(text, { x: y, y: x, size: 12, font, rotate: degrees(90) });
    label('Customer:', 72, 100);
    label('Order number:', 72, 130);
    const form = pdf.getForm();
    const customer = form.createTextField('customer');
    customer.setText('Northwind Traders');
    customer.addToPage(page, { x: 106, y: 200, width: 220, height: 20, rotate: degrees(90) });
    const order = form.createTextField('order');
    order.setText('ORD-7781');
    order.addToPage(page, { x: 136, y: 200, width: 220, height: 20, rotate: degrees(90) });
    const doc = await runCanonical(await pdf.save());
    expect(doc.pages[0]!.key_values.map((kv) => [kv.key, kv.value])).toEqual([['Customer', 'Northwind Traders'], ['Order number', 'ORD-7781']]);
  });

  it('reads a page that holds nothing but a filled field as text, not as a blank page', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    const field = pdf.getForm().createTextField('only');
    field.setText('Only the field speaks');
    field.addToPage(page, { x: 100, y: 600, width: 300, height: 24 });
    const doc = await runCanonical(await pdf.save());
    expect(doc.pages[0]!.source).toBe('text_layer');
    expect(doc.text).toBe('Only the field speaks');
  });

  it('draws the field values into the page image, so the picture shows what the text says', async () => {
    const png = await renderPdfPagePng(await filledForm(), 1, 72);
    const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
    // Inside the name field, left of its right border: dark pixels are the value's glyphs.
    const r = FIELD_RECTS.name;
    let dark = 0;
    for (let y = 792 - (r.y + r.height) + 4; y < 792 - r.y - 4; y++) {
      for (let x = r.x + 4; x < r.x + r.width - 4; x++) if (data[y * info.width + x]! < 128) dark++;
    }
    expect(dark).toBeGreaterThan(50);
  });
});

describe('a scanned form with fields filled in on top', () => {
  it(
    'goes to OCR with its fields drawn into the page image, so OCR reads their values',
    async () => {
      // The printed form as a page-size picture (a scan), fields laid over it by a PDF editor.
      const printed = await PDFDocument.create();
      const sheet = printed.addPage([612, 792]);
      const font = await printed.embedFont(StandardFonts.Helvetica);
      sheet.drawText('Application for membership', { x: 72, y: 720, size: 16, font });
      sheet.drawText('Full name:', { x: 72, y: 680, size: 12, font });
      sheet.drawText('Member number:', { x: 72, y: 650, size: 12, font });
      const picture = await renderPdfPagePng(await printed.save(), 1, 200);
      const scan = await PDFDocument.create();
      const page = scan.addPage([612, 792]);
      page.drawImage(await scan.embedPng(picture), { x: 0, y: 0, width: 612, height: 792 });
      const form = scan.getForm();
      const name = form.createTextField('full_name');
      name.setText('Margaret Holloway');
      name.addToPage(page, { x: 200, y: 674, width: 250, height: 20 });
      const number = form.createTextField('member_number');
      number.setText('MB-40772');
      number.addToPage(page, { x: 200, y: 644, width: 250, height: 20 });

      const doc = await runCanonical(await scan.save(), { ocr: { pageTimeoutMs: 170_000 } });
      expect(doc.pages[0]!.source).toMatch(/^ocr_/);
      expect(doc.text).toContain('Margaret Holloway');
      expect(doc.text).toContain('MB-40772');
    },
    180_000,
  );
});

describe('annotations', () => {
  it('reads a FreeText comment typed on the page where it sits, and leaves sticky notes out', async () => {
    const doc = await runCanonical(await filledForm());
    expect(doc.text).toContain(FORM_VALUES.freeText);
    expect(doc.text).not.toContain(FORM_VALUES.stickyNote);
    const approved = wordsOf(doc).find((w) => w.text === 'Approved')!;
    expect(approved.bbox[0]).toBeGreaterThanOrEqual(400);
    expect(approved.bbox[1]).toBeGreaterThanOrEqual(792 - 755);
  });

  it('reads FreeText on a document that has no form at all', async () => {
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    page.drawText('Delivery note 118', { x: 72, y: 700, size: 12, font: await pdf.embedFont(StandardFonts.Helvetica) });
    addAnnotation(pdf, page, 'FreeText', [72, 640, 300, 660], 'Received in good condition');
    const doc = await runCanonical(await pdf.save());
    expect(doc.text).toBe('Delivery note 118\n\nReceived in good condition');
  });
});

describe('real files with a form dictionary', () => {
  it('adds nothing for a signature field (federal register) or a form with no fields left (pr-138)', async () => {
    const register = await runCanonical(readData('pdf-realworld/pdfs/federal-register-2020-17221.pdf'), { pageRange: '1' });
    // The unsigned signature field sits in the top-left corner: no word is made for it.
    expect(wordsOf(register).filter((w) => w.bbox[2] <= 92 && w.bbox[3] <= 32)).toEqual([]);
    const cba = await runCanonical(readData('pdf-realworld/pdfs/pr-138-example.pdf'));
    expect(cba.text).not.toMatch(/[☐☒]/);
    expect(cba.text.length).toBeGreaterThan(100);
  });
});
