import { describe, expect, it } from 'vitest';
import { isValidIban, luhnValid, repairedIban, vatCheckDigits } from './checksums.js';
import { findDates, inferDateOrder, parseDate } from './dates.js';
import { repairLookalikes } from './lookalikes.js';
import { findMoney, parseAmount } from './money.js';
import { parseNumber } from './numbers.js';
import { findOrganisations, legalFormOcrFixed, ocrNameFixed, withoutLegalForm } from './organisations.js';
import { recogniseEntities } from './recognize.js';
import { readTaxId, taxIdValue } from './tax-ids.js';
import { documentFromLines } from './text-doc.js';

const entities = (lines: string[], options = {}) => recogniseEntities(documentFromLines(lines), options);
const ofType = (lines: string[], type: string, options = {}) => entities(lines, options).filter((e) => e.type === type).map((e) => e.value);

describe('organisation names read through OCR', () => {
  it('recognises a legal form with a digit OCR read for a letter, and puts it right', () => {
    expect(findOrganisations('BOOK TA .K (TAMAN DAYA) SDN 8HD').map((o) => o.name)).toEqual(['BOOK TA .K (TAMAN DAYA) SDN 8HD']);
    expect(legalFormOcrFixed('BOOK TA .K (TAMAN DAYA) SDN 8HD')).toBe('BOOK TA .K (TAMAN DAYA) SDN BHD');
    expect(legalFormOcrFixed('POPULAR BOOK C0. (M) SDN BH0')).toBe('POPULAR BOOK CO. (M) SDN BHD');
    // Digits elsewhere in a name stay.
    expect(legalFormOcrFixed('7-ELEVEN 8HD MALAYSIA SDN BHD')).toBe('7-ELEVEN 8HD MALAYSIA SDN BHD');
  });

  it('gives a name read by OCR back the spaces around a short parenthesis and its letters', () => {
    expect(ocrNameFixed('GARDENIA BAKERIES(KL)SDN BHD')).toBe('GARDENIA BAKERIES (KL) SDN BHD');
    expect(ocrNameFixed("KING'S CONFECTI0NERY S/B")).toBe("KING'S CONFECTIONERY S/B");
    expect(ocrNameFixed('MR. D.I.Y. (M) SDN BHD')).toBe('MR. D.I.Y. (M) SDN BHD');
  });

  it('puts right the D of SDN read as O or I', () => {
    expect(legalFormOcrFixed('AMANO MALAYSIA SON BHD')).toBe('AMANO MALAYSIA SDN BHD');
    expect(legalFormOcrFixed('SUBANG HEALTHCARE SIN BHD')).toBe('SUBANG HEALTHCARE SDN BHD');
    expect(legalFormOcrFixed('SON OF A GUN')).toBe('SON OF A GUN');
  });

  it('reads look-alike glyphs inside words as the word\'s own kind', () => {
    expect(repairLookalikes('L0T 1851-A, Ja1an SS21/39, 47400 Peta1ing Jaya')).toBe('LOT 1851-A, Jalan SS21/39, 47400 Petaling Jaya');
    expect(repairLookalikes("8110O JOHOR, 433O0 SERI, KING'S CONFECTI0NERY")).toBe("81100 JOHOR, 43300 SERI, KING'S CONFECTIONERY");
    // Codes that mix letters and digits on purpose stay as printed.
    expect(repairLookalikes('PJU 1A/4, PT244, U3/G, SS6/4, AB1, M2-0, 1OO, Uptown3')).toBe('PJU 1A/4, PT244, U3/G, SS6/4, AB1, M2-0, 1OO, Uptown3');
  });

  it('sets a trailing legal form aside', () => {
    expect(withoutLegalForm('Free SAS')).toBe('Free');
    expect(withoutLegalForm('Coolblue B.V.')).toBe('Coolblue');
    expect(withoutLegalForm('Acme Widgets')).toBe('Acme Widgets');
  });
});

