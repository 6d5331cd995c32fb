// Receipts (SROIE ground-truth lines): the total is the amount payable, not a subtotal, a total
// before rounding or a figure of the tax summary printed after it.
import { describe, expect, it } from 'vitest';
import { documentKind } from '../../src/pipeline/classify/draft-name.js';
import { currencyCode, isCurrencyWord } from '../../src/pipeline/entities/money.js';
import { documentFromLines } from '../../src/pipeline/entities/text-doc.js';
import { runExtraction } from '../../src/pipeline/extract/index.js';
import { isPaymentLabel } from '../../src/pipeline/extract/receipt-total.js';
import { labelOptions } from '../../src/pipeline/forge/deterministic.js';
import { runCanonical, toCanonicalJson } from '../../src/pipeline/index.js';
import { RECEIPT_SCHEMA, receiptDocument, receiptKey } from './sroie.js';

const extract = (id: string) => runExtraction(receiptDocument(id), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction;

describe('receipt total', () => {
  it('is the total including tax, not the "TOTAL" of the GST summary printed after the payment (048)', () => {
    const out = extract('048');
    expect(out.data.total).toBe(100.9);
    expect(Number(receiptKey('048').total)).toBe(100.9);
  });

  it('skips a currency printed in a column of its own between label and amount (162)', () => {
    expect(extract('162').data.total).toBe(213);
  });

  it('is confirmed by the cash tendered less the change when labels and amounts are stacked (192)', () => {
    const out = extract('192');
    expect(out.data.total).toBe(38.8);
    expect(out.fields.total!.confidence).toBeGreaterThanOrEqual(0.7);
  });

  it('reads the total of a slightly skewed receipt, not the item count beside it (090)', () => {
    expect(extract('090').data.total).toBe(5);
  });

  it('is the amount that subtotal plus tax make, printed after them, when its own label is cut short (018: "SUB TOTAL 68.87", "GST/TAX 6% 4.13", "TO 73.00")', () => {
    const out = extract('018');
    expect(out.data.total).toBe(73);
    expect(Number(receiptKey('018').total)).toBe(73);
  });

  it('is the amount after rounding adjustment (186)', () => {
    expect(extract('186').data.total).toBe(45.35);
  });
});

describe('receipt address and company', () => {
  const squash = (s: unknown) => String(s).replace(/\s*([,.])\s*/g, '$1').trim();

  it('leaves the branch name above the street out of the address (090)', () => {
    expect(squash(extract('090').data.address)).toBe(squash(receiptKey('090').address));
  });

  it('reads the city on the line after a postal code that ends its line (018)', () => {
    expect(squash(extract('018').data.address)).toBe(squash(receiptKey('018').address));
  });

  it('skips registration lines between the name and the address, and stops before the branch name after it (072)', () => {
    const address = String(extract('072').data.address);
    expect(squash(address)).toBe(squash(receiptKey('072').address));
    expect(address).not.toContain('GST');
    expect(address).not.toContain('SUNWAY');
  });

  it('leaves a GST number printed after its label out of the address (132: "GST NO: 000342237184 (ID:5033)", 324)', () => {
    for (const id of ['132', '324']) {
      const address = String(extract(id).data.address);
      expect(address).not.toMatch(/000342237184|001536708608/);
      expect(squash(address)).toBe(squash(receiptKey(id).address));
    }
  });

  it('ends the address before a phone number alone on its line (150: "03-60571377")', () => {
    expect(squash(extract('150').data.address)).toBe(squash(receiptKey('150').address));
  });

  it('takes no address from the "Bill to" block: that is the customer\'s (270)', () => {
    const address = String(extract('270').data.address);
    expect(address).not.toContain('JINJANG');
    expect(squash(address)).toBe(squash(receiptKey('270').address));
  });

  it('never takes a registration number for the company (216)', () => {
    const company = extract('216').data.company;
    expect(company === undefined || /\p{L}{3}/u.test(String(company).replace(/\bno\b/gi, ''))).toBe(true);
    expect(String(company)).not.toMatch(/725186/);
  });
});

// Lines as the OCR stage reads them from the receipt photos (sroie/img), misreadings included.
describe('receipts read through OCR', () => {
  const read = (lines: string[]) => runExtraction(documentFromLines(lines), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction;

  it('takes a company whose legal form OCR printed on a line of its own (066)', () => {
    const out = read(['PASARAYA BORONG PINTAR', 'SDN BHD', 'BR No.:(124525-H)', 'NO 19-G&19-1&19-2 JALAN TASIK UTAMA4.', 'QTY UOM UNITAmt Exc.Amt Inc. GST', 'Total 8.20']);
    expect(out.data.company).toBe('PASARAYA BORONG PINTAR SDN BHD');
  });

  it('reads a name with an article after "of", and a small l OCR read as a capital I (042: "Taste Of The WorId Sdn Bhd")', () => {
    const lines = ['Geoventure', 'Taste Of The WorId Sdn Bhd', '965857- A', 'Lot 38. 39 101 Boulevard.', 'TOTAL RM 64.15'];
    const ocr = runExtraction(documentFromLines(lines.map((text) => ({ text, confidence: 0.9 }))), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction;
    expect(ocr.data.company).toBe('Taste Of The World Sdn Bhd');
    // A text layer says what it says; CamelCase names keep their capitals.
    expect(read(['LinkedIn Ireland Unlimited Company', 'Taste Of The WorId Sdn Bhd', 'Total 5.00']).data.company).toBe('Taste Of The WorId Sdn Bhd');
  });

  it('puts right a legal form OCR read with a digit (000: "SDN 8HD")', () => {
    expect(read(['tan woon yann', 'BOOK TA .K (TAMAN DAYA) SDN 8HD', '78941 7-W', 'Total : 9.00']).data.company).toBe('BOOK TA .K (TAMAN DAYA) SDN BHD');
  });

  it('reads the commas OCR took for points between address parts, and keeps abbreviations (006)', () => {
    const lines = ['SOON HUAT MACHINERY ENTERPRISE', '(JM0352019-K)', 'NO.53 JALAN PUTRA 1,', 'TAMAN SRI PUTRA.', '81200 JOHOR BAHRU', 'JOHOR', 'TEL : 07-5547360'];
    const ocr = runExtraction(documentFromLines(lines.map((text) => ({ text, confidence: 0.87 }))), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction;
    expect(ocr.data.address).toBe('NO.53 JALAN PUTRA 1, TAMAN SRI PUTRA, 81200 JOHOR BAHRU JOHOR');
    // A text layer says what it says.
    expect(read(lines).data.address).toBe('NO.53 JALAN PUTRA 1, TAMAN SRI PUTRA. 81200 JOHOR BAHRU JOHOR');
  });

  it('reads a point after a number between address parts as a comma, and look-alike glyphs as their word\'s kind (042, 192)', () => {
    const ocr = (lines: string[]) => runExtraction(documentFromLines(lines.map((text) => ({ text, confidence: 0.87 }))), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction.data;
    expect(ocr(['Geoventure', 'Lot 38. 39 101 Boulevard,', 'Jalan Kenari 5. Bandar Puchong Jaya', '47170 Puchong, Selangor', 'Tel: 03-80709933']).address).toBe('Lot 38, 39 101 Boulevard, Jalan Kenari 5, Bandar Puchong Jaya 47170 Puchong, Selangor');
    expect(ocr(['SYARIKAT PERNIAGAAN GIN KEE', 'L0T 1851-A & 1851-B, JALAN KPB 6,', 'KAWASAN PERINDUSTRIAN BALAKONG,', '433O0 SERI KEMBANGAN, SELANGOR', 'TEL: 03-89611155']).address).toBe(
      'LOT 1851-A & 1851-B, JALAN KPB 6, KAWASAN PERINDUSTRIAN BALAKONG, 43300 SERI KEMBANGAN, SELANGOR',
    );
  });

  it('reads an amount with a space after its decimal point (096: "9. 65")', () => {
    expect(read(['Total RM Incl. of GST 9. 65', 'Cash -50. 00', 'CHANGE 40. 35']).data.total).toBe(9.65);
  });

  it('keeps the labelled total when a misread change of 0 would make the cash the total (000)', () => {
    expect(read(['Total : 9.00', 'Round d Totai (RM): 9.00', 'Cash 10.00', 'CHANGE 00']).data.total).toBe(9);
  });

  it('takes the sum of subtotal and tax over the subtotal when OCR mangled the total\'s label (018: "TOT*1 RM 73. 00")', () => {
    const lines = ['Sub Total RM 68. 87', "Service'Charge : RM 0. 00", 'GST/TAX 6% RM 4.13', 'TOT*1 RM 73. 00', 'CA.. RM 73. 00', 'CHANGE : RM 0. 00', 'GST Summary Amount (RM) Tax (RM)', 'SR @ 6% 68. 87 4. 13'];
    const out = runExtraction(documentFromLines(lines.map((text) => ({ text, confidence: 0.9 }))), { id: null, version: null, json_schema: RECEIPT_SCHEMA }).extraction;
    expect(out.data.total).toBe(73);
  });

  it('keeps the total after rounding when a misread cash amount is off by a rounding step (090)', () => {
    expect(read(['Total', '5.00', 'Rounding Adjustment 0.03', 'Total After Rounding 5.00', 'Cash 10.03', 'CHANGE 5.00']).data.total).toBe(5);
    // OCR ran the item count into the total's label: the total after rounding still wins.
    expect(read(['Item Count', 'Total 2', '5.00', 'Rounding Adjustment 0.03', 'Total After Rounding 5.00', 'Cash 10.03', 'CHANGE 5.00']).data.total).toBe(5);
  });
});

describe('receipt total after rounding', () => {
  it('is the total after rounding, not the total before it, when a card paid it (228)', () => {
    expect(extract('228').data.total).toBe(48.95);
    expect(Number(receiptKey('228').total)).toBe(48.95);
  });
});

describe('receipt company', () => {
  it('is no street read under a label that names a number ("COMPANY NO:" over "LOT PTD 198718 …", 288)', () => {
    const company = extract('288').fields.company!;
    expect(company.value).not.toBe('LOT PTD 198718');
    expect(company.confidence < 0.7 || company.value === receiptKey('288').company).toBe(true);
  });
});

describe('receipts in rupiah and baht (one list of currencies for amounts, payment lines and labels)', () => {
  const schema = { type: 'object', properties: { total: { type: 'number' }, currency: { type: 'string' } } };
  const read = async (text: string) => toCanonicalJson(await runCanonical(Buffer.from(text)));

  it('reads the total and its currency from "Rp" and "฿" amounts', async () => {
    const rupiah = await read('TOKO MAJU JAYA\nJL. SUDIRMAN 12, JAKARTA\nTANGGAL: 12/03/2024\nNASI GORENG Rp 35.000\nES TEH Rp 8.000\nTOTAL Rp 43.000\nTUNAI Rp 50.000\nKEMBALI Rp 7.000\n');
    expect(runExtraction(rupiah, { id: null, version: null, json_schema: schema }).extraction.data).toEqual({ total: 43000, currency: 'IDR' });
    const baht = await read('SUKHUMVIT MINI MART\nPAD THAI ฿120.00\nTHAI TEA ฿125.00\nTOTAL ฿245.00\nCASH ฿500.00\nCHANGE ฿255.00\n');
    expect(runExtraction(baht, { id: null, version: null, json_schema: schema }).extraction.data).toEqual({ total: 245, currency: 'THB' });
  });

  it('a THB receipt: "CASH THB 500.00" is a payment line, and the forge labels the total "TOTAL", not "TOTAL THB"', async () => {
    const canonical = await read('SUKHUMVIT MINI MART\n123 SUKHUMVIT ROAD, BANGKOK\nDATE: 12/03/2024\nPAD THAI 120.00\nTHAI TEA 125.00\nTOTAL THB 245.00\nCASH THB 500.00\nCHANGE THB 255.00\n');
    expect(documentKind(canonical, null)).toBe('receipt');
    expect(labelOptions('total', [{ job_id: 'textcur-thb', canonical, expected: { total: 245 } }])[0]).toBe('TOTAL');
    expect(isPaymentLabel('CASH THB')).toBe(true);
    expect(isPaymentLabel('TUNAI Rp')).toBe(true);
  });

  it('knows every ISO 4217 code given on its own, and currencies printed in any case', () => {
    expect(['IDR', 'THB', 'PHP', 'JPY', 'SEK', 'XOF'].map((c) => currencyCode(c))).toEqual(['IDR', 'THB', 'PHP', 'JPY', 'SEK', 'XOF']);
    expect(['Rp', '฿', '₱', 'rmb'].map((c) => currencyCode(c))).toEqual(['IDR', 'THB', 'PHP', 'CNY']);
    // Lower-case words that are also ISO codes stay words.
    expect(['all', 'cup', 'top'].map((c) => currencyCode(c))).toEqual([null, null, null]);
    expect(['rm', 'thb', 'RP', '€', 'idr'].every(isCurrencyWord)).toBe(true);
    expect(['total', 'cash', 'cup'].some(isCurrencyWord)).toBe(false);
  });
});
