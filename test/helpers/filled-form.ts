// A filled PDF form built with pdf-lib: printed labels in the page content, AcroForm fields holding
// the values a person typed (text, multi-line, check boxes, radio buttons, a dropdown), fields a
// reader never sees (password, hidden, off the page), a value also printed into the page content
// under its own field, a FreeText comment typed on the page and a sticky note.
import { PDFDocument, PDFHexString, PDFString, StandardFonts, degrees } from 'pdf-lib';

export const FORM_VALUES = {
  name: 'Alice Johnson',
  invoice: 'INV-20931',
  date: '2025-03-12',
  total: '1,250.00',
  comments: ['Urgent order.', 'Deliver to dock 4 before noon.'],
  payment: 'Bank transfer',
  reference: 'REF-555',
  freeText: 'Approved by finance',
  stickyNote: 'internal remark only',
  password: 'PIN4711',
  hidden: 'SECRETHIDDEN',
  offPage: 'OFFPAGEVALUE',
};

export interface FormOptions {
  /** Flatten the form: its appearances become page content and the fields go. */
  flatten?: boolean;
  /** The page's /Rotate. */
  rotate?: 0 | 90;
}

/** Rectangles of the labelled text fields, in PDF user space (x, y from the bottom-left, width, height). */
export const FIELD_RECTS = {
  name: { x: 200, y: 690, width: 220, height: 20 },
  invoice: { x: 200, y: 660, width: 220, height: 20 },
};

export async function filledForm(options: FormOptions = {}): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const label = (text: string, x: number, y: number) => page.drawText(text, { x, y, size: 11, font });
  page.drawText('Purchase Request Form', { x: 72, y: 740, size: 18, font: bold });
  const form = pdf.getForm();

  label('Employee name:', 72, 696);
  const name = form.createTextField('employee_name');
  name.setText(FORM_VALUES.name);
  name.addToPage(page, FIELD_RECTS.name);

  label('Invoice number:', 72, 666);
  const invoice = form.createTextField('invoice_number');
  invoice.setText(FORM_VALUES.invoice);
  invoice.addToPage(page, FIELD_RECTS.invoice);

  label('Invoice date:', 72, 636);
  const date = form.createTextField('invoice_date');
  date.setText(FORM_VALUES.date);
  date.addToPage(page, { x: 200, y: 630, width: 120, height: 20 });

  label('Total:', 72, 606);
  const total = form.createTextField('total');
  total.setText(FORM_VALUES.total);
  total.addToPage(page, { x: 200, y: 600, width: 120, height: 20 });

  label('Payment method:', 72, 576);
  const payment = form.createDropdown('payment_method');
  payment.addOptions(['Card', FORM_VALUES.payment, 'Cash']);
  payment.select(FORM_VALUES.payment);
  payment.addToPage(page, { x: 200, y: 570, width: 150, height: 20 });

  const express = form.createCheckBox('express');
  express.addToPage(page, { x: 72, y: 540, width: 12, height: 12 });
  express.check();
  label('Express delivery', 90, 541);
  const wrap = form.createCheckBox('gift_wrap');
  wrap.addToPage(page, { x: 250, y: 540, width: 12, height: 12 });
  label('Gift wrap', 268, 541);

  label('Ship by:', 72, 511);
  const ship = form.createRadioGroup('ship_by');
  ship.addOptionToPage('road', page, { x: 140, y: 510, width: 12, height: 12 });
  ship.addOptionToPage('air', page, { x: 220, y: 510, width: 12, height: 12 });
  ship.select('air');
  label('Road', 156, 511);
  label('Air', 236, 511);

  label('Comments:', 72, 480);
  const comments = form.createTextField('comments');
  comments.enableMultiline();
  comments.setText(FORM_VALUES.comments.join('\n'));
  comments.addToPage(page, { x: 72, y: 410, width: 300, height: 60 });

  // Printed into the page by the producer and also held by the field over it.
  label('Reference:', 72, 386);
  page.drawText(FORM_VALUES.reference, { x: 202, y: 386, size: 11, font });
  const reference = form.createTextField('reference');
  reference.setText(FORM_VALUES.reference);
  reference.addToPage(page, { x: 200, y: 380, width: 120, height: 20 });

  label('PIN:', 72, 356);
  const pin = form.createTextField('pin');
  pin.setText(FORM_VALUES.password);
  pin.enablePassword();
  pin.addToPage(page, { x: 200, y: 350, width: 120, height: 20 });

  const hidden = form.createTextField('internal_code');
  hidden.setText(FORM_VALUES.hidden);
  hidden.addToPage(page, { x: 200, y: 320, width: 120, height: 20, hidden: true });

  const off = form.createTextField('off_page');
  off.setText(FORM_VALUES.offPage);
  off.addToPage(page, { x: 700, y: 320, width: 120, height: 20 });

  if (options.flatten) form.flatten();

  // A FreeText comment typed on the page, and a sticky note (an icon whose text shows in a popup).
  addAnnotation(pdf, page, 'FreeText', [400, 735, 560, 755], FORM_VALUES.freeText);
  addAnnotation(pdf, page, 'Text', [560, 700, 580, 720], FORM_VALUES.stickyNote);
  if (options.rotate) page.setRotation(degrees(options.rotate));
  return pdf.save();
}

export function addAnnotation(pdf: PDFDocument, page: ReturnType<PDFDocument['addPage']>, subtype: string, rect: number[], contents: string): void {
  const annot = pdf.context.obj({
    Type: 'Annot',
    Subtype: subtype,
    Rect: rect,
    Contents: PDFHexString.fromText(contents),
    DA: PDFString.of('/Helv 10 Tf 0 g'),
    F: 4,
  });
  page.node.addAnnot(pdf.context.register(annot));
}