describe('dates', () => {
  it.each([
    ['2014-08-03', '2014-08-03'],
    ['03.08.2014', '2014-08-03'],
    ['7. Mai 2014', '2014-05-07'],
    ['02 Juillet 2015', '2015-07-02'],
    ['1er juillet 2015', '2015-07-01'],
    ['3 de marzo de 2023', '2023-03-03'],
    ['19 april 2014', '2014-04-19'],
    ['August 3 , 2014', '2014-08-03'],
    ['Aug 3rd, 2014', '2014-08-03'],
    ['03-Aug-2014', '2014-08-03'],
    ['15 Dezember 2021', '2021-12-15'],
    ['25/12/2018', '2018-12-25'],
    ['12/25/2018', '2018-12-25'],
    ['01.05.14', '2014-05-01'],
    ['12 février 2020', '2020-02-12'],
    ['9 sept. 2019', '2019-09-09'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseDate(text)).toBe(iso);
  });

  it('reads a month name OCR printed with a look-alike digit', () => {
    expect(findDates('DATE : 10 0CT 2017 TUE').map((d) => d.value)).toEqual(['2017-10-10']);
    expect(findDates('02 N0V 2018').map((d) => d.value)).toEqual(['2018-11-02']);
    expect(findDates('5 JU1 2019').map((d) => d.value)).toEqual(['2019-07-05']);
    expect(findDates('Room 101 on 3 May 2020').map((d) => d.value)).toEqual(['2020-05-03']);
  });

  it('reads a month and a year as no day ("March 2021" is not 20 March 2021)', () => {
    expect(findDates('Invoice period: March 2021')).toEqual([]);
    expect(findDates('Dec 2019 statement')).toEqual([]);
    expect(findDates('May 5 2019').map((d) => d.value)).toEqual(['2019-05-05']);
    expect(findDates('May 5, 19').map((d) => d.value)).toEqual(['2019-05-05']);
  });

  it('rejects impossible dates', () => {
    expect(parseDate('31.02.2020')).toBeNull();
    expect(parseDate('2020-13-01')).toBeNull();
  });

  it('resolves ambiguous slash dates by what the document proves, else day-first and flagged', () => {
    expect(inferDateOrder(['due 12/25/2018'])).toBe('mdy');
    expect(inferDateOrder(['due 25/12/2018'])).toBe('dmy');
    expect(findDates('04/03/2023', 'mdy')[0]).toMatchObject({ value: '2023-04-03', ambiguous: false });
    expect(findDates('04/03/2023')[0]).toMatchObject({ value: '2023-03-04', ambiguous: true });
    expect(ofType(['Invoice date 03/20/2023', 'Due 04/04/2023'], 'date')).toEqual(['2023-03-20', '2023-04-04']);
  });

  it('does not read versions or amounts as dates', () => {
    expect(findDates('Total 1.234,56 and version 2.10.4')).toEqual([]);
  });
});

describe('date ranges', () => {
  it('reads "July 1 - July 31, 2014" as a period ending on 2014-07-31, never "1 - July 31" as 2031', () => {
    const values = findDates('This invoice is for the billing period July 1 - July 31 , 2014').map((d) => d.value);
    expect(values).toEqual(['2014-07-31']);
    expect(findDates('1 - July 31, 2014').map((d) => d.value)).toEqual(['2014-07-31']);
  });

  it('still reads day-month-year dates with a dash or a space', () => {
    expect(findDates('03-Aug-2014')[0]?.value).toBe('2014-08-03');
    expect(findDates('7 Mai 2014')[0]?.value).toBe('2014-05-07');
    expect(findDates('1 July 14')[0]?.value).toBe('2014-07-01');
  });
});

describe('numbers and money', () => {
  it.each([
    ['1.234,56', 1234.56],
    ['1,234.56', 1234.56],
    ['1 234,56', 1234.56],
    ["1'234.50", 1234.5],
    ['3,89', 3.89],
    ['1,234', 1234],
    ['0,125', 0.125],
    ['-9,32', -9.32],
    ['(12.00)', -12],
    ['1.234.567', 1234567],
  ])('parses %s', (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it('finds amounts with symbols and codes on either side', () => {
    expect(findMoney('€ 717,97 and 15,00 EUR and $4.11 and Rs 1939 and RM 9.00').map((m) => [m.amount, m.currency])).toEqual([
      [717.97, 'EUR'],
      [15, 'EUR'],
      [4.11, 'USD'],
      [1939, 'INR'],
      [9, 'MYR'],
    ]);
    expect(parseAmount('Total: USD 1,250.00')).toEqual({ amount: 1250, currency: 'USD' });
  });

  it('reads an amount OCR printed with a space beside its decimal point, and nothing else so', () => {
    expect(findMoney('Total RM 49. 40').map((m) => [m.amount, m.currency])).toEqual([[49.4, 'MYR']]);
    expect(findMoney('TOTAL SALES RM 41 .95').map((m) => [m.amount, m.currency])).toEqual([[41.95, 'MYR']]);
    expect(findMoney('TOTAL 28 . 90').map((m) => m.amount)).toEqual([28.9]);
    expect(findMoney('12 . 05 . 2018').map((m) => m.amount)).toEqual([]);
    expect(findMoney('Qty 2 .5 Amount 7 .505').map((m) => m.amount)).toEqual([]);
    expect(findMoney('CHANGE 40. 35').map((m) => m.amount)).toEqual([40.35]);
    expect(parseAmount('9. 65')).toEqual({ amount: 9.65, currency: null });
    // A dotted date and a number followed by more digits stay apart.
    expect(findMoney('25. 12. 2018').map((m) => m.amount)).toEqual([]);
    expect(findMoney('Qty 3. 405 pcs').map((m) => m.amount)).toEqual([]);
  });

  it('reports bare two-decimal amounts with the document currency and lower confidence', () => {
    const found = entities(['Total € 10,00', 'Shipping 5,50']).filter((e) => e.type === 'money');
    expect(found.map((e) => e.value)).toEqual([{ amount: 10, currency: 'EUR' }, { amount: 5.5, currency: 'EUR' }]);
    expect(found[1]!.confidence).toBeLessThan(found[0]!.confidence);
  });

  it('finds percentages', () => {
    expect(ofType(['BTW 21% and 15.00 % discount'], 'percentage')).toEqual([21, 15]);
  });
});

describe('identifiers with checksums', () => {
  it('validates IBANs with mod 97', () => {
    expect(isValidIban('DE30 5075 0094 0000 0485 67')).toBe(true);
    expect(isValidIban('NL50INGB0683251309')).toBe(true);
    expect(isValidIban('NL51INGB0683251309')).toBe(false);
    expect(ofType(['IBAN DE30507500940000048567, BIC HELADEF1GEL'], 'iban')).toEqual(['DE30507500940000048567']);
    expect(ofType(['Account NL51INGB0683251309'], 'iban')).toEqual([]);
  });

  it('puts right the look-alike glyphs of an OCR reading when the check digits then pass', () => {
    // A bank code read with a zero for its O, and a German account with letters for digits.
    expect(repairedIban('NL58RAB00198723202')).toBe('NL58RABO0198723202');
    expect(repairedIban('DE30 5O75 0094 OOOO 0485 67')).toBe('DE30507500940000048567');
    expect(ofType(['IBAN: NL58RAB00198723202 BiC: RABONL2U'], 'iban')).toEqual(['NL58RABO0198723202']);
    // Valid already, wrong beyond look-alikes, or of a country without a known format: no repair.
    expect(repairedIban('NL50INGB0683251309')).toBeNull();
    expect(repairedIban('NL51INGB0683251309')).toBeNull();
    expect(repairedIban('XK05 1212 0123 4567 8906')).toBeNull();
    expect(ofType(['Account NL51INGB068325130O'], 'iban')).toEqual([]);
  });

  it('finds card-like numbers only when Luhn holds', () => {
    expect(luhnValid('4111 1111 1111 1111')).toBe(true);
    expect(ofType(['Paid with Visa 4111 1111 1111 1111'], 'card_number')).toEqual(['4111111111111111']);
    expect(ofType(['Paid with Visa 4111 1111 1111 1112'], 'card_number')).toEqual([]);
  });

  it('checks national VAT check digits', () => {
    expect(vatCheckDigits('DE', '232446240')).toBe(true);
    expect(vatCheckDigits('DE', '232446241')).toBe(false);
    expect(vatCheckDigits('FR', '60421938861')).toBe(true);
    expect(vatCheckDigits('NL', '810433941B01')).toBe(true);
    expect(vatCheckDigits('BE', '0403170701')).toBe(true);
    expect(vatCheckDigits('IT', '00743110157')).toBe(true);
  });

  it('checks Czech, Slovak and Swedish VAT check digits', () => {
    expect(vatCheckDigits('CZ', '25123891')).toBe(true);
    expect(vatCheckDigits('CZ', '25123890')).toBe(false);
    // Ten digits: a sole trader's birth number, another scheme.
    expect(vatCheckDigits('CZ', '7103192745')).toBe(null);
    expect(vatCheckDigits('SK', '2021853504')).toBe(true);
    expect(vatCheckDigits('SK', '2021853505')).toBe(false);
    expect(vatCheckDigits('SE', '556036079301')).toBe(true);
    expect(vatCheckDigits('SE', '556036079401')).toBe(false);
  });

  it('reads unprefixed numbers after national VAT labels (DIČ, IČ DPH, ИНН, ΑΦΜ, CVR)', () => {
    expect(ofType(['DIČ: 25123891'], 'tax_id')).toEqual(['CZ25123891']);
    expect(ofType(['IČ DPH: 2021853504'], 'tax_id')).toEqual(['SK2021853504']);
    expect(ofType(['ИНН 7707083893'], 'tax_id', { taxIdPrefixMode: 'off' })).toEqual(['7707083893']);
    expect(ofType(['ΑΦΜ: 094014201'], 'tax_id', { taxIdPrefixMode: 'off' })).toEqual(['094014201']);
    expect(ofType(['CVR-nr. 13585628'], 'tax_id', { taxIdPrefixMode: 'off' })).toEqual(['13585628']);
    // Not a label inside a longer word.
    expect(ofType(['Dictionary 25123891'], 'tax_id')).toEqual([]);
  });

  it('applies tax_id_country_prefix_mode', () => {
    const lines = ['USt-IdNr.: 232 446 240', 'IBAN DE30507500940000048567'];
    expect(ofType(lines, 'tax_id', { taxIdPrefixMode: 'infer' })).toEqual(['DE232446240']);
    expect(ofType(lines, 'tax_id', { taxIdPrefixMode: 'preserve' })).toEqual(['232446240']);
    expect(ofType(lines, 'tax_id', { taxIdPrefixMode: 'off' })).toEqual(['232 446 240']);
    expect(ofType(['UStId DE 232 446 240'], 'tax_id', { taxIdPrefixMode: 'preserve' })).toEqual(['DE232446240']);
    expect(ofType(['N° de TVA intra communautaire: FR 604 219 388 61'], 'tax_id')).toEqual(['FR60421938861']);
    expect(ofType(['GSTIN 06AABCO6063D1ZQ'], 'tax_id')).toEqual(['06AABCO6063D1ZQ']);
    const m = readTaxId('NL810433941B01');
    expect(m && taxIdValue(m, 'NL810433941B01', 'infer')).toBe('NL810433941B01');
    // A number that only looks like a VAT id is not one without a prefix or a label.
    expect(ofType(['Order 232446240'], 'tax_id')).toEqual([]);
  });
});

describe('contacts', () => {
  it('finds emails, URLs and phone numbers', () => {
    const found = entities(['eMail: info@qualityhosting.de', 'Im Internet: www.qualityhosting.de', 'Tel. +49 6051 916 44 10', 'Telefon: 06051 916440', 'see aws.amazon.com/contact-us/', 'IBAN DE30507500940000048567']);
    expect(found.filter((e) => e.type === 'email').map((e) => e.value)).toEqual(['info@qualityhosting.de']);
    expect(found.filter((e) => e.type === 'url').map((e) => e.value)).toEqual(['www.qualityhosting.de', 'aws.amazon.com/contact-us/']);
    expect(found.filter((e) => e.type === 'phone').map((e) => e.value)).toEqual(['+4960519164410', '+496051916440']);
  });

  it('does not take an unlabelled national number for a phone number', () => {
    expect(ofType(['Invoice 0301234567'], 'phone')).toEqual([]);
  });
});

describe('postal codes, organisations and reference numbers', () => {
  it('finds postal codes in address context', () => {
    expect(ofType(['D-63571 Gelnhausen', '3012 CN Rotterdam', 'Fremont CA 94538', 'London SW1A 1AA'], 'postal_code')).toEqual(['63571', '3012 CN', '94538', 'SW1A 1AA']);
    expect(ofType(['HRB 13302 IBAN'], 'postal_code')).toEqual([]);
  });

  it('finds organisations by legal-form suffix', () => {
    expect(findOrganisations('Sold by Amazon Web Services, Inc. in Seattle').map((o) => o.name)).toEqual(['Amazon Web Services, Inc.']);
    expect(findOrganisations('QualityHosting AG - Uferweg 40-42').map((o) => o.name)).toEqual(['QualityHosting AG']);
    expect(findOrganisations('BOOK TA .K (TAMAN DAYA) SDN BHD').map((o) => o.name)).toEqual(['BOOK TA .K (TAMAN DAYA) SDN BHD']);
    expect(findOrganisations('Invoice Coolblue B.V.').map((o) => o.name)).toEqual(['Coolblue B.V.']);
    expect(findOrganisations('Free SAS au capital').map((o) => o.name)).toEqual(['Free SAS']);
    expect(findOrganisations('as a matter of fact')).toEqual([]);
  });

  it('finds invoice, order and customer numbers by their labels in several languages', () => {
    const found = entities(['Rechnungsnr. 30064443 Kundennr. 47774', 'Facture n°562044387 du 02 Juillet 2015', 'Número de pedido: PO-2231', 'Invoice Number: 42183017']);
    expect(found.filter((e) => e.type === 'invoice_number').map((e) => e.value)).toEqual(['30064443', '562044387', '42183017']);
    expect(found.filter((e) => e.type === 'customer_number').map((e) => e.value)).toEqual(['47774']);
    expect(found.filter((e) => e.type === 'order_number').map((e) => e.value)).toEqual(['PO-2231']);
  });
});

describe('location', () => {
  it('gives every entity its page and the box of its words', () => {
    const doc = documentFromLines([{ text: 'Total: EUR 119.00', bbox: [100, 200, 202, 212] }, { text: 'Page two date 2024-01-02', page: 2 }]);
    const found = recogniseEntities(doc);
    const money = found.find((e) => e.type === 'money')!;
    expect(money).toMatchObject({ page: 1, text: 'EUR 119.00' });
    expect(money.bbox[0]).toBeGreaterThan(130);
    expect(money.bbox[2]).toBeCloseTo(202, 0);
    expect(found.find((e) => e.type === 'date')).toMatchObject({ page: 2, value: '2024-01-02' });
  });

  it('lowers confidence with the words OCR confidence', () => {
    const [clean] = recogniseEntities(documentFromLines([{ text: 'mail: a@b.de' }])).filter((e) => e.type === 'email');
    const [noisy] = recogniseEntities(documentFromLines([{ text: 'mail: a@b.de', confidence: 0.5 }])).filter((e) => e.type === 'email');
    expect(noisy!.confidence).toBeCloseTo(clean!.confidence / 2, 2);
  });
});

describe('reference labels on crafted text', () => {
  it('reads a label followed by many separators and no value in time linear in its length', () => {
    // "n°" was two readings of the gap, so each one doubled the backtracking: 14 of them took
    // 25 s before the gap had one reading, 15 four minutes.
    const found = ofType(['1 invoice: ' + 'n° '.repeat(15) + '!', 'Invoice No. 4711'], 'invoice_number');
    expect(found).toEqual(['4711']);
  });
});

describe('dates on crafted text', () => {
  it('reads a month and day followed by a long run of spaces in time linear in its length', () => {
    // \s*,?\s* before the year split the run quadratically: 250,000 tabs took over a minute.
    const text = 'dec 3º' + '\t'.repeat(250_000) + 's. Paid August 3, 2014';
    expect(findDates(text).map((d) => d.value)).toEqual(['2014-08-03']);
  });
});

describe('legal forms on crafted text', () => {
  it('keeps a name with a long run of spaces inside it in time linear in its length', () => {
    // The trailing legal-form regex scanned the run again from each of its spaces: 250,000 took
    // over a minute.
    const name = 'Acme' + ' '.repeat(250_000) + 'Tools';
    expect(withoutLegalForm(name)).toBe(name);
    expect(withoutLegalForm('Acme Tools' + ' '.repeat(250_000) + ', GmbH ')).toBe('Acme Tools');
  });
});

describe('web addresses on crafted text', () => {
  it('reads an address followed by a long run of brackets in time linear in its length', () => {
    // Its trailing punctuation was stripped from each bracket of the run: 250,000 took over a minute.
    expect(ofType(['see www.example.com' + ')'.repeat(250_000) + 'a'], 'url')).toEqual(['www.example.com' + ')'.repeat(250_000) + 'a']);
    expect(ofType(['see www.example.com).'], 'url')).toEqual(['www.example.com']);
  });
});
